/**
 * A test client that behaves like xAgent's backend on the data plane, following the spec:
 * hello first, request/ack matching by request_id, pushes collected per type, and every
 * packet it receives validated against the project's packet schema (main/contract/).
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { validatePacket } from './schemas';

export interface Packet {
  schema: string;
  packet_id: string;
  request_id?: string;
  reply_to?: string;
  connector_channel_id?: string;
  type: string;
  time?: number;
  payload?: Record<string, unknown>;
  error?: { code: string; message?: string; fix?: string };
}

export class XAgentClient {
  readonly received: Packet[] = [];
  readonly invalid: Array<{ packet: unknown; errors: string[] }> = [];
  private readonly waiters = new Map<string, (p: Packet) => void>();
  private readonly listeners = new Set<(p: Packet) => void>();
  connectorId = '';

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const packet = JSON.parse((data as Buffer).toString('utf8')) as Packet;
      const errors = validatePacket(packet);
      if (errors.length) this.invalid.push({ packet, errors });
      this.received.push(packet);
      const waiter = packet.request_id ? this.waiters.get(packet.request_id) : undefined;
      if (waiter && packet.type !== 'tool.progress.push') {
        this.waiters.delete(packet.request_id ?? '');
        waiter(packet);
      }
      for (const listener of this.listeners) listener(packet);
    });
  }

  /** `ca`: over wss, the only CA the client trusts. */
  static async connect(
    baseUrl: string,
    apiKey: string,
    options: { protocol?: string; ca?: string } = {},
  ): Promise<XAgentClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, options.protocol ?? 'xagent.connector.packet.v1', {
      headers: { Authorization: `Bearer ${apiKey}` },
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    });
    const client = new XAgentClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return client;
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  async request(
    type: string,
    payload: Record<string, unknown> = {},
    channelId?: string,
    timeoutMs = 15_000,
  ): Promise<Packet> {
    const requestId = `req_${randomUUID()}`;
    const packet: Packet = {
      schema: 'xagent.connector.packet/v1',
      packet_id: `pkt_${randomUUID()}`,
      request_id: requestId,
      type,
      time: Date.now(),
      payload,
      ...(channelId !== undefined ? { connector_channel_id: channelId } : {}),
    };
    const reply = new Promise<Packet>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        reject(new Error(`no reply to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(requestId, (p) => {
        clearTimeout(timer);
        resolve(p);
      });
    });
    this.ws.send(JSON.stringify(packet));
    return reply;
  }

  async hello(connectorId = ''): Promise<Packet> {
    const ack = await this.request('connector.hello', {
      connector_card_id: 'device.adb',
      connector_id: connectorId,
      protocol_version: '3.0',
      supported_profiles: ['xagent.device.v1'],
    });
    if (ack.type === 'connector.hello.ack') this.connectorId = (ack.payload?.connector_id as string | undefined) ?? '';
    return ack;
  }

  async openChannel(channelId = ''): Promise<Packet> {
    return this.request('channel.open', {}, channelId);
  }

  /** Resolves with the first packet (already received or future) matching `match`. */
  waitFor(match: (p: Packet) => boolean, timeoutMs = 10_000, fromIndex = 0): Promise<Packet> {
    const existing = this.received.slice(fromIndex).find(match);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error('timed out waiting for packet'));
      }, timeoutMs);
      const listener = (p: Packet): void => {
        if (!match(p)) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(p);
      };
      this.listeners.add(listener);
    });
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    this.ws.close();
    await closed;
  }
}
