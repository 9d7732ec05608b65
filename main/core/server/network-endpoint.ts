/**
 * The bridge's face to the network: which certificate it serves (files, or the self-signed
 * one in the data dir), the gate in front of the xAgent planes, the one HTTP(S) server, and
 * the URLs that follow from them — the address it listens on, and the base URL xAgent is
 * given (--public-url behind a proxy, else the listening URL). Also the warnings a person
 * must see: a network-facing bridge in clear text, a renewal that could not be loaded.
 */
import type { IncomingMessage } from 'node:http';
import type { AdminSettings } from '../../contract/admin-api';
import type { NetworkOptions } from '../config/network-options';
import { clearTextWarning } from '../config/network-options';
import type { Logger } from '../logging/logger';
import { ensureSelfSigned } from '../tls/self-signed';
import { TlsMaterial } from '../tls/tls-material';
import type { ConnectionLimits } from './connection-limits';
import { HttpServer, type HttpRoutes } from './http-server';
import { NetworkAccess } from './network-access';

export interface NetworkEndpointOptions {
  host: string;
  port: number;
  dataDir: string;
  network: NetworkOptions;
  routes: HttpRoutes;
  /** Connection caps and deadlines (server/connection-limits.ts). */
  connections?: Partial<ConnectionLimits>;
  /** A request shows the API key or the admin token (its connection keeps its slot). */
  authenticated?: (req: IncomingMessage) => boolean;
  logger: Logger;
  clock?: () => number;
}

/** The certificate in use, as people check it. */
export interface TlsSummary {
  source: 'files' | 'self-signed';
  certFile: string;
  keyFile: string;
  /** `AB:CD:…`, SHA-256 of the certificate's DER. */
  fingerprint256: string;
  subjectAltNames: string[];
  validTo: number;
  /** True when this start made a new self-signed certificate (a new fingerprint to trust). */
  created: boolean;
}

export class NetworkEndpoint {
  readonly access: NetworkAccess;
  private tls: TlsMaterial | undefined;
  private tlsCreated = false;
  private server: HttpServer | undefined;
  private listening: { host: string; port: number } | undefined;

  constructor(private readonly o: NetworkEndpointOptions) {
    this.access = new NetworkAccess({
      ...(o.network.allowFrom ? { allowFrom: o.network.allowFrom } : {}),
      ...(o.network.trustProxy ? { trustProxy: o.network.trustProxy } : {}),
      logger: o.logger,
      ...(o.clock ? { clock: o.clock } : {}),
    });
  }

  /**
   * Reads (or makes) the certificate. Called first at start so a bad file stops the start
   * before anything else runs; throws TlsFileError naming the file.
   */
  async loadTls(): Promise<void> {
    const tls = this.o.network.tls;
    if (tls === undefined || this.tls) return;
    let files = tls === 'self-signed' ? undefined : tls;
    if (tls === 'self-signed') {
      const made = await ensureSelfSigned(this.o.dataDir, {
        bindHost: this.o.host,
        ...(this.o.clock ? { clock: this.o.clock } : {}),
      });
      this.tlsCreated = made.created;
      files = { certFile: made.certFile, keyFile: made.keyFile };
      if (made.created) this.o.logger.info('made a self-signed TLS certificate', { certFile: made.certFile });
    }
    if (!files) return;
    this.tls = new TlsMaterial({ files, logger: this.o.logger, ...(this.o.clock ? { clock: this.o.clock } : {}) });
  }

  async listen(): Promise<{ host: string; port: number }> {
    await this.loadTls();
    this.server = new HttpServer(this.o.routes, this.o.logger, {
      ...(this.tls ? { tls: this.tls } : {}),
      access: this.access,
      ...(this.o.connections ? { limits: this.o.connections } : {}),
      ...(this.o.authenticated ? { authenticated: this.o.authenticated } : {}),
    });
    this.listening = await this.server.listen(this.o.host, this.o.port);
    const warning = clearTextWarning(this.o.host, this.o.network);
    if (warning) this.o.logger.warn(warning);
    return this.listening;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** Connections the server holds now on every plane (0 before listen). */
  openConnections(): number {
    return this.server?.openConnections() ?? 0;
  }

  /** Where the bridge itself answers (https when TLS is on); '' before listen. A wildcard bind is shown as loopback. */
  localUrl(): string {
    if (!this.listening) return '';
    const host = this.listening.host === '0.0.0.0' || this.listening.host === '::' ? '127.0.0.1' : this.listening.host;
    return `${this.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${this.listening.port}`;
  }

  /** The port it listens on (0 before it listens). */
  listeningPort(): number {
    return this.listening?.port ?? 0;
  }

  /** The base URL xAgent is given: --public-url when set, else the listening URL. */
  publicUrl(): string {
    return this.o.network.publicUrl ?? this.localUrl();
  }

  tlsSummary(): TlsSummary | null {
    if (!this.tls) return null;
    const identity = this.tls.current;
    return {
      source: this.o.network.tls === 'self-signed' ? 'self-signed' : 'files',
      certFile: this.tls.files.certFile,
      keyFile: this.tls.files.keyFile,
      fingerprint256: identity.fingerprint256,
      subjectAltNames: identity.subjectAltNames,
      validTo: identity.validTo,
      created: this.tlsCreated,
    };
  }

  /** What Settings shows: port, certificate, public URL and the address rules. */
  adminView(): Pick<AdminSettings, 'port' | 'tls' | 'public_url' | 'allow_from' | 'trust_proxy'> {
    const tls = this.tlsSummary();
    return {
      port: this.listening?.port ?? 0,
      tls: tls
        ? {
            source: tls.source,
            cert_file: tls.certFile,
            key_file: tls.keyFile,
            fingerprint_sha256: tls.fingerprint256,
            subject_alt_names: tls.subjectAltNames,
            valid_to: tls.validTo,
          }
        : null,
      public_url: this.o.network.publicUrl ?? null,
      allow_from: [...(this.o.network.allowFrom?.texts ?? [])],
      trust_proxy: [...(this.o.network.trustProxy?.texts ?? [])],
    };
  }

  /** Network problems a person should fix, as shown in the console and the desktop app. */
  warnings(): string[] {
    const clear = clearTextWarning(this.o.host, this.o.network);
    return [...(clear ? [clear] : []), ...(this.tls?.warnings() ?? [])];
  }
}
