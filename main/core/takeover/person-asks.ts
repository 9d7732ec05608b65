/**
 * The agent asks the person at the computer to take a phone over (issue #26): a login, a
 * captcha, a PIN, a consent screen the agent must not do itself. One ask waits per phone; it
 * ends when the person takes the phone over and hands it back (the agent gets their note), when
 * they decline, when nobody answers in time, or when the call is canceled (a Stop, the lease's
 * end). A take-over does not approve anything: the agent's high-risk calls after the hand-back
 * still wait for their approval (safety/approval-gate.ts). State is in memory only.
 */
import { randomUUID } from 'node:crypto';
import type { AdminPersonAsk } from '../../contract/admin-api';
import { BridgeError, type ErrorCode } from '../errors';
import type { HandBack } from './takeover';

/** An ask as the console shows it: the admin contract's shape, so the two cannot drift. */
export type PersonAsk = AdminPersonAsk;

/** What the agent's call gets back when the person hands the phone back. */
export interface AskAnswered {
  note: string | undefined;
  /** How long the person held the phone (ms). */
  heldMs: number;
  /** How long the agent waited for the person to take the phone over (ms). */
  waitedMs: number;
}

export interface AskRequest {
  deviceId: string;
  channelId: string;
  reason: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The phone is already taken over when the agent asks: the ask waits for the hand-back only. */
  alreadyTakenSince: number | null;
  /** Told every `progressEveryMs` what the call waits for and for how long. */
  progress: (status: string, message: string, fraction?: number) => void;
}

export type AskAuditAction = 'ask_person' | 'ask_declined' | 'ask_timed_out' | 'ask_canceled';

/** Each audit line of an ask: its error code (null: as it should be) and why, in words. */
export const ASK_AUDIT: Record<AskAuditAction, { code: ErrorCode | null; reason: string }> = {
  ask_person: { code: null, reason: 'the agent asked the person at the computer to take the phone over' },
  ask_declined: { code: 'person_declined', reason: 'the person declined the agent’s ask' },
  ask_timed_out: { code: 'approval_timeout', reason: 'nobody answered the agent’s ask in time' },
  ask_canceled: { code: 'canceled', reason: 'the agent’s ask was canceled (a Stop, or the lease ended)' },
};

export interface PersonAskEvents {
  /** Pending asks changed: the console and the tray redraw. */
  changed(): void;
  /** One audit line: the ask, the decline, the timeout, the cancel (take and hand-back are the takeover's). */
  audit(ask: PersonAsk, action: AskAuditAction, details: Record<string, unknown>): void;
}

export interface PersonAsksOptions {
  clock: () => number;
  events: PersonAskEvents;
  /**
   * Between progress pushes. A person's answer takes seconds to minutes, so once a second is
   * enough for the agent to see the wait is alive without flooding its channel.
   */
  progressEveryMs?: number;
}

/** A declined reason is a few words, like a hand-back note. */
export const DECLINE_REASON_MAX_CHARS = 2000;

interface Waiting {
  ask: PersonAsk;
  settle: (outcome: { answered: AskAnswered } | { error: BridgeError }) => void;
}

export class PersonAsks {
  private readonly waiting = new Map<string, Waiting>();
  private readonly progressEveryMs: number;

  constructor(private readonly o: PersonAsksOptions) {
    this.progressEveryMs = o.progressEveryMs ?? 1000;
  }

  /** Every pending ask, oldest first. */
  list(): PersonAsk[] {
    return [...this.waiting.values()].map((w) => ({ ...w.ask })).sort((a, b) => a.asked_at - b.asked_at);
  }

  /** The phone's pending ask, or null. */
  pending(deviceId: string): PersonAsk | null {
    const w = this.waiting.get(deviceId);
    return w ? { ...w.ask } : null;
  }

  /**
   * Waits for the person's answer; resolves when they hand the phone back, rejects with
   * `person_declined`, `approval_timeout` (nobody answered) or `canceled`. A second ask on a
   * phone whose ask still waits is refused with `ask_pending`.
   */
  ask(request: AskRequest): Promise<AskAnswered> {
    const { deviceId } = request;
    const existing = this.waiting.get(deviceId);
    if (existing)
      return Promise.reject(
        new BridgeError(
          'ask_pending',
          `an ask already waits for the person on this phone (since ${new Date(existing.ask.asked_at).toISOString()}); wait for its answer`,
        ),
      );
    if (request.signal.aborted) return Promise.reject(new BridgeError('canceled', 'the ask was canceled'));
    const askedAt = this.o.clock();
    const ask: PersonAsk = {
      ask_id: `ask_${randomUUID()}`,
      device_id: deviceId,
      connector_channel_id: request.channelId,
      reason: request.reason,
      asked_at: askedAt,
      expires_at: askedAt + request.timeoutMs,
      taken_at: request.alreadyTakenSince,
    };
    return new Promise<AskAnswered>((resolve, reject) => {
      let done = false;
      const report = (): void => {
        const now = this.o.clock();
        if (ask.taken_at === null) {
          const waited = now - ask.asked_at;
          const left = Math.max(0, ask.expires_at - now);
          request.progress(
            'waiting_person',
            `waiting for the person to take the phone over: ${seconds(waited)} s so far, ${seconds(left)} s left`,
            Math.min(0.99, waited / request.timeoutMs),
          );
        } else {
          request.progress(
            'person_in_control',
            `the person holds the phone (${seconds(now - ask.taken_at)} s); waiting for the hand-back`,
          );
        }
      };
      const settle = (outcome: { answered: AskAnswered } | { error: BridgeError }): void => {
        if (done) return;
        done = true;
        clearTimeout(expiry);
        clearInterval(ticker);
        request.signal.removeEventListener('abort', onAbort);
        this.waiting.delete(deviceId);
        this.o.events.changed();
        if ('answered' in outcome) resolve(outcome.answered);
        else reject(outcome.error);
      };
      const onAbort = (): void => {
        this.o.events.audit(ask, 'ask_canceled', {});
        settle({ error: new BridgeError('canceled', 'the ask was canceled') });
      };
      const onExpiry = (): void => {
        // Once the person holds the phone, the ask waits for the hand-back, however long.
        if (ask.taken_at !== null) return;
        this.o.events.audit(ask, 'ask_timed_out', { waited_ms: this.o.clock() - ask.asked_at });
        settle({
          error: new BridgeError(
            'approval_timeout',
            `nobody at the computer answered within ${seconds(request.timeoutMs)} s; ask again later or go on without them`,
          ),
        });
      };
      const expiry = setTimeout(onExpiry, request.timeoutMs);
      expiry.unref();
      const ticker = setInterval(report, this.progressEveryMs);
      ticker.unref();
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(deviceId, { ask, settle });
      this.o.events.audit(ask, 'ask_person', { reason: ask.reason, timeout_ms: request.timeoutMs });
      this.o.events.changed();
      report();
    });
  }

  /** The person took the phone over (from the ask's card or the phone view): the ask now waits for the hand-back. */
  taken(deviceId: string, since: number): void {
    const w = this.waiting.get(deviceId);
    if (!w || w.ask.taken_at !== null) return;
    w.ask.taken_at = since;
    this.o.events.changed();
  }

  /** The person handed the phone back: the agent's call returns their note. */
  handedBack(back: Pick<HandBack, 'deviceId' | 'heldMs' | 'note'>): void {
    const w = this.waiting.get(back.deviceId);
    if (!w || w.ask.taken_at === null) return;
    w.settle({
      answered: { note: back.note, heldMs: back.heldMs, waitedMs: Math.max(0, w.ask.taken_at - w.ask.asked_at) },
    });
  }

  /** The person declines the phone's pending ask, with an optional reason for the agent. */
  decline(deviceId: string, reason?: string): PersonAsk {
    const w = this.waiting.get(deviceId);
    if (!w) throw new BridgeError('approval_not_found', 'no ask waits on this phone');
    if (w.ask.taken_at !== null)
      throw new BridgeError(
        'human_in_control',
        'the person already holds the phone for this ask; hand it back instead',
      );
    this.o.events.audit(w.ask, 'ask_declined', reason ? { reason } : {});
    w.settle({
      error: new BridgeError(
        'person_declined',
        reason
          ? `the person at the computer declined: ${reason}`
          : 'the person at the computer declined to take the phone over',
        reason ? { reason } : undefined,
      ),
    });
    return { ...w.ask };
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
