/**
 * Part c: resident memory, read from /proc/PID/status (VmRSS, and VmHWM for the peak), for
 * the bridge's own process, and for the bench process (simulated phones) and the adb server
 * to show where the rest of the machine's memory went. Linux only; elsewhere it says so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { waitUntil } from './env';

export interface Rss {
  rssKiB: number;
  peakKiB: number;
}

export function readRss(pid: number): Rss | undefined {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

export function mib(kib: number): string {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : '–';
}

/** Samples a process's RSS every `intervalMs` until stopped; reports the highest seen. */
export class RssSampler {
  private max = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  private sample(): void {
    const rss = readRss(this.pid);
    if (rss && rss.rssKiB > this.max) this.max = rss.rssKiB;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.max;
  }
}

/** User + system CPU seconds a process has used so far (/proc/PID/stat), for CPU shares during a run. */
export function readCpuSeconds(pid: number): number {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return Number.NaN;
  const text = readFileSync(path, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

export interface AfterGc {
  rssKiB: number;
  heapUsedKiB: number;
  externalKiB: number;
}

/**
 * Asks the bridge process to collect garbage (SIGUSR2 to bench/bridge-probe.mjs), then reads
 * its RSS and the heap figures it wrote. Undefined when the probe does not answer.
 */
export async function readAfterGc(pid: number, probeFile: string): Promise<AfterGc | undefined> {
  const asked = Date.now();
  const answer = (): { heapUsed: number; external: number; at: number } | undefined => {
    try {
      const parsed = JSON.parse(readFileSync(probeFile, 'utf8')) as { heapUsed: number; external: number; at: number };
      return parsed.at >= asked ? parsed : undefined;
    } catch {
      return undefined;
    }
  };
  try {
    process.kill(pid, 'SIGUSR2');
    await waitUntil(() => answer() !== undefined, 5_000, 'the bridge memory probe');
  } catch {
    return undefined;
  }
  const figures = answer();
  const rss = readRss(pid);
  if (!figures || !rss) return undefined;
  return { rssKiB: rss.rssKiB, heapUsedKiB: figures.heapUsed / 1024, externalKiB: figures.external / 1024 };
}
