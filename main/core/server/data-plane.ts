/**
 * The WebSocket data plane (spec §6–§8): upgrade checks (path, bearer key, subprotocol, a
 * connection cap), frame limits, heartbeat, hello gating and per-connection channel routes.
 * Packet types beyond the handshake are registered by the services that own them.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { BridgeError, toWireError, type ErrorCode } from '../errors';
import type { Logger } from '../logging/logger';
import { makePacket, makeReply, parseEnvelope, type Envelope, type OutgoingPacket } from '../protocol/envelope';
import { CONNECTOR_CARD_ID, PROTOCOL_VERSION, WS_SUBPROTOCOL } from '../protocol/identity';
import type { ConnectorRuntime } from '../runtime/connector-runtime';
import { refuseSocket } from './connection-limits';
import { clientAddressOf } from './network-access';
import type { PersistedChannel } from '../store/state-store';

export interface DataPlaneLimits {
  maxFrameBytes: number;
  maxConnections: number;
  heartbeatMs: number;
  /** A peer that does not read: past this many buffered bytes it is dropped. */
  maxBufferedBytes: number;
  /**
   * A channel another data plane holds is handed over only when that plane does not answer
   * a ping within this long (a dropped network); a live holder keeps it (`channel_in_use`).
   */
  claimProbeMs: number;
}

export const DEFAULT_DATA_PLANE_LIMITS: DataPlaneLimits = {
  maxFrameBytes: 1024 * 1024,
  maxConnections: 64,
  heartbeatMs: 30_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  claimProbeMs: 3_000,
};

/**
 * WebSocket close code of a data plane whose API key was rotated away (an application code,
 * RFC 6455 §7.4.2). xAgent must reconnect with the new key; the old one is refused 401.
 */
export const CLOSE_API_KEY_ROTATED = 4401;
export const CLOSE_API_KEY_ROTATED_REASON = 'api key rotated';
/** The bridge is stopping (RFC 6455 §7.4.1 "going away"): xAgent may reconnect once it is back. */
export const CLOSE_GOING_AWAY = 1001;
/** How long a peer has to answer the closing handshake before its socket is cut at stop. */
const CLOSE_HANDSHAKE_MS = 1_000;

export interface UserPacketContext {
  connection: DataPlaneConnection;
  packet: Envelope;
  channel: PersistedChannel;
  payload: Record<string, unknown>;
}

export type UserPacketHandler = (ctx: UserPacketContext) => Promise<void> | void;

export interface DataPlaneOptions {
  runtime: ConnectorRuntime;
  authorize: (token: string | undefined) => boolean;
  /** The generation of the key `authorize` checks against; rotation closes older connections. */
  keyGeneration?: () => number;
  describe: (channel: PersistedChannel) => Record<string, unknown>;
  /** A connection was refused for its key (none, or a wrong one): the person is told (server/refused-keys.ts). */
  refusedKey?: (address: string, given: boolean) => void;
  logger: Logger;
  limits?: Partial<DataPlaneLimits>;
}

/** One authenticated WebSocket from xAgent. */
export class DataPlaneConnection {
  connectorId: string | undefined;
  /** channel id → open sequence number; pushes go to the most recent opener. */
  readonly openChannels = new Map<string, number>();
  /** Set when the connection is being closed for a reason of ours: no later frame is processed. */
  revoked = false;

  constructor(
    readonly id: number,
    private readonly socket: WebSocket,
    private readonly plane: DataPlane,
    /** The API key generation this connection was authorized with. */
    readonly keyGeneration: number,
    /** The client's address (behind a --trust-proxy proxy: the client's): who guesses access codes. */
    readonly clientAddress: string,
  ) {}

  get helloDone(): boolean {
    return this.connectorId !== undefined;
  }

  send(packet: OutgoingPacket): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount > this.plane.limits.maxBufferedBytes) {
      this.socket.terminate();
      return false;
    }
    this.socket.send(JSON.stringify(packet));
    return true;
  }

  reply(request: Envelope, type: string, body: Parameters<typeof makeReply>[2]): void {
    this.send(makeReply(request, type, body));
  }

  replyError(request: Envelope, code: ErrorCode, message: string): void {
    this.reply(request, 'error', { error: { code, message } });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  /** True when the peer answers a ping within `timeoutMs`; false when it does not or the socket ends. */
  probe(timeoutMs: number): Promise<boolean> {
    const socket = this.socket;
    if (socket.readyState !== socket.OPEN || this.revoked) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (alive: boolean): void => {
        clearTimeout(timer);
        socket.off('pong', onPong);
        socket.off('close', onClose);
        resolve(alive);
      };
      const onPong = (): void => done(true);
      const onClose = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      socket.on('pong', onPong);
      socket.once('close', onClose);
      socket.ping();
    });
  }

  /** Drops a connection that stopped answering, without a closing handshake it would not read. */
  terminate(): void {
    this.revoked = true;
    this.plane.forgetChannelsOf(this);
    this.socket.terminate();
  }

  /** Closes with `code` and stops processing this connection's frames from now on. */
  revoke(code: number, reason: string): void {
    if (this.revoked) return;
    this.revoked = true;
    this.plane.forgetChannelsOf(this);
    this.socket.close(code, reason);
  }
}

export class DataPlane {
  readonly limits: DataPlaneLimits;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<DataPlaneConnection>();
  private readonly handlers = new Map<string, UserPacketHandler>();
  private heartbeat: NodeJS.Timeout | undefined;
  private nextId = 1;
  private openSeq = 1;
  private readonly alive = new WeakMap<WebSocket, boolean>();
  private closed = false;

  constructor(private readonly options: DataPlaneOptions) {
    this.limits = { ...DEFAULT_DATA_PLANE_LIMITS, ...options.limits };
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.limits.maxFrameBytes,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : false),
    });
  }

  start(): void {
    this.heartbeat = setInterval(() => this.sweep(), this.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    // A going-away close tells xAgent the bridge stopped (not a network fault, code 1006); a
    // peer that does not answer the handshake in time is cut off, so a stop never hangs.
    const open = [...this.wss.clients];
    const closed = open.map(
      (ws) =>
        new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()))),
    );
    for (const ws of open) ws.close(CLOSE_GOING_AWAY, 'the bridge is stopping');
    let deadline: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(closed),
      new Promise<void>((resolve) => (deadline = setTimeout(resolve, CLOSE_HANDSHAKE_MS))),
    ]);
    clearTimeout(deadline);
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  /** Registers the handler of a user-level packet type (hello and channel checks done first). */
  on(type: string, handler: UserPacketHandler): void {
    this.handlers.set(type, handler);
  }

  connectionCount(): number {
    return this.connections.size;
  }

  /**
   * After an API key rotation: every data plane authorized with an older key is closed with
   * CLOSE_API_KEY_ROTATED, and frames it still sends are dropped. Returns how many.
   */
  closeKeyGenerationsBelow(generation: number): number {
    let closed = 0;
    for (const connection of this.connections) {
      if (connection.keyGeneration >= generation || connection.revoked) continue;
      connection.revoke(CLOSE_API_KEY_ROTATED, CLOSE_API_KEY_ROTATED_REASON);
      closed += 1;
    }
    if (closed > 0) this.options.logger.info('data planes closed after an API key rotation', { closed });
    return closed;
  }

  /** True while a live data plane has the channel open. */
  isChannelHeld(channelId: string): boolean {
    for (const connection of this.connections)
      if (!connection.revoked && connection.openChannels.has(channelId)) return true;
    return false;
  }

  /** A revoked connection routes nothing: pushes go elsewhere or wait for a reconnect. */
  forgetChannelsOf(connection: DataPlaneConnection): void {
    connection.openChannels.clear();
  }

  /**
   * Sends a Connector-initiated packet for a channel to the connection that has it open
   * (most recent first); returns false when no route exists.
   */
  pushToChannel(channelId: string, type: string, payload: Record<string, unknown>): boolean {
    const routes = [...this.connections]
      .filter((c) => c.openChannels.has(channelId))
      .sort((a, b) => (b.openChannels.get(channelId) ?? 0) - (a.openChannels.get(channelId) ?? 0));
    for (const connection of routes) {
      if (connection.send(makePacket({ type, connector_channel_id: channelId, payload }))) return true;
    }
    return false;
  }

  /** HTTP upgrade: every check happens before a WebSocket exists. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, token: string | undefined): void {
    const refuse = (status: number, code: string, message: string): void => {
      const body = JSON.stringify({ error: { code, message } });
      refuseSocket(
        socket,
        `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 503 ? 'Service Unavailable' : 'Bad Request'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    if (this.closed) return refuse(503, 'unavailable', 'server is stopping');
    if (!this.options.authorize(token)) {
      this.options.refusedKey?.(clientAddressOf(req), token !== undefined);
      return refuse(401, 'unauthorized', 'a valid system API key is required');
    }
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    if (!protocols.includes(WS_SUBPROTOCOL))
      return refuse(400, 'subprotocol_required', `subprotocol ${WS_SUBPROTOCOL} is required`);
    if (this.connections.size >= this.limits.maxConnections)
      return refuse(503, 'too_many_connections', 'too many data planes');
    // Taken with the key check: a rotation between here and accept still closes this one.
    const generation = this.options.keyGeneration?.() ?? 0;
    const address = clientAddressOf(req);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, generation, address));
  }

  private accept(ws: WebSocket, keyGeneration: number, clientAddress: string): void {
    const connection = new DataPlaneConnection(this.nextId++, ws, this, keyGeneration, clientAddress);
    this.connections.add(connection);
    this.alive.set(ws, true);
    if ((this.options.keyGeneration?.() ?? 0) > keyGeneration)
      connection.revoke(CLOSE_API_KEY_ROTATED, CLOSE_API_KEY_ROTATED_REASON);
    ws.on('pong', () => this.alive.set(ws, true));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      // Closing for a reason of ours (the key was rotated): what the peer still sends is not acted on.
      if (connection.revoked) return;
      if (isBinary) {
        connection.send(
          makePacket({
            type: 'error',
            error: { code: 'invalid_packet', message: 'binary frames are not accepted; send JSON text frames' },
          }),
        );
        return;
      }
      void this.dispatch(connection, rawToString(data));
    });
    ws.on('error', (error) => {
      const code = (error as { code?: string }).code;
      this.options.logger.debug('data plane socket error', { connection: connection.id, error: code ?? error.message });
    });
    ws.on('close', () => {
      this.connections.delete(connection);
      if (connection.connectorId) this.options.runtime.detachDataPlane(connection);
    });
  }

  private sweep(): void {
    for (const ws of this.wss.clients) {
      if (this.alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      ws.ping();
    }
  }

  private async dispatch(connection: DataPlaneConnection, text: string): Promise<void> {
    const parsed = parseEnvelope(text);
    if (!parsed.ok) {
      connection.send(
        makePacket({
          type: 'error',
          ...(parsed.requestId ? { request_id: parsed.requestId } : {}),
          ...(parsed.packetId ? { reply_to: parsed.packetId } : {}),
          ...(parsed.channelId ? { connector_channel_id: parsed.channelId } : {}),
          error: { code: 'invalid_packet', message: parsed.message },
        }),
      );
      return;
    }
    const packet = parsed.packet;
    try {
      await this.route(connection, packet);
    } catch (error) {
      const wire = toWireError(error);
      if (wire.code === 'internal_error')
        this.options.logger.error('packet handler failed', { type: packet.type, error: String(error) });
      connection.replyError(packet, wire.code, wire.message);
    }
  }

  private async route(connection: DataPlaneConnection, packet: Envelope): Promise<void> {
    if (packet.type === 'connector.hello') return this.hello(connection, packet);
    if (packet.type === 'ping') {
      connection.reply(packet, 'pong', {});
      return;
    }
    if (!connection.helloDone)
      throw new BridgeError('hello_required', 'connector.hello must complete before any other packet');
    if (packet.type === 'channel.open') return this.openChannel(connection, packet);
    const builtIn = packet.type === 'channel.close' || packet.type === 'connection.descriptor.get';
    const handler = builtIn ? undefined : this.handlers.get(packet.type);
    if (!builtIn && !handler) {
      throw new BridgeError('unsupported_packet', `packet type ${packet.type.slice(0, 64)} is not supported`);
    }
    const channelId = packet.connector_channel_id;
    if (!channelId)
      throw new BridgeError(
        'connector_channel_id_required',
        `${packet.type} needs connector_channel_id in the envelope`,
      );
    const channel = this.options.runtime.channel(channelId);
    if (!channel || !connection.openChannels.has(channelId)) {
      throw new BridgeError('channel_not_open', `channel.open must complete before ${packet.type}`);
    }
    if (packet.type === 'channel.close') {
      connection.openChannels.delete(channelId);
      connection.reply(packet, 'channel.close.ack', { payload: { status: 'ok' } });
      return;
    }
    if (packet.type === 'connection.descriptor.get') {
      connection.reply(packet, 'connection.descriptor.get.ack', {
        payload: { connection_descriptor: this.options.describe(channel) },
      });
      return;
    }
    await handler!({ connection, packet, channel, payload: packet.payload ?? {} });
  }

  private hello(connection: DataPlaneConnection, packet: Envelope): void {
    const payload = packet.payload ?? {};
    const cardId = payload.connector_card_id;
    if (typeof cardId !== 'string' || cardId !== CONNECTOR_CARD_ID) {
      throw new BridgeError('connector_card_id_mismatch', `this connector is ${CONNECTOR_CARD_ID}`);
    }
    const version = payload.protocol_version;
    if (typeof version !== 'string' || !isSupportedVersion(version)) {
      throw new BridgeError(
        'protocol_version_unsupported',
        `protocol_version ${PROTOCOL_VERSION} or newer is required`,
      );
    }
    const profiles = payload.supported_profiles;
    if (!Array.isArray(profiles) || !profiles.every((p) => typeof p === 'string')) {
      throw new BridgeError('invalid_packet', 'supported_profiles must be a list of profile ids');
    }
    const requested =
      typeof payload.connector_id === 'string' && payload.connector_id ? payload.connector_id : undefined;
    const { connectorId } = this.options.runtime.acceptHello(requested);
    if (connection.connectorId !== connectorId) {
      if (connection.connectorId) this.options.runtime.detachDataPlane(connection);
      connection.connectorId = connectorId;
      this.options.runtime.attachDataPlane(connection);
    }
    connection.reply(packet, 'connector.hello.ack', {
      payload: { connector_card_id: CONNECTOR_CARD_ID, connector_id: connectorId, protocol_version: PROTOCOL_VERSION },
    });
  }

  /**
   * A live channel is never taken silently: another data plane holding it keeps it when it
   * answers a ping (`channel_in_use`); one that stays silent for `claimProbeMs` is gone (a
   * dropped network xAgent is reconnecting from) and is dropped, and the hand-over is logged.
   */
  private async claim(connection: DataPlaneConnection, channelId: string): Promise<void> {
    const holders = [...this.connections].filter(
      (c) => c !== connection && !c.revoked && c.openChannels.has(channelId),
    );
    for (const holder of holders) {
      if (await holder.probe(this.limits.claimProbeMs)) {
        throw new BridgeError(
          'channel_in_use',
          'another live data plane holds this channel: close it there (channel.close) or end that connection first',
        );
      }
      this.options.logger.warn('channel handed over from a data plane that stopped answering', {
        channel: channelId,
        from_connection: holder.id,
        to_connection: connection.id,
      });
      holder.terminate();
    }
  }

  private async openChannel(connection: DataPlaneConnection, packet: Envelope): Promise<void> {
    const requested = packet.connector_channel_id || undefined;
    if (requested && this.options.runtime.channel(requested)) await this.claim(connection, requested);
    if (connection.revoked) return;
    const { channel } = this.options.runtime.openChannel(requested);
    connection.openChannels.set(channel.id, this.openSeq++);
    connection.reply(packet, 'channel.open.ack', {
      connector_channel_id: channel.id,
      payload: { connector_channel_id: channel.id, connection_descriptor: this.options.describe(channel) },
    });
  }
}

function isSupportedVersion(version: string): boolean {
  const match = /^(\d+)\.(\d+)$/.exec(version.trim());
  if (!match) return false;
  const major = Number(match[1]);
  return major >= 3;
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
