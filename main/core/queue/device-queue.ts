/**
 * DeviceQueue: the per-phone execution order. Control work runs one at a time, strictly
 * FIFO across every channel that reaches the phone, with a bounded depth (`queue_full`; a
 * new depth applies from the next enqueue, work already waiting stays).
 * Observation work runs concurrently up to a small limit. Queued and running work can be
 * canceled per phone, per channel or per job; a canceled job's AbortSignal fires at once.
 */
import { BridgeError } from '../errors';

export type JobKind = 'control' | 'observation';

interface Job<T> {
  id: number;
  kind: JobKind;
  channelId: string;
  controller: AbortController;
  run: (signal: AbortSignal) => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  started: boolean;
}

export interface QueueLimits {
  maxDepth: number;
  observationConcurrency: number;
}

class PhoneLine {
  readonly control: Array<Job<unknown>> = [];
  controlRunning: Job<unknown> | undefined;
  readonly observationWaiting: Array<Job<unknown>> = [];
  readonly observationRunning = new Set<Job<unknown>>();
}

export class DeviceQueue {
  private readonly lines = new Map<string, PhoneLine>();
  private nextId = 1;
  private readonly limits: QueueLimits;
  /** When control work last ended on each phone (performance.now(); one number per phone ever seen). */
  private readonly controlEnded = new Map<string, number>();
  private readonly controlEndListeners = new Set<(deviceId: string) => void>();

  constructor(limits: QueueLimits) {
    this.limits = { ...limits };
  }

  /** Changes the depth for the next enqueue on every phone. */
  setMaxDepth(maxDepth: number): void {
    if (!Number.isSafeInteger(maxDepth) || maxDepth <= 0)
      throw new TypeError(`queue depth must be a positive integer (got ${String(maxDepth)})`);
    this.limits.maxDepth = maxDepth;
  }

  /**
   * Enqueues work for a phone; resolves with its result or rejects (canceled, queue_full, its
   * own error). `controller`: the work's own cancel, made before it was queued (a tool call's
   * signal is this one from the edge to its audit line); the queue aborts it on a cancel.
   */
  submit<T>(
    deviceId: string,
    kind: JobKind,
    channelId: string,
    run: (signal: AbortSignal) => Promise<T>,
    controller = new AbortController(),
  ): Promise<T> {
    const line = this.line(deviceId);
    const waiting =
      kind === 'control' ? line.control.length + (line.controlRunning ? 1 : 0) : line.observationWaiting.length;
    if (waiting >= this.limits.maxDepth) {
      return Promise.reject(
        new BridgeError(
          'queue_full',
          `the phone already has ${waiting} ${kind} actions waiting (limit ${this.limits.maxDepth})`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job<T> = { id: this.nextId++, kind, channelId, controller, run, resolve, reject, started: false };
      if (kind === 'control') line.control.push(job as Job<unknown>);
      else line.observationWaiting.push(job as Job<unknown>);
      this.pump(deviceId);
    });
  }

  /**
   * Cancels queued and running work on a phone (the stop button). Returns how many jobs, or
   * how many of them `counted` names by channel (the stop button counts the agent's own).
   */
  cancelDevice(deviceId: string, reason: string, counted: (channelId: string) => boolean = () => true): number {
    return this.cancelWhere(deviceId, () => true, reason, counted);
  }

  /** Cancels one channel's work on a phone (lease ended, channel unregistered). */
  cancelChannel(deviceId: string, channelId: string, reason: string): number {
    return this.cancelWhere(deviceId, (job) => job.channelId === channelId, reason);
  }

  /** Jobs running and waiting on a phone; `counted` picks whose by channel (default: everyone's). */
  stats(deviceId: string, counted: (channelId: string) => boolean = () => true): { running: number; queued: number } {
    const line = this.lines.get(deviceId);
    if (!line) return { running: 0, queued: 0 };
    const count = (jobs: Iterable<Job<unknown>>): number => {
      let n = 0;
      for (const job of jobs) if (counted(job.channelId)) n += 1;
      return n;
    };
    return {
      running: count(line.controlRunning ? [line.controlRunning] : []) + count(line.observationRunning),
      queued: count(line.control) + count(line.observationWaiting),
    };
  }

  /** Control work running or waiting on a phone (the phone view's live frames wait for none of it). */
  controlLoad(deviceId: string): number {
    const line = this.lines.get(deviceId);
    return line ? line.control.length + (line.controlRunning ? 1 : 0) : 0;
  }

  /**
   * When control work last ended on a phone (performance.now()), or undefined when none has: a
   * picture of the screen taken before this may show it as it was before the action.
   */
  lastControlEndedAt(deviceId: string): number | undefined {
    return this.controlEnded.get(deviceId);
  }

  /** Calls `listener` each time control work on any phone ends; returns the unsubscribe. */
  onControlEnded(listener: (deviceId: string) => void): () => void {
    this.controlEndListeners.add(listener);
    return () => this.controlEndListeners.delete(listener);
  }

  cancelAll(reason: string): void {
    for (const deviceId of this.lines.keys()) this.cancelDevice(deviceId, reason);
  }

  private line(deviceId: string): PhoneLine {
    let line = this.lines.get(deviceId);
    if (!line) {
      line = new PhoneLine();
      this.lines.set(deviceId, line);
    }
    return line;
  }

  private cancelWhere(
    deviceId: string,
    match: (job: Job<unknown>) => boolean,
    reason: string,
    counted: (channelId: string) => boolean = () => true,
  ): number {
    const line = this.lines.get(deviceId);
    if (!line) return 0;
    let count = 0;
    // One error for every job it ends (its stack is built once, not twice per job).
    let made: BridgeError | undefined;
    const error = (): BridgeError => (made ??= new BridgeError('canceled', reason));
    for (const queue of [line.control, line.observationWaiting]) {
      for (let i = queue.length - 1; i >= 0; i -= 1) {
        const job = queue[i];
        if (job && match(job)) {
          queue.splice(i, 1);
          job.controller.abort(error());
          job.reject(error());
          if (counted(job.channelId)) count += 1;
        }
      }
    }
    const running = [line.controlRunning, ...line.observationRunning].filter((j): j is Job<unknown> => j !== undefined);
    for (const job of running) {
      if (match(job) && !job.controller.signal.aborted) {
        job.controller.abort(error());
        if (counted(job.channelId)) count += 1;
      }
    }
    return count;
  }

  private pump(deviceId: string): void {
    const line = this.lines.get(deviceId);
    if (!line) return;
    if (!line.controlRunning) {
      const next = line.control.shift();
      if (next) {
        line.controlRunning = next;
        this.execute(deviceId, line, next);
      }
    }
    while (line.observationRunning.size < this.limits.observationConcurrency) {
      const next = line.observationWaiting.shift();
      if (!next) break;
      line.observationRunning.add(next);
      this.execute(deviceId, line, next);
    }
    if (
      !line.controlRunning &&
      line.control.length === 0 &&
      line.observationRunning.size === 0 &&
      line.observationWaiting.length === 0
    ) {
      this.lines.delete(deviceId);
    }
  }

  private execute(deviceId: string, line: PhoneLine, job: Job<unknown>): void {
    job.started = true;
    const signal = job.controller.signal;
    const canceled = new Promise<never>((_, reject) => {
      const onAbort = (): void =>
        reject(signal.reason instanceof Error ? signal.reason : new BridgeError('canceled', 'canceled'));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    canceled.catch(() => undefined);
    const work = Promise.resolve().then(() => job.run(signal));
    // The slot is freed only when the work itself settles, so a canceled command cannot
    // overlap the next one; the caller hears about the cancel at once.
    Promise.race([work, canceled]).then(job.resolve, job.reject);
    work
      .catch(() => undefined)
      .finally(() => {
        if (job.kind === 'control') {
          line.controlRunning = undefined;
          this.controlEnded.set(deviceId, performance.now());
          for (const listener of [...this.controlEndListeners]) {
            try {
              listener(deviceId);
            } catch {
              // A listener's failure is its own; the queue goes on.
            }
          }
        } else line.observationRunning.delete(job);
        this.pump(deviceId);
      });
  }
}
