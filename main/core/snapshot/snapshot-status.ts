/**
 * Reading what `am instrument -w` prints for the snapshot helper: its XML arrives on status
 * lines, no socket. The one rule: a tree is returned only when the final result says
 * `ok=true` under the helper's protocol and every chunk from 0 to chunkCount−1 is there once;
 * anything else (a crash, a cut-off stream, a missing chunk) is an error with its reason,
 * never a partial tree.
 *
 * What `am` prints (AOSP `cmds/am/.../Instrument.java`, TextStatusReporter, without `-r`):
 * each status bundle as `INSTRUMENTATION_STATUS: key=value` lines (keys sorted) closed by
 * `INSTRUMENTATION_STATUS_CODE: n`; the final bundle as `INSTRUMENTATION_RESULT: key=value`
 * lines closed by `INSTRUMENTATION_CODE: n`. A value may run over several lines (a stack
 * trace); those lines carry no prefix. When the process dies, the system finishes the
 * instrumentation with `shortMsg=Process crashed.` and code 0.
 */
import { SNAPSHOT_STATUS_PROTOCOL, snapshotHelperError } from './snapshot-helper-apk';

export type StatusBundle = Record<string, string>;

export interface InstrumentOutput {
  statuses: StatusBundle[];
  /** The final bundle, when `INSTRUMENTATION_RESULT`/`INSTRUMENTATION_CODE` came. */
  result: StatusBundle | null;
  resultCode: number | null;
  /** Lines outside any bundle (am's own errors, exception traces on stderr merged into stdout). */
  other: string[];
}

const STATUS = 'INSTRUMENTATION_STATUS: ';
const STATUS_CODE = 'INSTRUMENTATION_STATUS_CODE: ';
const RESULT = 'INSTRUMENTATION_RESULT: ';
const RESULT_CODE = 'INSTRUMENTATION_CODE: ';

/** Splits `am instrument` output into its status bundles and final result. */
export function parseInstrumentOutput(text: string): InstrumentOutput {
  const out: InstrumentOutput = { statuses: [], result: null, resultCode: null, other: [] };
  let status: StatusBundle | null = null;
  let result: StatusBundle | null = null;
  // The key a prefix-less line continues (multi-line values), in the bundle being read.
  let last: { bundle: StatusBundle; key: string } | null = null;
  const put = (bundle: StatusBundle, pair: string): void => {
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const key = pair.slice(0, eq);
    bundle[key] = pair.slice(eq + 1);
    last = { bundle, key };
  };
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith(STATUS)) put((status ??= {}), line.slice(STATUS.length));
    else if (line.startsWith(STATUS_CODE)) {
      if (status) out.statuses.push(status);
      status = null;
      last = null;
    } else if (line.startsWith(RESULT)) put((result ??= {}), line.slice(RESULT.length));
    else if (line.startsWith(RESULT_CODE)) {
      out.result = result ?? {};
      const code = Number(line.slice(RESULT_CODE.length).trim());
      out.resultCode = Number.isInteger(code) ? code : null;
      result = null;
      last = null;
    } else if (last !== null) {
      const { bundle, key } = last as { bundle: StatusBundle; key: string };
      bundle[key] = `${bundle[key] ?? ''}\n${line}`;
    } else if (line.trim() !== '') out.other.push(line);
  }
  // A bundle never closed: the stream was cut off. Kept out of `statuses`/`result` on purpose.
  return out;
}

const RESTART_FIX =
  'try again; if it keeps failing, turn the snapshot helper off for this phone (the tree is then read with stock uiautomator dump)';

/**
 * The XML a finished run carried, checked as the header states; else the helper_unavailable
 * error that says why. `exitCode` is the shell's (137: the process was killed).
 */
export function xmlFromInstrumentOutput(parsed: InstrumentOutput, exitCode: number | undefined): string {
  const final = parsed.result;
  if (final === null) {
    const text = parsed.other.join('\n');
    if (/Unable to find instrumentation (info|target package)/.test(text) || /INSTRUMENTATION_FAILED/.test(text))
      throw snapshotHelperError(
        'not_installed',
        'the snapshot helper is not installed on the phone (am instrument found no such instrumentation)',
        'install it again (the bridge does so on the next read)',
      );
    if (/SecurityException|Permission Denial/.test(text))
      throw snapshotHelperError(
        'start_refused',
        `the phone refused to start the snapshot helper${excerptOf(text)}`,
        'allow instrumentation for the shell on this phone (some OEM builds block it), or use stock uiautomator dump',
      );
    throw snapshotHelperError(
      'crashed',
      exitCode === 137
        ? 'the snapshot helper was killed before it finished (exit 137)'
        : 'the snapshot helper ended without a result (its output was cut off)',
      RESTART_FIX,
      { exitCode },
    );
  }
  if (final.agentDeviceProtocol !== SNAPSHOT_STATUS_PROTOCOL) {
    const shortMsg = final.shortMsg ?? '';
    if (shortMsg !== '' || parsed.resultCode === 0)
      throw snapshotHelperError(
        'crashed',
        `the snapshot helper's process died during the read${shortMsg ? ` (${shortMsg.trim()})` : ''}`,
        RESTART_FIX,
        { resultCode: parsed.resultCode },
      );
    throw snapshotHelperError(
      'malformed_output',
      "the snapshot helper answered without its protocol (not the bridge's helper?)",
      RESTART_FIX,
    );
  }
  if (final.ok !== 'true') {
    const errorType = final.errorType ?? '';
    const message = final.message && final.message !== 'null' ? final.message : errorType || 'unknown error';
    if (errorType === 'java.util.concurrent.TimeoutException')
      throw snapshotHelperError(
        'accessibility_timeout',
        `the screen never settled for the snapshot helper (${message.slice(0, 200)})`,
        'wait for the animation or video to stop, or read the screen with a screenshot',
        { errorType },
      );
    throw snapshotHelperError('helper_error', `the snapshot helper failed: ${message.slice(0, 300)}`, RESTART_FIX, {
      errorType,
    });
  }
  return assembleChunks(parsed.statuses);
}

function assembleChunks(statuses: readonly StatusBundle[]): string {
  const chunks = statuses.filter(
    (s) =>
      s.agentDeviceProtocol === SNAPSHOT_STATUS_PROTOCOL &&
      s.outputFormat === 'uiautomator-xml' &&
      s.payloadBase64 !== undefined,
  );
  const bad = (what: string, details: Record<string, unknown> = {}): Error =>
    snapshotHelperError('malformed_output', `the snapshot helper's XML ${what}`, RESTART_FIX, details);
  if (chunks.length === 0) throw bad('never came (no chunks)');
  const count = Number(chunks[0]?.chunkCount ?? chunks.length);
  if (
    !Number.isInteger(count) ||
    count < 1 ||
    chunks.length !== count ||
    chunks.some((c) => Number(c.chunkCount) !== count)
  )
    throw bad(`came incomplete (${chunks.length} of ${String(count)} chunks)`, { expected: count, got: chunks.length });
  const parts = new Array<string | undefined>(count);
  for (const chunk of chunks) {
    const index = Number(chunk.chunkIndex);
    if (!Number.isInteger(index) || index < 0 || index >= count)
      throw bad(`had a chunk out of range (${String(chunk.chunkIndex)})`);
    if (parts[index] !== undefined) throw bad(`had chunk ${index} twice`);
    const payload = chunk.payloadBase64 ?? '';
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw bad(`had chunk ${index} that is not base64`);
    parts[index] = payload;
  }
  // Chunks split on a 4-character boundary (or each encoded on its own) decode one by one; any
  // other split only decodes as one string.
  const texts = parts as string[];
  const aligned = texts.slice(0, -1).every((p) => p.length % 4 === 0);
  const xml = (
    aligned ? Buffer.concat(texts.map((p) => Buffer.from(p, 'base64'))) : Buffer.from(texts.join(''), 'base64')
  ).toString('utf8');
  const start = xml.indexOf('<hierarchy');
  const end = xml.lastIndexOf('</hierarchy>');
  if (start < 0 || end < start) throw bad('held no complete <hierarchy>');
  return xml.slice(
    xml.lastIndexOf('<?xml', start) >= 0 ? xml.lastIndexOf('<?xml', start) : start,
    end + '</hierarchy>'.length,
  );
}

function excerptOf(text: string): string {
  const line = text.split('\n').find((l) => /Exception|Denial|Error/.test(l)) ?? text.split('\n')[0] ?? '';
  return line.trim() ? `: ${line.trim().slice(0, 200)}` : '';
}
