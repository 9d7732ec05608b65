/**
 * The bridge's TLS certificate and key: read from PEM files, checked (each file parses, the
 * key belongs to the certificate), and re-read when the files change so a renewal is
 * served without a restart. A bad file is a `TlsFileError` naming it: at start the bridge
 * refuses to start; on a renewal the old certificate keeps being served and the problem is
 * logged once and reported as a warning until the files are good again.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from '../logging/logger';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** What is served: the PEM bytes, and the facts people check (fingerprint, names, expiry). */
export interface TlsIdentity {
  cert: Buffer;
  key: Buffer;
  /** SHA-256 of the leaf certificate's DER, `AB:CD:…` (what clients pin). */
  fingerprint256: string;
  /** e.g. ['DNS:localhost', 'IP Address:192.168.1.20'] */
  subjectAltNames: string[];
  validFrom: number;
  validTo: number;
}

/** A certificate or key file that cannot be used; `file` names it. */
export class TlsFileError extends Error {
  override readonly name = 'TlsFileError';
  readonly code = 'tls_file_invalid';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** Reads and checks a certificate (chain) and its key; throws TlsFileError naming the bad file. */
export function loadTlsIdentity(files: TlsFiles): TlsIdentity {
  const cert = readPem(files.certFile, 'certificate');
  let x509: X509Certificate;
  try {
    if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no "BEGIN CERTIFICATE" block');
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new TlsFileError(
      files.certFile,
      `TLS certificate ${files.certFile} is not a PEM certificate (${reason(error)})`,
    );
  }
  const key = readPem(files.keyFile, 'private key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new TlsFileError(
      files.keyFile,
      `TLS key ${files.keyFile} is not an unencrypted PEM private key (${reason(error)})`,
    );
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new TlsFileError(
      files.keyFile,
      `TLS key ${files.keyFile} does not belong to the certificate ${files.certFile}`,
    );
  }
  return {
    cert,
    key,
    fingerprint256: x509.fingerprint256,
    subjectAltNames: (x509.subjectAltName ?? '').split(', ').filter((name) => name.length > 0),
    validFrom: Date.parse(x509.validFrom),
    validTo: Date.parse(x509.validTo),
  };
}

function readPem(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : reason(error);
    throw new TlsFileError(file, `TLS ${what} ${file} cannot be read (${why})`);
  }
}

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^error:[0-9A-F]+:/i, '').slice(0, 160);
}

/** Identity of a file's current content, cheap to take on every new connection. */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'missing';
  }
}

export interface TlsMaterialOptions {
  files: TlsFiles;
  logger: Logger;
  clock?: () => number;
  /** Called with the new identity after a renewal was loaded. */
  onRenewed?: (identity: TlsIdentity) => void;
}

/** The live certificate: loaded at start, re-checked (two stats) whenever a client connects. */
export class TlsMaterial {
  private identity: TlsIdentity;
  private stamps: string;
  private problem: string | undefined;

  /** Throws TlsFileError when the files are not usable now. */
  constructor(private readonly options: TlsMaterialOptions) {
    this.stamps = this.currentStamps();
    this.identity = loadTlsIdentity(options.files);
  }

  get current(): TlsIdentity {
    return this.identity;
  }

  get files(): TlsFiles {
    return this.options.files;
  }

  /**
   * Loads the files again if they changed since the last look. Returns the new identity
   * when a renewal was loaded; on a bad file keeps the old one and records the problem.
   */
  refresh(): TlsIdentity | undefined {
    const stamps = this.currentStamps();
    if (stamps === this.stamps) return undefined;
    this.stamps = stamps;
    try {
      this.identity = loadTlsIdentity(this.options.files);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== this.problem) {
        this.problem = message;
        this.options.logger.warn('TLS certificate change not loaded; still serving the previous certificate', {
          problem: message,
        });
      }
      return undefined;
    }
    this.problem = undefined;
    this.options.logger.info('TLS certificate reloaded', { fingerprint256: this.identity.fingerprint256 });
    this.options.onRenewed?.(this.identity);
    return this.identity;
  }

  /** What a person should fix now (a bad renewal, an expired certificate), else []. */
  warnings(): string[] {
    const out: string[] = [];
    if (this.problem)
      out.push(`${this.problem}. The bridge keeps serving the previous certificate until the files are fixed.`);
    const now = (this.options.clock ?? Date.now)();
    if (this.identity.validTo < now) {
      out.push(
        `TLS certificate ${this.options.files.certFile} expired on ${new Date(this.identity.validTo).toISOString()}; clients will refuse it.`,
      );
    }
    return out;
  }

  private currentStamps(): string {
    return `${stamp(this.options.files.certFile)}|${stamp(this.options.files.keyFile)}`;
  }
}
