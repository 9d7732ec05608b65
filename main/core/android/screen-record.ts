/**
 * Screen recordings: `screenrecord` into uniquely named files on the phone, pulled back over
 * sync and always removed afterwards, even when recording or pulling failed.
 *
 * Past `screenrecord`'s 180 s limit (callstack/agent-device#615) the recording is a row of
 * chunks of at most 180 s, run by one shell on the phone: each chunk starts in the background
 * OVERLAP_SECONDS before the previous one is due to end (`screenrecord … & sleep N`), so there
 * is no gap, not even the next encoder's start-up, and no adb round trip between them. The
 * phone's `/proc/uptime` before each start stamps where each chunk begins; chunks are listed
 * in order with their start and how much each overlaps the next (trim it when joining).
 *
 * A still screen sends no frames and its clip ends at the last one (agent-device#2551): each
 * chunk's last frame is held until its recording really ended (mp4-hold.ts).
 */
import { randomBytes } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import { holdLastFrame, mp4Timing } from './mp4-hold';
import type { OperationOptions } from '../devices/shell-quote';

export interface RecordScreenOptions extends OperationOptions {
  /** Length of the recording, 1..MAX_RECORD_SECONDS s. */
  seconds: number;
  /** Output size; the phone's encoder may refuse sizes it cannot handle. */
  size?: { width: number; height: number };
  /** Bits per second, 100 000..100 000 000 (screenrecord's default is 20 Mbps). */
  bitRate?: number;
}

export const MAX_RECORD_SECONDS = 600;
/** `screenrecord`'s own limit (AOSP screenrecord.cpp kMaxTimeLimitSec before Android 14). */
export const CHUNK_SECONDS = 180;
/** How long a chunk overlaps the next: more than a `screenrecord` takes to start encoding. */
export const OVERLAP_SECONDS = 2;
/** Encoder start-up and file finalisation on top of the recording itself. */
const RECORD_MARGIN_MS = 15_000;
/** Pulling a 30 s clip at 20 Mbps (~75 MB) over USB or Wi-Fi; per chunk. */
const PULL_BUDGET_MS = 60_000;
/** Bits per second of chunked recordings: 180 s at screenrecord's 20 Mbps default would be 450 MB. */
const CHUNKED_BIT_RATE = 4_000_000;
const CLEANUP_TIMEOUT_MS = 5_000;

function validate(options: RecordScreenOptions): void {
  const { seconds, size, bitRate } = options;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_RECORD_SECONDS) {
    throw new BridgeError(
      'invalid_arguments',
      `seconds must be an integer from 1 to ${MAX_RECORD_SECONDS}, got ${String(seconds)}`,
    );
  }
  if (size !== undefined) {
    for (const value of [size.width, size.height]) {
      if (!Number.isSafeInteger(value) || value < 16 || value > 4096) {
        throw new BridgeError(
          'invalid_arguments',
          `size must be two integers from 16 to 4096, got ${String(size.width)}x${String(size.height)}`,
        );
      }
    }
  }
  if (bitRate !== undefined && (!Number.isSafeInteger(bitRate) || bitRate < 100_000 || bitRate > 100_000_000)) {
    throw new BridgeError(
      'invalid_arguments',
      `bitRate must be an integer from 100000 to 100000000, got ${String(bitRate)}`,
    );
  }
}

/** The argv that records into remotePath. */
export function screenRecordArgv(options: RecordScreenOptions, remotePath: string): string[] {
  validate(options);
  return [
    'screenrecord',
    '--time-limit',
    String(options.seconds),
    ...(options.size ? ['--size', `${options.size.width}x${options.size.height}`] : []),
    ...(options.bitRate !== undefined ? ['--bit-rate', String(options.bitRate)] : []),
    remotePath,
  ];
}

/** True when the buffer starts like an MP4: a box whose type is `ftyp`. */
export function looksLikeMp4(data: Buffer): boolean {
  return data.length >= 12 && data.toString('latin1', 4, 8) === 'ftyp';
}

/** One chunk of a recording: its MP4 (last frame held), where it began and its length. */
export interface RecordedChunk {
  data: Buffer;
  /** Milliseconds after the first chunk began (the phone's uptime). */
  startMs: number;
  /** Its length, as its time limit says (and its clip lasts after the hold). */
  seconds: number;
  /** Milliseconds it overlaps the next chunk (0 for the last). */
  overlapMs: number;
  /** Frames the phone encoded (a still screen gives few). */
  frames: number;
}

/** The chunks' lengths: 180 s each, the next beginning OVERLAP_SECONDS before the previous ends. */
export function chunkPlan(seconds: number): number[] {
  const out: number[] = [];
  let covered = 0;
  while (covered < seconds) {
    const start = out.length === 0 ? 0 : covered - OVERLAP_SECONDS;
    const length = Math.min(CHUNK_SECONDS, seconds - start);
    out.push(length);
    covered = start + length;
  }
  return out;
}

/** The phone's uptime in ms from a `/proc/uptime` line. */
function uptimeMs(line: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s/.exec(line.trim() + ' ');
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

/** Records the screen for `seconds` (in chunks past 180 s) and returns the chunks in order. */
export async function recordScreenChunks(shell: DeviceShell, options: RecordScreenOptions): Promise<RecordedChunk[]> {
  validate(options);
  const plan = chunkPlan(options.seconds);
  const chunked = plan.length > 1;
  const tag = randomBytes(6).toString('hex');
  const paths = plan.map((_s, i) => `/sdcard/xagent-rec-${tag}-${i + 1}.mp4`);
  const deadline = new OperationDeadline(
    options,
    options.seconds * 1000 + RECORD_MARGIN_MS + PULL_BUDGET_MS * plan.length,
    'recording the screen',
  );
  const script: string[] = [];
  for (const [i, length] of plan.entries()) {
    const argv = screenRecordArgv(
      {
        ...options,
        seconds: length,
        ...(chunked && options.bitRate === undefined ? { bitRate: CHUNKED_BIT_RATE } : {}),
      },
      paths[i]!,
    );
    // Inside the script the phone's shell wrapper cannot see `screenrecord`: aim it here (the panel in use).
    const aimed = shell.aim ? await shell.aim(argv, deadline.next()) : argv;
    script.push('cat /proc/uptime', `${buildCommandLine(aimed)} &`);
    if (i < plan.length - 1) script.push(`sleep ${length - OVERLAP_SECONDS}`);
  }
  script.push('wait');
  try {
    const recordBudget = Math.min(deadline.next().timeoutMs, options.seconds * 1000 + RECORD_MARGIN_MS);
    // One shell runs the row: `&`, `sleep` and `wait` are the phone's sh (mksh), quoted as one argument.
    const recorded = await runText(shell, ['sh', '-c', script.join('; ').replace(/&;/g, '&')], {
      ...deadline.next(),
      timeoutMs: recordBudget,
    });
    if (/^ERROR|Unable to/im.test(recorded.text) || (recorded.exitCode !== undefined && recorded.exitCode !== 0)) {
      throw new BridgeError('command_failed', `screenrecord failed${excerpt(recorded.text)}`, {
        exitCode: recorded.exitCode,
      });
    }
    const stamps = recorded.text
      .split('\n')
      .map(uptimeMs)
      .filter((v): v is number => v !== undefined);
    const chunks: RecordedChunk[] = [];
    for (let i = 0; i < plan.length; i++) {
      const data = await shell.pull(paths[i]!, deadline.next());
      if (!looksLikeMp4(data)) {
        throw new BridgeError('command_failed', `screenrecord produced no usable MP4 (${data.length} bytes)`);
      }
      const length = plan[i]!;
      const held = holdLastFrame(data, length * 1000);
      const startMs = stamps[i] !== undefined && stamps[0] !== undefined ? stamps[i]! - stamps[0] : 0;
      const nextStart = stamps[i + 1] !== undefined && stamps[0] !== undefined ? stamps[i + 1]! - stamps[0] : undefined;
      chunks.push({
        data: held,
        startMs,
        seconds: length,
        overlapMs: nextStart === undefined ? 0 : startMs + length * 1000 - nextStart,
        frames: mp4Timing(data)?.samples ?? 0,
      });
    }
    return chunks;
  } finally {
    // The clips may show private content; they must not stay on the phone.
    await runText(shell, ['rm', '-f', ...paths], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(() => undefined);
  }
}
