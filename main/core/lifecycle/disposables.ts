/**
 * What a composition root started, released in reverse (vscode's DisposableStore in
 * `src/vs/base/common/lifecycle.ts`, made async). Whatever is added after something else
 * is released before it, so a stop order follows from the start order instead of a list
 * kept by hand. One failing release is reported and the rest still run; releasing twice
 * releases once.
 */

/** Something that holds a socket, timer, child process or listener until it is disposed. */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/** A stop function counts as a Disposable (most of our services have `stop()`, not `dispose()`). */
export type DisposableLike = Disposable | (() => void | Promise<void>);

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

export class DisposableStore implements Disposable {
  private readonly items: DisposableLike[] = [];
  private disposing: Promise<void> | undefined;

  /** `onError` hears each release that threw or rejected; the store goes on with the next one. */
  constructor(private readonly onError: (error: unknown) => void) {}

  get isDisposed(): boolean {
    return this.disposing !== undefined;
  }

  /** Keeps `item` to release at dispose(); returns it. Added after dispose() began, it is released at once. */
  add<T extends DisposableLike>(item: T): T {
    if (this.disposing) {
      void this.release(item);
      return item;
    }
    this.items.push(item);
    return item;
  }

  /**
   * Releases everything, last added first, each async release awaited before the next
   * begins. Synchronous ones run back to back in the same tick. A second call returns the
   * same promise: it resolves when the first release is done.
   */
  dispose(): Promise<void> {
    this.disposing ??= this.releaseAll();
    return this.disposing;
  }

  private async releaseAll(): Promise<void> {
    for (let item = this.items.pop(); item !== undefined; item = this.items.pop()) {
      const pending = this.release(item);
      if (pending) await pending;
    }
  }

  /** Runs one release; a promise only when it is asynchronous. Never throws or rejects. */
  private release(item: DisposableLike): Promise<void> | undefined {
    let result: unknown;
    try {
      result = typeof item === 'function' ? item() : item.dispose();
    } catch (error) {
      this.onError(error);
      return undefined;
    }
    if (!isThenable(result)) return undefined;
    return Promise.resolve(result).then(
      () => undefined,
      (error: unknown) => this.onError(error),
    );
  }
}

/** The part of Node's EventEmitter (and of our typed emitters) that `listen` needs. */
interface ListenerTarget<Listener> {
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
}

/** Adds `listener` and returns the stop that removes it, so whoever adds a listener also owns its removal. */
export function listen<Listener>(target: ListenerTarget<Listener>, event: string, listener: Listener): () => void {
  target.on(event, listener);
  return () => {
    target.off(event, listener);
  };
}

/** Keeps the stop of `room` (what a room's wire.ts returns) in `store`, and returns the room. */
export function kept<Room extends { stop(): void | Promise<void> }>(store: DisposableStore, room: Room): Room {
  store.add(() => room.stop());
  return room;
}
