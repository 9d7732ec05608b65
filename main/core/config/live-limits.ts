/**
 * LiveLimits: the current value of every limit a person may change while the bridge runs
 * (main/contract/limits.ts), where each came from, and the one place that changes them.
 *
 * At start a limit comes from, in order: a start option (`serve` flag, env variable or a
 * core option given by the embedding code), the value saved in state.json by an earlier
 * change, the built-in default. A change (admin API, Settings, IPC) takes effect at once and
 * is saved; a limit set by a start option is set by it again at the next start. Services
 * read the live value where they decide (`get`) and hear about changes (`changed`).
 */
import { EventEmitter } from 'node:events';
import {
  LIMIT_KEYS,
  defaultLimitValues,
  isLimitKey,
  limitValueProblem,
  type LimitKey,
  type LimitValues,
} from '../../contract/limits';
import type { AdminLimitSource } from '../../contract/admin-api';
import type { StateStore } from '../store/state-store';
import type { BridgeEventSink } from '../events/bridge-events';

export interface LiveLimitsOptions {
  store: StateStore;
  /** Limits given at start; they win over saved values. */
  start: Partial<LimitValues>;
  /** What set each start limit, for the UI ("--approval-timeout", "DEVICE_BRIDGE_…", "approvalTimeoutMs"). */
  startNames: Partial<Record<LimitKey, string>>;
  /** Problems with saved values (shown in the UI's warnings). */
  warn: (message: string) => void;
  /** Hears `limitsChanged` after this object's own listeners (events/bridge-events.ts). */
  events?: BridgeEventSink;
}

export interface LiveLimitsEvents {
  /** Limits that changed, with their new values. */
  changed: [Partial<LimitValues>];
}

export class LiveLimits extends EventEmitter<LiveLimitsEvents> {
  private readonly current: LimitValues;
  private readonly from = new Map<LimitKey, AdminLimitSource['from']>();

  constructor(private readonly o: LiveLimitsOptions) {
    super();
    const saved = this.readSaved();
    const values: Record<LimitKey, number | null> = { ...defaultLimitValues() };
    for (const key of LIMIT_KEYS) {
      const start = o.start[key];
      if (start !== undefined) {
        values[key] = start;
        this.from.set(key, 'start');
      } else if (key in saved) {
        values[key] = saved[key] ?? null;
        this.from.set(key, 'saved');
      } else {
        this.from.set(key, 'default');
      }
    }
    this.current = values as unknown as LimitValues;
  }

  get<K extends LimitKey>(key: K): LimitValues[K] {
    return this.current[key];
  }

  values(): LimitValues {
    return { ...this.current };
  }

  sources(): Record<LimitKey, AdminLimitSource> {
    const out = {} as Record<LimitKey, AdminLimitSource>;
    for (const key of LIMIT_KEYS)
      out[key] = { from: this.from.get(key) ?? 'default', start_option: this.o.startNames[key] ?? null };
    return out;
  }

  /**
   * Applies and saves already checked values (the admin API checks them with checkLimitsPatch).
   * Listeners hear only the limits whose value changed.
   */
  update(patch: Partial<LimitValues>): void {
    const changed: Partial<Record<LimitKey, number | null>> = {};
    const target = this.current as unknown as Record<LimitKey, number | null>;
    for (const key of LIMIT_KEYS) {
      const value = patch[key];
      if (value === undefined) continue;
      this.from.set(key, 'saved');
      if (target[key] !== value) changed[key] = value;
      target[key] = value;
    }
    this.o.store.update((state) => {
      state.settings.limits = { ...state.settings.limits, ...patch };
    });
    if (Object.keys(changed).length === 0) return;
    this.emit('changed', changed as Partial<LimitValues>);
    this.o.events?.emit('limitsChanged', { changed: changed as Partial<LimitValues> });
  }

  /** Saved values that are still valid; the others are reported and ignored. */
  private readSaved(): Partial<Record<LimitKey, number | null>> {
    const raw = this.o.store.get().settings.limits;
    const out: Partial<Record<LimitKey, number | null>> = {};
    for (const [key, value] of Object.entries(raw)) {
      if (!isLimitKey(key)) {
        this.o.warn(`Saved limit "${key.slice(0, 60)}" is not one this bridge knows; it is ignored.`);
        continue;
      }
      const problem = limitValueProblem(key, value, `Saved limit ${key}`);
      if (problem) {
        this.o.warn(
          `${problem.slice(0, 240)}; the bridge uses ${this.o.start[key] !== undefined ? 'its start option' : 'the default'} instead.`,
        );
        continue;
      }
      out[key] = value as number | null;
    }
    return out;
  }
}
