/**
 * The simulated phone's clock and its waits. In real time a wait is a timer. With virtual
 * time (tests of long recordings) a wait takes no wall time: when the event loop has nothing
 * else to do, the clock jumps to the earliest pending wait's end and wakes it, then the next,
 * in order, so `screenrecord --time-limit 180 & sleep 178` behaves as on a phone (the sleep
 * ends two seconds before the recording does) in a few milliseconds. The clock still moves
 * with the wall clock in between, so log times keep their order.
 */
import { sleepUnlessAborted } from './timing-profiles';

interface PendingWait {
  at: number;
  resolve: (done: boolean) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

export class PhoneClock {
  private offset = 0;
  private readonly pending: PendingWait[] = [];
  private scheduled = false;

  /**
   * `wall`: the wall clock (ms since epoch); `virtual`: waits jump the clock instead of taking
   * wall time.
   */
  constructor(
    private readonly wall: () => number,
    private readonly virtual: boolean,
  ) {}

  now(): number {
    return this.wall() + this.offset;
  }

  /** Waits `ms` of phone time; resolves true when it passed, false when `signal` aborted first. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.virtual) return sleepUnlessAborted(ms, signal);
    if (signal.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wait: PendingWait = {
        at: this.now() + ms,
        resolve,
        signal,
        onAbort: () => {
          const i = this.pending.indexOf(wait);
          if (i >= 0) this.pending.splice(i, 1);
          resolve(false);
        },
      };
      signal.addEventListener('abort', wait.onAbort, { once: true });
      this.pending.push(wait);
      this.schedule();
    });
  }

  /**
   * After the current turn of the event loop (everything the last wake-up started has
   * registered its own waits by then, the sim's commands being in-memory), jump to the
   * earliest wait and wake every wait due.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.pending.length === 0) return;
      const earliest = Math.min(...this.pending.map((w) => w.at));
      if (earliest > this.now()) this.offset += earliest - this.now();
      const now = this.now();
      const due = this.pending.filter((w) => w.at <= now).sort((a, b) => a.at - b.at);
      for (const wait of due) {
        this.pending.splice(this.pending.indexOf(wait), 1);
        wait.signal.removeEventListener('abort', wait.onAbort);
        wait.resolve(true);
      }
      if (this.pending.length > 0) this.schedule();
    });
  }
}
