/**
 * Coalesces bursts of "something changed" into few refetches: at most one run in flight,
 * runs start at least `minIntervalMs` apart, and a trigger during a run causes exactly one
 * more run afterwards. So a flapping phone costs the UI ≤ 1000/minIntervalMs fetches a
 * second, and no change is ever missed. DOM-free; the clock is injectable for tests.
 */

export interface SchedulerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class RefetchScheduler {
  private running = false;
  private dirty = false;
  private timer: unknown;
  private lastStart = Number.NEGATIVE_INFINITY;
  private disposed = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly minIntervalMs = 250,
    private readonly clock: SchedulerClock = realClock,
  ) {}

  /** Asks for a refetch soon; cheap to call on every event. */
  trigger(): void {
    if (this.disposed) return;
    this.dirty = true;
    this.pump();
  }

  /** Whether a run is in flight or scheduled. */
  get busy(): boolean {
    return this.running || this.timer !== undefined;
  }

  /** Cancels any pending run; idempotent. A run in flight finishes but triggers nothing. */
  dispose(): void {
    this.disposed = true;
    this.dirty = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    if (this.disposed || this.running || this.timer !== undefined || !this.dirty) return;
    const wait = this.lastStart + this.minIntervalMs - this.clock.now();
    if (wait > 0) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.dirty = false;
    this.running = true;
    this.lastStart = this.clock.now();
    let settled: Promise<void>;
    try {
      settled = this.run();
    } catch {
      settled = Promise.resolve();
    }
    settled
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        this.pump();
      })
      .catch(() => undefined);
  }
}
