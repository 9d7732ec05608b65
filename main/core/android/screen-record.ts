/**
 * Short screen recordings: `screenrecord` into a uniquely named file on the phone, pulled
 * back over sync and always removed afterwards, even when recording or pulling failed.
 */
import { randomBytes } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

export interface RecordScreenOptions extends OperationOptions {
  /** Length of the recording, 1..30 s. */
  seconds: number;
  /** Output size; the phone's encoder may refuse sizes it cannot handle. */
  size?: { width: number; height: number };
  /** Bits per second, 100 000..100 000 000 (screenrecord's default is 20 Mbps). */
  bitRate?: number;
}

export const MAX_RECORD_SECONDS = 30;
/** Encoder start-up and file finalisation on top of the recording itself. */
const RECORD_MARGIN_MS = 15_000;
/** Pulling a 30 s clip at 20 Mbps (~75 MB) over USB or Wi-Fi. */
const PULL_BUDGET_MS = 60_000;
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

/** Records the screen for `seconds` and returns the MP4. */
export async function recordScreen(shell: DeviceShell, options: RecordScreenOptions): Promise<Buffer> {
  const remotePath = `/sdcard/xagent-rec-${randomBytes(6).toString('hex')}.mp4`;
  const argv = screenRecordArgv(options, remotePath);
  const deadline = new OperationDeadline(
    options,
    options.seconds * 1000 + RECORD_MARGIN_MS + PULL_BUDGET_MS,
    'recording the screen',
  );
  try {
    const recordBudget = Math.min(deadline.next().timeoutMs, options.seconds * 1000 + RECORD_MARGIN_MS);
    const recorded = await runText(shell, argv, { ...deadline.next(), timeoutMs: recordBudget });
    if (/^ERROR|Unable to/im.test(recorded.text) || (recorded.exitCode !== undefined && recorded.exitCode !== 0)) {
      throw new BridgeError('command_failed', `screenrecord failed${excerpt(recorded.text)}`, {
        exitCode: recorded.exitCode,
      });
    }
    const data = await shell.pull(remotePath, deadline.next());
    if (!looksLikeMp4(data)) {
      throw new BridgeError('command_failed', `screenrecord produced no usable MP4 (${data.length} bytes)`);
    }
    return data;
  } finally {
    // The clip may show private content; it must not stay on the phone.
    await runText(shell, ['rm', '-f', remotePath], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(
      () => undefined,
    );
  }
}
