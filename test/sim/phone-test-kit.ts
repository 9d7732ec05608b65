/**
 * Helpers for the simulated-phone tests: run a command line and get text back, and read
 * a `uiautomator dump` into plain attribute records.
 */
import { after } from 'node:test';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';

export interface TextResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  raw: Buffer;
}

/** A phone closed when the test file ends. */
export function newPhone(options: Partial<SimulatedPhoneOptions> = {}): SimulatedPhone {
  const phone = createSimulatedPhone({ serial: 'sim-test', ...options });
  after(() => phone.close());
  return phone;
}

export async function sh(
  phone: SimulatedPhone,
  line: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<TextResult> {
  const r = await phone.exec(line, { signal });
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), exitCode: r.exitCode, raw: r.stdout };
}

export type DumpNode = Record<string, string> & { bounds: string };

function unescapeXml(text: string): string {
  return text.replace(/&(#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[e] ?? '';
  });
}

/** Every <node> of a dump, attributes unescaped, in document order. */
export function parseDump(xml: string): DumpNode[] {
  const nodes: DumpNode[] = [];
  for (const m of xml.matchAll(/<node ([^>]*)>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1] ?? ''] = unescapeXml(a[2] ?? '');
    nodes.push({ bounds: '', ...attrs });
  }
  return nodes;
}

export function boundsOf(node: { bounds: string }): { left: number; top: number; right: number; bottom: number } {
  const m = /^\[(\d+),(\d+)\]\[(\d+),(\d+)\]$/.exec(node.bounds);
  if (!m) throw new Error(`bad bounds ${node.bounds}`);
  return { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) };
}

export function center(node: { bounds: string }): { x: number; y: number } {
  const b = boundsOf(node);
  return { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
}

/** Runs `uiautomator dump /dev/tty` and returns the parsed nodes. */
export async function dump(phone: SimulatedPhone): Promise<DumpNode[]> {
  const r = await sh(phone, 'uiautomator dump /dev/tty');
  if (!r.stdout.endsWith('UI hierchary dumped to: /dev/tty\n')) throw new Error(`dump failed: ${r.stdout} ${r.stderr}`);
  return parseDump(r.stdout);
}

export function findNode(nodes: DumpNode[], predicate: (n: DumpNode) => boolean): DumpNode {
  const node = nodes.find(predicate);
  if (!node) throw new Error('node not found in dump');
  return node;
}
