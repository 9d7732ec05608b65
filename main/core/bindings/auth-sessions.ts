/**
 * Authentication sessions of the auth flows (spec §8.7–8.12): a short pairing code that
 * expires, at most one session in progress per channel, refresh and cancel. What approving a
 * session does (binding a phone) belongs to the BindingService; this keeps sessions truthful
 * in time and reports every change it makes on its own (expiry, cancel, refresh).
 */
import { randomInt } from 'node:crypto';
import { newId } from '../protocol/envelope';

export type AuthStatus = 'pending' | 'authenticated' | 'failed' | 'expired' | 'canceled';

export interface AuthSession {
  authSessionId: string;
  channelId: string;
  flowId: string;
  code: string;
  createdAt: number;
  expiresAt: number;
  status: AuthStatus;
  message: string;
  /** Preselected phone (device_claim that still needs a local approval). */
  deviceId: string | null;
  /** The data plane's client address the request came from. */
  clientAddress: string | null;
  /** The lab form's name of the claimant, and the phone as they named it (device_claim). */
  requester: string | null;
  claimedAs: string | null;
  /** A claim whose phone words matched several phones or none: the labels to choose from. */
  candidates?: string[];
}

export interface AuthSessionsOptions {
  ttlMs: number;
  clock: () => number;
  /** A session changed outside a request that will answer with it (expiry, cancel, refresh). */
  onChange: (session: AuthSession) => void;
}

/** No 0/O or 1/I: the code is read off one screen and compared with another. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Finished sessions stay answerable by auth.status for this long. */
const KEEP_FINISHED_MS = 3600_000;

export class AuthSessions {
  private readonly sessions = new Map<string, AuthSession>();

  constructor(private readonly options: AuthSessionsOptions) {}

  /** A new pending session; an older one still pending on the channel is canceled (it could otherwise be approved later and rebind the channel). */
  create(channelId: string, flowId: string): AuthSession {
    this.endForChannel(channelId, 'Replaced by a newer authentication request on this channel.');
    const now = this.options.clock();
    const session: AuthSession = {
      authSessionId: newId('auth'),
      channelId,
      flowId,
      code: newCode(),
      createdAt: now,
      expiresAt: now + this.options.ttlMs,
      status: 'pending',
      message: '',
      deviceId: null,
      clientAddress: null,
      requester: null,
      claimedAs: null,
    };
    this.sessions.set(session.authSessionId, session);
    this.prune();
    return session;
  }

  get(authSessionId: string): AuthSession | undefined {
    const session = this.sessions.get(authSessionId);
    if (session) this.expireIfDue(session);
    return session;
  }

  /** `refresh: true`: a pending or expired session gets a new code and a new expiry. */
  refresh(session: AuthSession, message: (code: string) => string): void {
    this.expireIfDue(session);
    if (session.status !== 'pending' && session.status !== 'expired') return;
    const now = this.options.clock();
    session.code = newCode();
    session.createdAt = now;
    session.expiresAt = now + this.options.ttlMs;
    session.status = 'pending';
    session.message = message(session.code);
    this.options.onChange(session);
  }

  cancel(session: AuthSession): 'canceled' | 'ignored' {
    this.expireIfDue(session);
    if (session.status !== 'pending') return 'ignored';
    session.status = 'canceled';
    session.message = 'Authentication canceled';
    this.options.onChange(session);
    return 'canceled';
  }

  /** Cancels whatever is still pending on a channel (logout, runtime cascade, a newer request). */
  endForChannel(channelId: string, message: string): void {
    for (const session of this.sessions.values()) {
      if (session.channelId === channelId && session.status === 'pending') {
        session.status = 'canceled';
        session.message = message;
        this.options.onChange(session);
      }
    }
  }

  pending(): AuthSession[] {
    return [...this.sessions.values()].filter((s) => {
      this.expireIfDue(s);
      return s.status === 'pending';
    });
  }

  hasPending(channelId: string): boolean {
    const now = this.options.clock();
    return [...this.sessions.values()].some(
      (s) => s.channelId === channelId && s.status === 'pending' && s.expiresAt > now,
    );
  }

  /** Expires what is due (called by the binding sweep, so expiry is pushed without a poll). */
  sweep(): void {
    for (const session of this.sessions.values()) this.expireIfDue(session);
  }

  private expireIfDue(session: AuthSession): void {
    if (session.status === 'pending' && session.expiresAt <= this.options.clock()) {
      session.status = 'expired';
      session.message = 'The pairing code expired; ask for a new one.';
      this.options.onChange(session);
    }
  }

  private prune(): void {
    const cutoff = this.options.clock() - KEEP_FINISHED_MS;
    for (const [id, session] of this.sessions) if (session.expiresAt < cutoff) this.sessions.delete(id);
  }
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < 6; i += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${code.slice(0, 3)}-${code.slice(3)}`;
}
