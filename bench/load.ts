/**
 * Part b: many phones at once. Each loaded phone gets `callersPerPhone` concurrent callers,
 * each alternating android_tap and android_device_status as fast as the answers come, for a
 * fixed time; every call is recorded with its phone, tool, latency and outcome.
 */
import { callTool, ToolCallError } from './env';
import { IDLE_TAP } from './latency';
import { now, summarize, type Summary } from './stats';
import type { WireClient } from './wire-client';

export interface LoadTarget {
  client: WireClient;
  /** Channel bound to phone i. */
  channels: readonly string[];
}

export interface CallRecord {
  phone: number;
  tool: 'android_tap' | 'android_device_status';
  ms: number;
  /** Finished before the run's time was up (only those count towards throughput). */
  inTime: boolean;
  error: string | undefined;
}

export interface LoadResult {
  phones: number;
  callers: number;
  durationMs: number;
  /** Until the last caller's last call came back. */
  elapsedMs: number;
  calls: CallRecord[];
}

export const LOAD_TOOLS = ['android_tap', 'android_device_status'] as const;

/**
 * Runs the load on the given phones until `durationMs` has passed; callers finish their last
 * call. `atDeadline` runs when the time is up (e.g. to cancel what a slow phone still holds).
 */
export async function runLoad(
  target: LoadTarget,
  phones: readonly number[],
  callersPerPhone: number,
  durationMs: number,
  atDeadline?: () => Promise<void>,
): Promise<LoadResult> {
  const calls: CallRecord[] = [];
  const t0 = now();
  const deadline = t0 + durationMs;
  let endHook: Promise<void> | undefined;
  const timer = setTimeout(() => {
    endHook = atDeadline?.();
  }, durationMs);
  const caller = async (phone: number, index: number): Promise<void> => {
    const channel = target.channels[phone];
    if (channel === undefined) throw new Error(`no channel for phone ${phone}`);
    for (let call = index; now() < deadline; call++) {
      const tool = LOAD_TOOLS[call % 2]!;
      const start = now();
      let error: string | undefined;
      try {
        await callTool(target.client, channel, tool, tool === 'android_tap' ? IDLE_TAP : {});
      } catch (e) {
        error = e instanceof ToolCallError ? e.code : e instanceof Error ? e.message : String(e);
      }
      const end = now();
      calls.push({ phone, tool, ms: end - start, inTime: end <= deadline, error });
    }
  };
  try {
    await Promise.all(phones.flatMap((phone) => Array.from({ length: callersPerPhone }, (_v, i) => caller(phone, i))));
  } finally {
    clearTimeout(timer);
    await endHook;
  }
  return { phones: phones.length, callers: callersPerPhone, durationMs, elapsedMs: now() - t0, calls };
}

export interface LoadFigures {
  callsPerSecond: number;
  errors: Record<string, number>;
  byTool: Record<string, Summary>;
}

/**
 * Throughput (successful calls that finished within the run's time, per second of it) and
 * per-tool latency of every successful call, optionally only for some phones.
 */
export function figures(result: LoadResult, include: (phone: number) => boolean = () => true): LoadFigures {
  const mine = result.calls.filter((c) => include(c.phone));
  const ok = mine.filter((c) => c.error === undefined);
  const errors: Record<string, number> = {};
  for (const c of mine) if (c.error !== undefined) errors[c.error] = (errors[c.error] ?? 0) + 1;
  const byTool: Record<string, Summary> = {};
  for (const tool of LOAD_TOOLS) byTool[tool] = summarize(ok.filter((c) => c.tool === tool).map((c) => c.ms));
  return { callsPerSecond: (ok.filter((c) => c.inTime).length / result.durationMs) * 1000, errors, byTool };
}
