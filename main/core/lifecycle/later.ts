/**
 * A service the composition root makes further down, named where a service made earlier
 * reads it. A few services ask each other questions both ways (the bindings ask the tools
 * for a channel's last call, the tools ask the bindings for its lease; the screen stream asks
 * the live view whether anyone watches, the live view asks the stream for its frame); facts
 * go through events/bridge-events.ts, but a question needs an answer. Each such read goes
 * through a `Later`, so the cycle is written down once, and a read before the bridge is
 * assembled fails with the service's name instead of `undefined is not an object`.
 */
export class Later<T> {
  private value: T | undefined;

  constructor(private readonly name: string) {}

  /** Keeps `value` (once) and returns it. */
  set(value: T): T {
    if (this.value !== undefined) throw new Error(`${this.name} was made twice`);
    this.value = value;
    return value;
  }

  /** The service; throws when read before the composition root made it. */
  get(): T {
    if (this.value === undefined) throw new Error(`${this.name} was read before the bridge made it`);
    return this.value;
  }
}
