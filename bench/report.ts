/**
 * The bench's output: sections of tables and notes, printed as they are finished and written
 * together to bench/results.md (overwritten each run) under a header that says when and on
 * what machine the figures were taken.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  memory: string;
  os: string;
  node: string;
  adb: string;
  loadAtStart: string;
}

export function machineInfo(): MachineInfo {
  const adb = spawnSync('adb', ['version'], { encoding: 'utf8', timeout: 10_000 });
  const adbLines = (adb.stdout ?? '').split('\n');
  const adbVersion = [adbLines[0]?.replace('Android Debug Bridge version ', ''), adbLines[1]?.replace('Version ', '')]
    .filter(Boolean)
    .join(' / ');
  const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(1)} GiB`;
  return {
    date: new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC'),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memory: `${gib(totalmem())} (${gib(freemem())} free)`,
    os: `${process.platform} ${release()}`,
    node: process.version,
    adb: adbVersion || 'unknown',
    loadAtStart: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

interface Section {
  title: string;
  body: string[];
}

export class Report {
  private readonly sections: Section[] = [];
  private current: Section | undefined;

  constructor(
    readonly machine: MachineInfo,
    readonly mode: string,
  ) {}

  section(title: string): void {
    this.current = { title, body: [] };
    this.sections.push(this.current);
    process.stdout.write(`\n## ${title}\n\n`);
  }

  /** A table or a paragraph; printed now and kept for results.md. */
  add(text: string): void {
    if (!this.current) this.section('Results');
    this.current?.body.push(text);
    process.stdout.write(`${text}\n\n`);
  }

  header(): string {
    const m = this.machine;
    return [
      '# Bench results',
      '',
      `Written by \`npm run bench${this.mode === 'quick' ? ' -- --quick' : ''}\` on ${m.date} (${this.mode} run); overwritten by every run.`,
      '',
      `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory}, ${m.os}, load average at start ${m.loadAtStart}`,
      `- Node ${m.node}; adb ${m.adb}`,
      '- Phones: simulated (main/sim), attached to a private real adb server over the adbd protocol; the',
      '  `instant` profile adds no phone time, `usb-phone` takes as long as a real phone on USB',
      '  (main/sim/TIMING-SOURCES.md). Latencies in milliseconds; pNN are nearest-rank percentiles.',
    ].join('\n');
  }

  markdown(): string {
    const parts = [this.header()];
    for (const s of this.sections) parts.push(`## ${s.title}`, ...s.body);
    return `${parts.join('\n\n')}\n`;
  }

  write(path: string): void {
    writeFileSync(path, this.markdown());
  }
}
