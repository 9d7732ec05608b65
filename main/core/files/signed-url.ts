/**
 * UrlSigner: short-lived, unguessable download URLs for the transfer plane.
 *
 * xAgent fetches `download_url` without any header, so the URL itself is the credential:
 * `/files/refs/{file_ref}?exp=<ms>&sig=<base64url HMAC-SHA256("{file_ref}\n{exp}")>`.
 * The HMAC key is a per-data-dir secret owned by the bridge; the API key never appears in
 * a URL. A URL never outlives its file (`notAfter`).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { BridgeError } from '../errors';
import { isFileRef } from './file-cache';

export type UrlVerdict = 'ok' | 'expired' | 'bad_signature';

const MIN_SECRET_BYTES = 32;
const EXP_PATTERN = /^[0-9]{1,16}$/;
/** 32 bytes of HMAC-SHA256 in unpadded base64url. */
const SIG_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A fresh random signing secret (the bridge stores one per data dir). */
export function createUrlSecret(): Buffer {
  return randomBytes(MIN_SECRET_BYTES);
}

export class UrlSigner {
  private readonly secret: Buffer;
  private readonly clock: () => number;

  constructor(secret: Buffer, clock: () => number = Date.now) {
    if (!Buffer.isBuffer(secret) || secret.length < MIN_SECRET_BYTES) {
      throw new BridgeError('invalid_arguments', `secret must be a Buffer of at least ${MIN_SECRET_BYTES} bytes`);
    }
    if (typeof clock !== 'function') throw new BridgeError('invalid_arguments', 'clock must be a function');
    // A private copy: the caller may reuse or zero its buffer.
    this.secret = Buffer.from(secret);
    this.clock = clock;
  }

  /**
   * Signs a download path valid for `ttlMs` from now, but never past `notAfter` (pass the
   * file's `expiresAt`). The path is relative to the bridge's public base URL.
   */
  sign(fileRef: string, ttlMs: number, notAfter?: number): { path: string; expiresAt: number } {
    if (!isFileRef(fileRef)) throw new BridgeError('invalid_arguments', 'fileRef is not a file reference');
    if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new BridgeError('invalid_arguments', 'ttlMs must be a positive integer');
    }
    if (notAfter !== undefined && (typeof notAfter !== 'number' || !Number.isSafeInteger(notAfter))) {
      throw new BridgeError('invalid_arguments', 'notAfter must be an integer timestamp in milliseconds');
    }
    const now = this.clock();
    const expiresAt = Math.max(0, Math.min(now + ttlMs, notAfter ?? Number.MAX_SAFE_INTEGER));
    const exp = String(expiresAt);
    const sig = this.signature(fileRef, exp);
    return { path: `/files/refs/${fileRef}?exp=${exp}&sig=${sig}`, expiresAt };
  }

  /** Checks the signature first (so nothing is learned from an unsigned URL), then expiry. */
  verify(fileRef: string, query: URLSearchParams): UrlVerdict {
    const exps = query.getAll('exp');
    const sigs = query.getAll('sig');
    if (exps.length !== 1 || sigs.length !== 1) return 'bad_signature';
    const exp = exps[0]!;
    const sig = sigs[0]!;
    if (!isFileRef(fileRef) || !EXP_PATTERN.test(exp) || !SIG_PATTERN.test(sig)) return 'bad_signature';
    // Compare the text, not decoded bytes: base64url's spare low bits would let two
    // different strings decode to the same digest.
    const given = Buffer.from(sig, 'ascii');
    const expected = Buffer.from(this.signature(fileRef, exp), 'ascii');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
    return this.clock() > Number(exp) ? 'expired' : 'ok';
  }

  private signature(fileRef: string, exp: string): string {
    return createHmac('sha256', this.secret).update(`${fileRef}\n${exp}`).digest('base64url');
  }
}
