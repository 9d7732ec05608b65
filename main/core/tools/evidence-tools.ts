/**
 * Evidence of what happened on a phone, for the agent: `android_logcat` reads a bounded,
 * filtered, redacted part of the phone's log. An observation call (it never takes the
 * phone's control line). Crashes and ANRs ride on every result instead (lease-log-capture.ts),
 * and long recordings are android_screen_record's (observation-tools.ts).
 *
 * Bounds: lines (default 500, at most 5000), bytes (default 256 KiB, at most 2 MiB: past
 * them the oldest lines are left out and `truncated` says so) and the call's deadline. Past
 * INLINE_BYTES the lines go as a text file through the transfer plane (file_ref +
 * download_url) with the first HEAD_LINES inline. A package is followed by its running
 * process's pid (`pidof`); a package that is not running gets a plain answer, no lines.
 */
import { z } from 'zod';
import {
  LOG_BUFFERS,
  LOG_LEVELS,
  LOG_TAG_PATTERN,
  logcatArgv,
  parseThreadtimeLine,
  type LogBuffer,
} from '../android/logcat';
import { BridgeError } from '../errors';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import { defineTool, packageName, type ToolDefinition } from './tool-definition';

export const LOGCAT_DEFAULT_LINES = 500;
export const LOGCAT_MAX_LINES = 5000;
export const LOGCAT_DEFAULT_BYTES = 256 * 1024;
export const LOGCAT_MAX_BYTES = 2 * 1024 * 1024;
/** Above this many bytes of lines the answer is a file, not inline text. */
export const LOGCAT_INLINE_BYTES = 32 * 1024;
const HEAD_LINES = 40;

const logcatArgs = z.strictObject({
  package: packageName.optional().describe('Only lines of this app’s running process (by its pid).'),
  tags: z
    .array(z.string().regex(LOG_TAG_PATTERN, 'a log tag: letters, digits, _ . - $ / (1–64)'))
    .min(1)
    .max(20)
    .optional()
    .describe('Only lines with these tags (e.g. ["ActivityManager", "AndroidRuntime"]).'),
  min_level: z
    .enum(LOG_LEVELS)
    .optional()
    .describe('Lowest level shown: V(erbose), D(ebug), I(nfo), W(arn), E(rror), F(atal). Default V.'),
  since: z
    .union([
      z.number().int().min(1).max(86_400).describe('Seconds back from now.'),
      z.iso.datetime({ offset: true }).describe('A time, ISO 8601 (e.g. 2025-01-31T10:15:00Z).'),
    ])
    .optional()
    .describe(
      'Only lines since then: seconds back from now, or an ISO 8601 time (the phone’s clock; a phone whose clock is off by more shows more or fewer lines).',
    ),
  max_lines: z
    .number()
    .int()
    .min(1)
    .max(LOGCAT_MAX_LINES)
    .optional()
    .describe(`The most recent lines to return (default ${LOGCAT_DEFAULT_LINES}).`),
  max_bytes: z
    .number()
    .int()
    .min(1024)
    .max(LOGCAT_MAX_BYTES)
    .optional()
    .describe(`Cap on the bytes of lines (default ${LOGCAT_DEFAULT_BYTES}); the oldest are left out past it.`),
  buffers: z
    .array(z.enum(LOG_BUFFERS))
    .min(1)
    .max(LOG_BUFFERS.length)
    .optional()
    .describe('Log buffers to read (default main, system, crash).'),
});

type LogcatArgs = z.infer<typeof logcatArgs>;

/** The most recent lines that fit in `maxBytes` (each counted with its newline). */
function lastThatFit(lines: readonly string[], maxBytes: number): string[] {
  let bytes = 0;
  let from = lines.length;
  while (from > 0) {
    const size = Buffer.byteLength(lines[from - 1]!, 'utf8') + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    from--;
  }
  return lines.slice(from);
}

const logcatTool = defineTool({
  id: 'android_logcat',
  title: 'Phone log',
  description:
    'Read the phone’s log (logcat, threadtime lines), newest last: filter by app package (its running process), tags, lowest level, since (seconds back or an ISO time) and buffers; bounded by max_lines (default 500, max 5000) and max_bytes. Lab secrets, text typed during this lease and token- or password-shaped values are redacted. Large output comes as a text file (file_ref + download_url) with the first lines inline.',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none', seesScreen: true },
  args: logcatArgs,
  output: {
    type: 'object',
    properties: {
      lines: { type: 'array', items: { type: 'string' } },
      head: { type: 'array', items: { type: 'string' }, description: 'With a file: its first lines.' },
      count: { type: 'integer' },
      truncated: { type: 'boolean' },
      package_running: { type: 'boolean' },
      pid: { type: 'integer' },
      file_ref: { type: 'string' },
      download_url: { type: 'string' },
    },
  },
  run: async (ctx, args: LogcatArgs) => {
    const deadline = new OperationDeadline({ timeoutMs: ctx.timeoutMs, signal: ctx.signal }, ctx.timeoutMs, 'logcat');
    const maxLines = args.max_lines ?? LOGCAT_DEFAULT_LINES;
    const maxBytes = args.max_bytes ?? LOGCAT_DEFAULT_BYTES;
    const buffers: LogBuffer[] = args.buffers ? [...new Set(args.buffers)] : ['main', 'system', 'crash'];
    let pid: number | undefined;
    if (args.package !== undefined) {
      const found = await runText(ctx.shell, ['pidof', args.package], deadline.next());
      const pids = found.text
        .trim()
        .split(/\s+/)
        .filter((p) => /^\d+$/.test(p));
      if (pids.length === 0) {
        return {
          lines: [],
          count: 0,
          truncated: false,
          package_running: false,
          note: `${args.package} has no running process, so no lines are its. If it crashed, its trace is in the crash buffer: call again without package, with buffers ["crash"] (or tags ["AndroidRuntime"]).`,
        };
      }
      pid = Number(pids[0]);
    }
    const sinceMs =
      args.since === undefined
        ? undefined
        : typeof args.since === 'number'
          ? Date.now() - args.since * 1000
          : Date.parse(args.since);
    const argv = logcatArgv({
      buffers,
      ...(pid !== undefined ? { pid } : {}),
      ...(args.tags ? { tags: args.tags } : {}),
      ...(args.min_level ? { minLevel: args.min_level } : {}),
      ...(sinceMs !== undefined ? { sinceMs } : {}),
      maxLines,
    });
    const out = await runText(ctx.shell, argv, deadline.next());
    if (out.exitCode !== undefined && out.exitCode !== 0)
      throw new BridgeError('command_failed', `logcat failed${excerpt(out.text)}`, { exitCode: out.exitCode });
    // Only log lines: buffer separators and anything else logcat prints are left out.
    const all = out.text.split('\n').filter((line) => parseThreadtimeLine(line) !== null);
    const recent = all.slice(-maxLines);
    const fitting = lastThatFit(ctx.services.redactLog(recent), maxBytes);
    const truncated = fitting.length < all.length && (all.length > maxLines || fitting.length < recent.length);
    const text = fitting.length > 0 ? `${fitting.join('\n')}\n` : '';
    const base = {
      count: fitting.length,
      truncated,
      ...(args.package !== undefined ? { package_running: true, pid } : {}),
    };
    if (Buffer.byteLength(text, 'utf8') <= LOGCAT_INLINE_BYTES) return { lines: fitting, ...base };
    const stored = await ctx.services.storeFile({
      data: Buffer.from(text, 'utf8'),
      mimeType: 'text/plain',
      filename: `logcat-${Date.now()}.txt`,
      kind: 'file',
    });
    return { ...stored, head: fitting.slice(0, HEAD_LINES), ...base };
  },
});

export const EVIDENCE_TOOLS: ToolDefinition<unknown>[] = [logcatTool];
