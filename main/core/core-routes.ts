/**
 * The route table of the bridge's one server (server/network-endpoint.ts), http or
 * https/wss: the Card and the Skill stay public (spec §3); /health and the transfer plane
 * are xAgent planes (with /ws, the upgrade) that --allow-from guards; then the admin API and
 * the console. createCore passes the pieces in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BuildInfo } from './build-info';
import { AUTH_FLOWS } from './bindings/auth-handlers';
import { buildCard, type CardTool } from './protocol/card';
import { CONNECTOR_CARD_ID, CONNECTOR_VERSION, PROTOCOL_VERSION } from './protocol/identity';
import { renderSkill } from './protocol/skill';
import type { FileCache } from './files/file-cache';
import type { UrlSigner } from './files/signed-url';
import { handleDownload } from './files/download-handler';
import { handleUpload } from './files/upload-handler';
import { sendRefusal } from './server/admin-gate';
import { serveConsole } from './server/console-static';
import { sendError, sendJson, sendText } from './server/http-util';
import type { HttpRoutes } from './server/http-server';
import { bearerToken } from './secrets/secret-store';
import { clientAddressOf } from './server/network-access';
import { AdminGate } from './server/admin-gate';
import { AdminRouter } from './admin/admin-router';
import { NetworkEndpoint } from './server/network-endpoint';
import type { CoreOptions } from './config/core-options';
import type { EventHub } from './events/event-hub';
import type { Logger } from './logging/logger';
import { secretEquals } from './secrets/secret-store';
import { Later } from './lifecycle/later';

/** Where the console fetches approval screenshots (see the route). */
const CONSOLE_FILES_PREFIX = '/console/files/refs/';

export interface CoreRouteDeps {
  build: BuildInfo;
  /** The tools the Card and the Skill list. */
  cardTools: () => readonly CardTool[];
  /** True for the current system API key. */
  authorizeKey: (token: string | undefined) => boolean;
  /** Aborts when the key an upload was let in with is rotated away. */
  keyRevoked: () => AbortSignal;
  channelExists: (channelId: string) => boolean;
  files: FileCache;
  signer: UrlSigner;
  maxUploadBytes: number;
  admin: Pick<AdminRouter, 'handle' | 'admitsClient'>;
  /** Host, Origin and wrong-token lockout in front of the admin API and the console. */
  adminGate: Pick<AdminGate, 'checkRequest' | 'checkToken'>;
  /** GET /metrics (metrics/bridge-metrics.ts). */
  metrics: {
    render(): Promise<{ contentType: string; body: string }>;
    /** True with --allow-from: the clients it admits may scrape without a token. */
    openToAdmittedClients: boolean;
    adminToken(): string;
  };
  consoleDir: string | undefined;
  upgrade: HttpRoutes['upgrade'];
}

/** The routes, checked in order, and the /ws upgrade. */
export function coreRoutes(d: CoreRouteDeps): HttpRoutes {
  const card = (): Record<string, unknown> =>
    buildCard({ build: d.build, tools: d.cardTools(), authFlows: AUTH_FLOWS });
  const consoleHostRefused = (req: IncomingMessage, res: ServerResponse): boolean => {
    const refused = d.adminGate.checkRequest(req, { checkOrigin: false });
    if (refused) sendError(res, refused.status, refused.code, refused.message);
    return refused !== null;
  };
  return {
    routes: [
      { prefix: '/connector-card.json', exact: true, handler: (_req, res) => sendJson(res, 200, card()) },
      {
        prefix: '/skill.md',
        exact: true,
        handler: (_req, res) => sendText(res, 200, 'text/markdown; charset=utf-8', renderSkill(d.cardTools())),
      },
      {
        prefix: '/health',
        exact: true,
        xagentPlane: true,
        handler: (req, res) => {
          if (!d.authorizeKey(bearerToken(req.headers.authorization)))
            return sendError(res, 401, 'unauthorized', 'a valid system API key is required');
          sendJson(res, 200, {
            status: 'ok',
            connector_card_id: CONNECTOR_CARD_ID,
            connector_card_version: CONNECTOR_VERSION,
            protocol_version: PROTOCOL_VERSION,
            build: d.build,
          });
        },
      },
      {
        prefix: '/files/refs/',
        xagentPlane: true,
        handler: (req, res) => handleDownload(req, res, { cache: d.files, signer: d.signer }),
      },
      {
        prefix: '/files/uploads',
        exact: true,
        xagentPlane: true,
        bodyByProgress: true,
        handler: (req, res) =>
          handleUpload(req, res, {
            cache: d.files,
            authorize: (r) => d.authorizeKey(bearerToken(r.headers.authorization)),
            // Taken at the key check: an upload still running when the key rotates is refused.
            keyRevoked: d.keyRevoked,
            channelExists: d.channelExists,
            maxUploadBytes: d.maxUploadBytes,
          }),
      },
      {
        // Prometheus: behind the admin token (wrong tokens count toward the admin lockout), or
        // open to the clients --allow-from admits when it is set (the network gate ran already)
        // and the request names the bridge as the console's would.
        prefix: '/metrics',
        exact: true,
        xagentPlane: true,
        handler: async (req, res) => {
          if (req.method !== 'GET' && req.method !== 'HEAD')
            return sendError(res, 405, 'method_not_allowed', 'use GET', { Allow: 'GET, HEAD' });
          const token = bearerToken(req.headers.authorization);
          if (token === undefined && d.metrics.openToAdmittedClients) {
            // Open without a token, so only under the bridge's own names: a DNS-rebound page
            // (evil.example resolving to this machine) must not read it (#36 point 6).
            if (consoleHostRefused(req, res)) return;
          } else {
            const refused = d.adminGate.checkToken(clientAddressOf(req), token, d.metrics.adminToken());
            if (refused) return sendRefusal(res, refused);
          }
          const { contentType, body } = await d.metrics.render();
          res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
      },
      { prefix: '/admin/api/', handler: (req, res, url) => d.admin.handle(req, res, url) },
      {
        // Approval screenshots for the person at the console: signed like any download, but
        // gated like the console (loopback unless remote admin), not by --allow-from.
        prefix: CONSOLE_FILES_PREFIX,
        handler: (req, res) => {
          if (!d.admin.admitsClient(req))
            return sendError(res, 403, 'forbidden', 'the console answers loopback clients only');
          if (consoleHostRefused(req, res)) return;
          req.url = (req.url ?? '').slice('/console'.length);
          handleDownload(req, res, { cache: d.files, signer: d.signer });
        },
      },
      {
        prefix: '/console',
        handler: (req, res, url) =>
          consoleHostRefused(req, res) ? undefined : serveConsole(req, res, url, d.consoleDir),
      },
      {
        prefix: '/',
        exact: true,
        handler: (_req, res) =>
          sendText(res, 200, 'text/plain; charset=utf-8', 'xAgent Device Bridge — see /connector-card.json\n'),
      },
    ],
    upgrade: d.upgrade,
  };
}

export interface ServerPorts extends Pick<CoreRouteDeps, 'build' | 'files' | 'signer'> {
  options: Pick<
    CoreOptions,
    | 'host'
    | 'port'
    | 'dataDir'
    | 'network'
    | 'connections'
    | 'allowRemoteAdmin'
    | 'clock'
    | 'consoleDir'
    | 'maxUploadBytes'
  >;
  adminToken: string;
  /** The system API key: the planes let its holder in; an upload in flight ends when it is rotated away. */
  apiKey: { matches(token: string | undefined): boolean; revokedSignal(): AbortSignal };
  /** The tools the Card and the Skill list. */
  tools: { cardTools(): readonly CardTool[] };
  runtime: { channel(channelId: string): unknown };
  /** xAgent's WebSocket upgrade (server/data-plane.ts). */
  plane: { handleUpgrade: HttpRoutes['upgrade'] };
  hub: EventHub;
  metrics: Pick<CoreRouteDeps['metrics'], 'render'>;
  logger: Logger;
}

/**
 * The bridge's one server with every plane on it: the admin API's router behind its gate (Host,
 * Origin and wrong-token lockout: DNS rebinding, cross-site calls), and the routes above.
 */
export function wireServer(ports: ServerPorts): { endpoint: NetworkEndpoint; admin: AdminRouter } {
  const { options, adminToken } = ports;
  const clock = options.clock ? { clock: options.clock } : {};
  // The gate reads the port the endpoint listens on, once it listens.
  const later = new Later<NetworkEndpoint>('the network endpoint');
  const adminGate = new AdminGate({
    listenHost: () => options.host,
    listenPort: () => later.get().listeningPort(),
    publicUrl: () => options.network.publicUrl,
    ...clock,
  });
  const admin = new AdminRouter({
    adminToken: () => adminToken,
    allowRemote: options.allowRemoteAdmin,
    hub: ports.hub,
    gate: adminGate,
  });
  const endpoint = later.set(
    new NetworkEndpoint({
      host: options.host,
      port: options.port,
      dataDir: options.dataDir,
      network: options.network,
      connections: options.connections,
      authenticated: (req) => {
        const token = bearerToken(req.headers.authorization);
        return token !== undefined && (ports.apiKey.matches(token) || secretEquals(token, adminToken));
      },
      logger: ports.logger,
      ...clock,
      routes: coreRoutes({
        build: ports.build,
        cardTools: () => ports.tools.cardTools(),
        authorizeKey: (token) => ports.apiKey.matches(token),
        keyRevoked: () => ports.apiKey.revokedSignal(),
        channelExists: (id) => ports.runtime.channel(id) !== undefined,
        files: ports.files,
        signer: ports.signer,
        maxUploadBytes: options.maxUploadBytes,
        admin,
        adminGate,
        metrics: {
          render: () => ports.metrics.render(),
          // Without --allow-from anyone may reach the bridge's port, so a scrape needs the admin token.
          openToAdmittedClients: options.network.allowFrom !== undefined,
          adminToken: () => adminToken,
        },
        consoleDir: options.consoleDir,
        upgrade: (req, socket, head, token) => ports.plane.handleUpgrade(req, socket, head, token),
      }),
    }),
  );
  return { endpoint, admin };
}
