/**
 * The ScreenSource of each phone, made when a phone is first pictured and let go when it is
 * forgotten. Every user of a picture of the screen asks here for its phone's source; the
 * sources share the one (stateless) encoder and nothing else.
 */
import { ScreenEncoder } from './screen-encoder';
import { ScreenSource, type ScreenSourceDeps } from './screen-source';

export class ScreenSources {
  private readonly sources = new Map<string, ScreenSource>();
  private readonly deps: ScreenSourceDeps;

  /** Without a stream or helper, every picture is a `screencap` (tests of one room alone). */
  constructor(deps: Partial<ScreenSourceDeps> = {}) {
    this.deps = { ...deps, encoder: deps.encoder ?? new ScreenEncoder() };
  }

  /** The one encoder every source uses (the timeline shrinks its pictures with it too). */
  get encoder(): ScreenEncoder {
    return this.deps.encoder;
  }

  of(deviceId: string): ScreenSource {
    let source = this.sources.get(deviceId);
    if (!source) {
      source = new ScreenSource(deviceId, this.deps);
      this.sources.set(deviceId, source);
    }
    return source;
  }

  /** The phone is gone: what its source learned (screencap timings) goes with it. */
  forget(deviceId: string): void {
    this.sources.delete(deviceId);
  }

  /** How many phones have a source (for the memory-bound tests). */
  get size(): number {
    return this.sources.size;
  }

  stop(): void {
    this.sources.clear();
  }
}
