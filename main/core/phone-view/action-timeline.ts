/**
 * The phone view's timeline: per phone, the agent's recent calls (tool, arguments redacted as
 * the audit trail keeps them, state, outcome, duration, lane), the points where taps, long
 * presses and swipes landed, and a small picture of the screen each pointing action
 * was made on. A ring of CAPACITY calls per phone (and at most MAX_PHONES phones), so a view
 * left open for hours keeps memory flat: a call that falls off the ring takes its picture with it.
 *
 * The picture is taken only while someone watches the phone (live frames asked for within
 * the last minute): a frame already taken after the previous action ended is reused, else
 * one is taken inside the agent's queue slot just before the action (the phone's
 * ScreenSource: the stream's frame since the last action, else one `screencap`;
 * screen/freshness.ts). When nobody watches, the timeline costs the agent nothing.
 *
 * The person's own input while they hold the phone (take over) joins the same ring as
 * `by: 'person'` entries (recordPerson), and so do the take over and the hand-back themselves
 * and the bridge's reset after a lease (`by: 'bridge'`, recordStep), so the timeline reads as
 * one story, in the sentences Activity uses.
 *
 * A running call carries the last progress the agent was told (a wait's seconds, a batch's
 * step), so the person sees what it waits for. The text a call types is kept here, in memory
 * only, for as long as its entry is in the ring: the console on this computer shows it
 * (`list(…, {typedText: true})`); the audit trail and every remote console keep to their
 * redacted form, and nothing of it is written to disk.
 */
import { newId } from '../protocol/envelope';
import { isActionLane, type ActionLane, type AdminActionPoint, type AdminPhoneAction } from '../../contract/admin-api';
import type { BridgeActionLine } from '../events/bridge-events';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import type { CallObserver, ObservedCall, ToolCall } from '../tools/tool-call';
import { targetLabelOf } from '../tools/element-words';
import type { LiveFrame } from './live-frames';
import { mayReuse } from '../screen/freshness';
import { ScreenEncoder } from '../screen/screen-encoder';
import { toolFacts } from '../tools/catalogue';

/** The audit lines that are steps in a phone's story, and who took each. */
const STEP_BY: Readonly<Record<string, 'person' | 'bridge'>> = {
  take_over: 'person',
  hand_back: 'person',
  turnover: 'bridge',
};

/** Calls kept per phone. */
export const TIMELINE_CAPACITY = 50;
/** Phones with a timeline; the one idle longest is forgotten beyond it. */
export const MAX_PHONES = 64;
/** Max side of an action's picture. */
export const ACTION_THUMB_MAX_SIDE = 240;
const CAPTURE_TIMEOUT_MS = 5_000;

export interface ActionTimelineDeps {
  clock: () => number;
  /** The call's arguments as the audit trail would keep them now (safety-service.ts). */
  redact(call: ToolCall): Record<string, unknown>;
  /**
   * The texts a call types, as the person at this computer may see them: plain, or null for a
   * secret (password field, access code, lab secret) or while the gate has not judged the call.
   */
  typing?(call: ToolCall): Array<string | null>;
  /** Told when a phone's timeline changed. */
  changed(deviceId: string): void;
  frames: {
    watched(deviceId: string): boolean;
    latest(deviceId: string): LiveFrame | undefined;
    captureIn(deviceId: string, shell: DeviceShell, signal: AbortSignal, timeoutMs: number): Promise<LiveFrame>;
  };
  logger: Pick<Logger, 'warn'>;
  capacity?: number;
  /** Shrinks the pictures (screen/screen-encoder.ts). */
  encoder?: ScreenEncoder;
}

interface Entry {
  view: AdminPhoneAction;
  /** The call until it ends: its arguments are shown as the gate's verdict redacts them. */
  call: ToolCall | null;
  thumb: Buffer | null;
  /** The typed texts once the call ended (while it runs they are read from the call). */
  typing: Array<string | null> | null;
}

/** Progress pushes come every 250 ms; the timeline tells watchers at most this often unless the status changes. */
const PROGRESS_NOTICE_MS = 1_000;

interface PhoneRing {
  entries: Entry[];
  lastControlEndAt: number;
  touchedAt: number;
}

export class ActionTimeline implements CallObserver {
  readonly capacity: number;
  private readonly phones = new Map<string, PhoneRing>();
  private seq = 0;
  private readonly encoder: ScreenEncoder;

  constructor(private readonly deps: ActionTimelineDeps) {
    this.encoder = deps.encoder ?? new ScreenEncoder();
    this.capacity = deps.capacity ?? TIMELINE_CAPACITY;
    if (!Number.isSafeInteger(this.capacity) || this.capacity <= 0)
      throw new TypeError(`timeline capacity must be a positive integer (got ${String(deps.capacity)})`);
  }

  /** Newest first. `typedText`: with the plain text each call types (only for the console on this computer). */
  list(deviceId: string, options: { typedText?: boolean } = {}): AdminPhoneAction[] {
    const ring = this.phones.get(deviceId);
    if (!ring) return [];
    return ring.entries
      .map((e) => {
        const view: AdminPhoneAction = { ...e.view, arguments: e.call ? this.deps.redact(e.call) : e.view.arguments };
        if (options.typedText) {
          const typing = e.call ? this.typingOf(e.call) : e.typing;
          if (typing && typing.length > 0) view.typing = typing;
        }
        return view;
      })
      .reverse();
  }

  private typingOf(call: ToolCall): Array<string | null> | null {
    return this.deps.typing ? this.deps.typing(call) : null;
  }

  /** The picture of the screen an action was made on. */
  screen(deviceId: string, actionId: string): Buffer | undefined {
    return this.phones.get(deviceId)?.entries.find((e) => e.view.action_id === actionId)?.thumb ?? undefined;
  }

  /** Thumbnails kept over all phones (for the memory-bound test). */
  stats(): { phones: number; entries: number; thumbBytes: number } {
    let entries = 0;
    let thumbBytes = 0;
    for (const ring of this.phones.values()) {
      entries += ring.entries.length;
      for (const e of ring.entries) thumbBytes += e.thumb?.length ?? 0;
    }
    return { phones: this.phones.size, entries, thumbBytes };
  }

  queued(call: ToolCall): ObservedCall {
    const now = this.deps.clock();
    const deviceId = call.device.deviceId;
    const toolId = call.tool.id;
    const ring = this.ring(deviceId, now);
    this.seq += 1;
    const entry: Entry = {
      view: {
        action_id: newId('act', 9),
        seq: this.seq,
        device_id: deviceId,
        connector_channel_id: call.channelId,
        by: 'agent',
        tool_id: toolId,
        arguments: {},
        state: 'queued',
        outcome: null,
        error_code: null,
        error_message: null,
        progress: null,
        queued_at: now,
        started_at: null,
        duration_ms: null,
        lane: null,
        points: [],
        screen: null,
      },
      call,
      thumb: null,
      typing: null,
    };
    ring.entries.push(entry);
    while (ring.entries.length > this.capacity) ring.entries.shift();
    this.deps.changed(deviceId);
    const set = (state: AdminPhoneAction['state']): void => {
      if (entry.view.state === state || entry.view.state === 'done') return;
      entry.view.state = state;
      if (state === 'running' && entry.view.started_at === null) entry.view.started_at = this.deps.clock();
      this.deps.changed(deviceId);
    };
    let noticedAt = 0;
    return {
      running: () => set('running'),
      held: () => set('held'),
      progress: (status, message, fraction) => {
        if (entry.view.state === 'done') return;
        const at = this.deps.clock();
        const statusChanged = entry.view.progress?.status !== status;
        entry.view.progress = { status, message: message.slice(0, 300), fraction: fraction ?? null, at };
        // The console counts the seconds itself; it needs to hear only of a new status, and now and then.
        if (statusChanged || at - noticedAt >= PROGRESS_NOTICE_MS) {
          noticedAt = at;
          this.deps.changed(deviceId);
        }
      },
      beforeAction: async (shell, signal) => {
        set('running');
        // The gate has judged the call: what it types may now be shown in plain words.
        if (this.typingOf(call)?.some((text) => text !== null)) this.deps.changed(deviceId);
        if (toolFacts(toolId).timeline === undefined || !this.deps.frames.watched(deviceId)) return;
        const frame = await this.frameBefore(deviceId, ring, shell, signal);
        if (frame) this.attachPicture(deviceId, entry, frame);
      },
      finished: (ack, durationMs) => {
        const end = this.deps.clock();
        entry.view.arguments = this.deps.redact(call);
        entry.typing = this.typingOf(call);
        entry.call = null;
        entry.view.state = 'done';
        entry.view.outcome = ack.errorCode ? 'error' : 'ok';
        entry.view.error_code = ack.errorCode ?? null;
        entry.view.error_message = ack.errorCode ? (ack.errorMessage ?? '').slice(0, 500) || null : null;
        entry.view.progress = null;
        entry.view.duration_ms = durationMs;
        const lane = ack.result?.lane;
        entry.view.lane = isActionLane(lane) ? lane : null;
        entry.view.points = ack.result ? pointsOf(toolId, ack.result) : [];
        entry.view.target_label = ack.result ? targetLabelOf(ack.result) : null;
        if (call.tool.kind === 'control') ring.lastControlEndAt = end;
        this.deps.changed(deviceId);
      },
    };
  }

  /**
   * The person's own input while they hold the phone (takeover/person-input.ts), done or
   * refused: one finished entry, `by: 'person'`. `described` is already the at-rest form (a
   * typed text as its length only); no picture is taken, the person was looking at the screen.
   */
  recordPerson(
    deviceId: string,
    described: Record<string, unknown>,
    outcome: {
      code: string | null;
      message: string | null;
      durationMs: number;
      points: AdminActionPoint[];
      lane: ActionLane | null;
    },
  ): void {
    const end = this.deps.clock();
    const ring = this.ring(deviceId, end);
    this.seq += 1;
    const started = end - outcome.durationMs;
    ring.entries.push({
      view: {
        action_id: newId('act', 9),
        seq: this.seq,
        device_id: deviceId,
        connector_channel_id: '',
        by: 'person',
        tool_id: `person_${String(described.kind)}`,
        arguments: described,
        state: 'done',
        outcome: outcome.code === null ? 'ok' : 'error',
        error_code: outcome.code,
        error_message: outcome.code === null ? null : (outcome.message ?? '').slice(0, 500) || null,
        progress: null,
        queued_at: started,
        started_at: started,
        duration_ms: outcome.durationMs,
        lane: outcome.lane,
        points: outcome.points,
        screen: null,
      },
      call: null,
      thumb: null,
      typing: null,
    });
    while (ring.entries.length > this.capacity) ring.entries.shift();
    // The agent's next call on a screen the person changed takes a new picture.
    ring.lastControlEndAt = end;
    this.deps.changed(deviceId);
  }

  /**
   * A step the bridge wrote in the audit trail that belongs in this phone's story: the person
   * took the phone over or handed it back (`by: 'person'`), or the phone was reset after a lease
   * (`by: 'bridge'`). Other lines (the ask's, the guard's) are not steps on the phone and are left out.
   */
  recordStep(line: BridgeActionLine): void {
    const by = STEP_BY[line.action];
    if (!by) return;
    const end = this.deps.clock();
    const ring = this.ring(line.deviceId, end);
    this.seq += 1;
    const durationMs = line.durationMs ?? 0;
    // A reset's line is written when it is over; it began `durationMs` before. A take over and
    // a hand-back are moments (a hand-back's duration is how long the person held the phone).
    const at = line.action === 'turnover' ? end - durationMs : end;
    ring.entries.push({
      view: {
        action_id: newId('act', 9),
        seq: this.seq,
        device_id: line.deviceId,
        connector_channel_id: '',
        by,
        tool_id: line.action,
        arguments: line.details ?? {},
        state: 'done',
        outcome: line.code === null ? 'ok' : 'error',
        error_code: line.code,
        error_message: line.code === null ? null : line.reasons.join('; ').slice(0, 500) || null,
        reasons: line.reasons.slice(0, 20),
        progress: null,
        queued_at: at,
        started_at: at,
        duration_ms: line.action === 'turnover' ? durationMs : null,
        lane: null,
        points: [],
        screen: null,
      },
      call: null,
      thumb: null,
      typing: null,
    });
    while (ring.entries.length > this.capacity) ring.entries.shift();
    // The agent's next call on a screen the person or the reset changed takes a new picture.
    if (line.action !== 'take_over') ring.lastControlEndAt = end;
    this.deps.changed(line.deviceId);
  }

  /** A frame of the screen as it is before this action: reused when taken since the last action ended. */
  private async frameBefore(
    deviceId: string,
    ring: PhoneRing,
    shell: DeviceShell,
    signal: AbortSignal,
  ): Promise<LiveFrame | null> {
    const latest = this.deps.frames.latest(deviceId);
    const now = this.deps.clock();
    if (latest && mayReuse(latest.at, ring.lastControlEndAt, now)) return latest;
    try {
      return await this.deps.frames.captureIn(deviceId, shell, signal, CAPTURE_TIMEOUT_MS);
    } catch (error) {
      if (!signal.aborted)
        this.deps.logger.warn('timeline screen capture failed', {
          device: deviceId,
          error: error instanceof Error ? error.message : String(error),
        });
      return null;
    }
  }

  /** Shrinks the frame in the background: the action does not wait for it. */
  private attachPicture(deviceId: string, entry: Entry, frame: LiveFrame): void {
    this.encoder
      .jpeg({ jpeg: frame.jpeg }, { maxSide: ACTION_THUMB_MAX_SIDE, quality: 65 })
      .then((out) => {
        entry.thumb = out.jpeg;
        entry.view.screen = {
          width: frame.screenWidth,
          height: frame.screenHeight,
          thumb_width: out.width,
          thumb_height: out.height,
          taken_at: frame.at,
        };
        this.deps.changed(deviceId);
      })
      .catch((error: unknown) =>
        this.deps.logger.warn('timeline thumbnail failed', {
          device: deviceId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
  }

  private ring(deviceId: string, now: number): PhoneRing {
    let ring = this.phones.get(deviceId);
    if (!ring) {
      ring = { entries: [], lastControlEndAt: 0, touchedAt: now };
      this.phones.set(deviceId, ring);
      if (this.phones.size > MAX_PHONES) {
        let oldest: string | undefined;
        let oldestAt = Infinity;
        for (const [id, r] of this.phones)
          if (r.touchedAt < oldestAt && id !== deviceId) [oldest, oldestAt] = [id, r.touchedAt];
        if (oldest !== undefined) this.phones.delete(oldest);
      }
    }
    ring.touchedAt = now;
    return ring;
  }
}

function pair(value: unknown): [number, number] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [x, y] = value as unknown[];
  return typeof x === 'number' && typeof y === 'number' ? [x, y] : null;
}

function pointOf(toolId: string, result: Record<string, unknown>): AdminActionPoint | null {
  if (typeof result.x === 'number' && typeof result.y === 'number') {
    return {
      kind: toolFacts(toolId).timeline === 'long_press' ? 'long_press' : 'tap',
      x: result.x,
      y: result.y,
      to_x: null,
      to_y: null,
    };
  }
  const from = pair(result.from);
  const to = pair(result.to);
  if (from && to) return { kind: 'swipe', x: from[0], y: from[1], to_x: to[0], to_y: to[1] };
  return null;
}

/** Where a finished call acted, read from its result (a batch: each step that pointed). */
export function pointsOf(toolId: string, result: Record<string, unknown>): AdminActionPoint[] {
  if (toolFacts(toolId).timeline === 'batch' && Array.isArray(result.steps)) {
    const out: AdminActionPoint[] = [];
    for (const step of result.steps as unknown[]) {
      if (typeof step !== 'object' || step === null) continue;
      const s = step as { tool?: unknown; result?: unknown };
      if (typeof s.tool !== 'string' || typeof s.result !== 'object' || s.result === null) continue;
      const p = pointOf(s.tool, s.result as Record<string, unknown>);
      if (p) out.push(p);
    }
    return out;
  }
  const p = pointOf(toolId, result);
  return p ? [p] : [];
}
