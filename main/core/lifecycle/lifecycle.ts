/**
 * A service's start and stop as one state field, 'new' → 'starting' → 'running' →
 * 'stopping' → 'stopped' (as ws's WebSocketServer keeps RUNNING/CLOSING/CLOSED), with the
 * DisposableStore its start fills. Start runs once; stop is idempotent, works before start
 * and after a failed start, and waits for a start under way so nothing it starts is missed.
 */
import { DisposableStore } from './disposables';

export type LifecycleState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Lifecycle {
  /** What the service holds; stop() releases it, last added first. */
  readonly owned: DisposableStore;
  private current: LifecycleState = 'new';
  private starting: Promise<unknown> | undefined;
  private stopping: Promise<void> | undefined;

  /** `name` begins the refusal of a second start ("core already started"); `onError` hears each release that failed. */
  constructor(
    private readonly name: string,
    onError: (error: unknown) => void,
  ) {
    this.owned = new DisposableStore(onError);
  }

  get state(): LifecycleState {
    return this.current;
  }

  /**
   * Runs `run` (which adds each stop to `owned` as it starts things). Throws when started
   * before or stopped. A start that fails stays 'starting': stop() releases what it started.
   */
  async start<T>(run: () => Promise<T>): Promise<T> {
    if (this.current !== 'new')
      throw new Error(
        `${this.name} already ${this.current === 'starting' || this.current === 'running' ? 'started' : 'stopped'}`,
      );
    this.current = 'starting';
    const started = run();
    this.starting = started;
    const result = await started;
    if (this.current === 'starting') this.current = 'running';
    return result;
  }

  /** Releases everything `owned` holds, once; every call resolves when that is done. */
  stop(): Promise<void> {
    this.stopping ??= this.release();
    return this.stopping;
  }

  private async release(): Promise<void> {
    // A start under way ends first (done or failed): then all it started is in `owned`.
    if (this.current === 'starting') await this.starting?.catch(() => undefined);
    this.current = 'stopping';
    await this.owned.dispose();
    this.current = 'stopped';
  }
}
