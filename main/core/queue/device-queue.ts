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

class PhoneLane {
  readonly control: Array<Job<unknown>> = [];
  controlRunning: Job<unknown> | undefined;
  readonly observationWaiting: Array<Job<unknown>> = [];
  readonly observationRunning = new Set<Job<unknown>>();
}

export class DeviceQueue {
  private readonly lanes = new Map<string, PhoneLane>();
  private nextId = 1;
  private readonly limits: QueueLimits;

  constructor(limits: QueueLimits) {
    this.limits = { ...limits };
  }

  /** Changes the depth for the next enqueue on every phone. */
  setMaxDepth(maxDepth: number): void {
    if (!Number.isSafeInteger(maxDepth) || maxDepth <= 0) throw new TypeError(`queue depth must be a positive integer (got ${String(maxDepth)})`);
    this.limits.maxDepth = maxDepth;
  }

  /** Enqueues work for a phone; resolves with its result or rejects (canceled, queue_full, its own error). */
  submit<T>(deviceId: string, kind: JobKind, channelId: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const lane = this.lane(deviceId);
    const waiting = kind === 'control' ? lane.control.length + (lane.controlRunning ? 1 : 0) : lane.observationWaiting.length;
    if (waiting >= this.limits.maxDepth) {
      return Promise.reject(new BridgeError('queue_full', `the phone already has ${waiting} ${kind} actions waiting (limit ${this.limits.maxDepth})`));
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job<T> = { id: this.nextId++, kind, channelId, controller: new AbortController(), run, resolve, reject, started: false };
      if (kind === 'control') lane.control.push(job as Job<unknown>);
      else lane.observationWaiting.push(job as Job<unknown>);
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

  stats(deviceId: string): { running: number; queued: number } {
    const lane = this.lanes.get(deviceId);
    if (!lane) return { running: 0, queued: 0 };
    return {
      running: (lane.controlRunning ? 1 : 0) + lane.observationRunning.size,
      queued: lane.control.length + lane.observationWaiting.length,
    };
  }

  /** Control work running or waiting on a phone (the phone view's live frames wait for none of it). */
  controlLoad(deviceId: string): number {
    const lane = this.lanes.get(deviceId);
    return lane ? lane.control.length + (lane.controlRunning ? 1 : 0) : 0;
  }

  cancelAll(reason: string): void {
    for (const deviceId of this.lanes.keys()) this.cancelDevice(deviceId, reason);
  }

  private lane(deviceId: string): PhoneLane {
    let lane = this.lanes.get(deviceId);
    if (!lane) {
      lane = new PhoneLane();
      this.lanes.set(deviceId, lane);
    }
    return lane;
  }

  private cancelWhere(deviceId: string, match: (job: Job<unknown>) => boolean, reason: string, counted: (channelId: string) => boolean = () => true): number {
    const lane = this.lanes.get(deviceId);
    if (!lane) return 0;
    let count = 0;
    const error = (): BridgeError => new BridgeError('canceled', reason);
    for (const queue of [lane.control, lane.observationWaiting]) {
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
    const running = [lane.controlRunning, ...lane.observationRunning].filter((j): j is Job<unknown> => j !== undefined);
    for (const job of running) {
      if (match(job) && !job.controller.signal.aborted) {
        job.controller.abort(error());
        if (counted(job.channelId)) count += 1;
      }
    }
    return count;
  }

  private pump(deviceId: string): void {
    const lane = this.lanes.get(deviceId);
    if (!lane) return;
    if (!lane.controlRunning) {
      const next = lane.control.shift();
      if (next) {
        lane.controlRunning = next;
        this.execute(deviceId, lane, next);
      }
    }
    while (lane.observationRunning.size < this.limits.observationConcurrency) {
      const next = lane.observationWaiting.shift();
      if (!next) break;
      lane.observationRunning.add(next);
      this.execute(deviceId, lane, next);
    }
    if (!lane.controlRunning && lane.control.length === 0 && lane.observationRunning.size === 0 && lane.observationWaiting.length === 0) {
      this.lanes.delete(deviceId);
    }
  }

  private execute(deviceId: string, lane: PhoneLane, job: Job<unknown>): void {
    job.started = true;
    const signal = job.controller.signal;
    const canceled = new Promise<never>((_, reject) => {
      const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new BridgeError('canceled', 'canceled'));
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
        if (job.kind === 'control') lane.controlRunning = undefined;
        else lane.observationRunning.delete(job);
        this.pump(deviceId);
      });
  }
}
