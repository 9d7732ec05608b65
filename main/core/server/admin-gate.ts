/**
 * Who may even ask the admin API and the console, before the admin token is looked at.
 *
 * - **Host.** A page on another site can make a browser send requests to the bridge under its
 *   own name (DNS rebinding: evil.example resolving to 127.0.0.1), so a request is answered only
 *   under a name the bridge is served on: the loopback names, the address it listens on (every
 *   local address when it listens on all of them), this machine's host name, and the host of
 *   `--public-url`. Anything else is 421 `host_not_allowed`.
 * - **Origin.** A state-changing admin call (POST, PUT, PATCH, DELETE) that carries an Origin
 *   must come from one of those hosts on the port the request reached or the bridge's own
 *   port (or the public URL's origin): else 403 `origin_not_allowed`. The desktop app talks over IPC and sends none.
 * - **Wrong admin tokens.** Per client address, ADMIN_TOKEN_FAILURES tokens present and wrong
 *   within ADMIN_TOKEN_WINDOW_MS lock that address out for ADMIN_TOKEN_LOCK_MS: its wrong tokens
 *   get 429 `rate_limited` with Retry-After. A request with no token is no guess and is never
 *   counted (any web page can make the browser send plain GETs to 127.0.0.1), and the right token
 *   always gets through: otherwise a page the person visits locks them out of their own console
 *   (#36 point 3). The token is 32 random bytes, so the lock is a brake on noise, not what keeps
 *   it from being guessed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { secretEquals } from '../secrets/secret-store';
import { sendError } from './http-util';

export const ADMIN_TOKEN_FAILURES = 10;
export const ADMIN_TOKEN_WINDOW_MS = 60_000;
export const ADMIN_TOKEN_LOCK_MS = 60_000;
/** Addresses whose failures are remembered at once; the oldest are forgotten beyond it. */
const MAX_TRACKED_ADDRESSES = 10_000;

export interface AdminGateOptions {
  /** The address the server listens on ('0.0.0.0', '::', '127.0.0.1', a name…). */
  listenHost: () => string;
  /** The port it listens on (0 before it listens). */
  listenPort: () => number;
  /** The `--public-url`, when set. */
  publicUrl: () => string | undefined;
  clock?: () => number;
  tokenFailures?: number;
  tokenWindowMs?: number;
  tokenLockMs?: number;
}

export type GateRefusal = { status: number; code: string; message: string; retryAfterS?: number };

/** Answers a refusal of the gate, with Retry-After when it has one. */
export function sendRefusal(res: ServerResponse, refusal: GateRefusal): void {
  sendError(
    res,
    refusal.status,
    refusal.code,
    refusal.message,
    refusal.retryAfterS === undefined ? {} : { 'Retry-After': String(refusal.retryAfterS) },
  );
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class AdminGate {
  private readonly failures = new Map<string, { times: number[]; lockedUntil: number }>();
  private readonly clock: () => number;

  constructor(private readonly o: AdminGateOptions) {
    this.clock = o.clock ?? Date.now;
  }

  /** The names the bridge answers under (lower case, without port, IPv6 without brackets). */
  allowedHosts(): Set<string> {
    const hosts = new Set(['localhost', '127.0.0.1', '::1']);
    const listen = this.o.listenHost().toLowerCase();
    if (listen === '0.0.0.0' || listen === '::' || listen === '') {
      for (const list of Object.values(networkInterfaces()))
        for (const nic of list ?? []) hosts.add(nic.address.toLowerCase().replace(/%.*$/, ''));
      const name = hostname().toLowerCase();
      if (name) {
        hosts.add(name);
        hosts.add(`${name}.local`);
      }
    } else {
      hosts.add(listen);
    }
    const publicHost = hostOfUrl(this.o.publicUrl());
    if (publicHost) hosts.add(publicHost);
    return hosts;
  }

  /** Host (and, for a state-changing call, Origin) of a request to the admin API or console; null when it may go on. */
  checkRequest(req: IncomingMessage, options: { checkOrigin: boolean }): GateRefusal | null {
    const host = hostOfHeader(req.headers.host);
    const allowed = this.allowedHosts();
    if (host === null || !allowed.has(host)) {
      return {
        status: 421,
        code: 'host_not_allowed',
        message:
          'this bridge does not answer under that host name (open it as localhost, its address, or its --public-url)',
      };
    }
    if (options.checkOrigin && STATE_CHANGING.has(req.method ?? '')) {
      const origin = req.headers.origin;
      if (origin !== undefined && !this.originAllowed(origin, allowed, req.headers.host)) {
        return {
          status: 403,
          code: 'origin_not_allowed',
          message: 'a page from another site may not change the bridge',
        };
      }
    }
    return null;
  }

  /**
   * The page's origin is the bridge itself: an allowed name on the port the request reached
   * (its Host header: an SSH tunnel or a port mapping shows the console on another port than
   * the bridge listens on), the listening port, or the public URL's origin.
   */
  private originAllowed(origin: string, allowed: Set<string>, hostHeader: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    const publicUrl = this.o.publicUrl();
    if (publicUrl !== undefined) {
      try {
        if (new URL(publicUrl).origin === url.origin) return true;
      } catch {
        // a bad public URL was refused at start; nothing matches it here
      }
    }
    if (!allowed.has(url.hostname.toLowerCase().replace(/^\[|\]$/g, ''))) return false;
    if (hostHeader !== undefined && url.host.toLowerCase() === hostHeader.trim().toLowerCase()) return true;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return port === this.o.listenPort();
  }

  /**
   * The admin token of one request from `address`: null when it is the right one, else the
   * refusal (401 with no token or a wrong one, 429 while the address is locked out). Only a
   * token present and wrong counts toward the lock.
   */
  checkToken(address: string, given: string | undefined, expected: string): GateRefusal | null {
    if (given !== undefined && secretEquals(given, expected)) return null;
    if (given === undefined) return { status: 401, code: 'unauthorized', message: 'a valid admin token is required' };
    const lockedFor = this.tokenLockedFor(address);
    if (lockedFor !== null)
      return {
        status: 429,
        code: 'rate_limited',
        message: `too many wrong admin tokens from this address; try again in ${lockedFor} s`,
        retryAfterS: lockedFor,
      };
    this.tokenFailed(address);
    return { status: 401, code: 'unauthorized', message: 'a valid admin token is required' };
  }

  /** Seconds until a locked-out address may try a token again, or null when it may try now. */
  tokenLockedFor(address: string): number | null {
    const entry = this.failures.get(address);
    if (!entry) return null;
    const left = entry.lockedUntil - this.clock();
    return left > 0 ? Math.ceil(left / 1000) : null;
  }

  /** A wrong admin token from this address. */
  tokenFailed(address: string): void {
    const now = this.clock();
    const window = this.o.tokenWindowMs ?? ADMIN_TOKEN_WINDOW_MS;
    const entry = this.failures.get(address) ?? { times: [], lockedUntil: 0 };
    entry.times = entry.times.filter((t) => now - t < window);
    entry.times.push(now);
    if (entry.times.length >= (this.o.tokenFailures ?? ADMIN_TOKEN_FAILURES)) {
      entry.lockedUntil = now + (this.o.tokenLockMs ?? ADMIN_TOKEN_LOCK_MS);
      entry.times = [];
    }
    this.failures.delete(address);
    this.failures.set(address, entry);
    if (this.failures.size > MAX_TRACKED_ADDRESSES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }
}

function hostOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end > 0 ? value.slice(1, end) : null;
  }
  // A bare IPv6 address has several colons and no port.
  if ((value.match(/:/g) ?? []).length > 1) return value;
  return value.replace(/:\d*$/, '') || null;
}

function hostOfUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}
