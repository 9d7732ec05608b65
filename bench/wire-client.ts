/**
 * A lean xAgent-side client for timing: the same packets as test/helpers/xagent-client.ts
 * (hello, channel.open, auth.*, tool.invoke, matched by request_id) but without validating
 * every received packet against the JSON Schemas. That validation costs the test client
 * about 0.4 ms per packet, which would be charged to the bridge in a latency figure.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

export interface WirePacket {
  type: string;
  request_id?: string;
  connector_channel_id?: string;
  payload?: Record<string, any>;
  error?: { code: string; message?: string };
}

export class WireClient {
  private readonly waiters = new Map<string, (p: WirePacket) => void>();
  private sequence = 0;
  private readonly prefix = randomUUID().slice(0, 8);

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const packet = JSON.parse((data as Buffer).toString('utf8')) as WirePacket;
      if (!packet.request_id || packet.type === 'tool.progress.push') return;
      const waiter = this.waiters.get(packet.request_id);
      if (waiter) {
        this.waiters.delete(packet.request_id);
        waiter(packet);
      }
    });
    ws.on('close', () => {
      for (const waiter of this.waiters.values())
        waiter({ type: 'closed', error: { code: 'closed', message: 'the WebSocket closed' } });
      this.waiters.clear();
    });
  }

  static async connect(baseUrl: string, apiKey: string): Promise<WireClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, 'xagent.connector.packet.v1', {
      headers: { Authorization: `Bearer ${apiKey}` },
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    const client = new WireClient(ws);
    const hello = await client.request('connector.hello', {
      connector_card_id: 'device.adb',
      connector_id: '',
      protocol_version: '3.0',
      supported_profiles: ['xagent.device.v1'],
    });
    if (hello.type !== 'connector.hello.ack') throw new Error(`hello refused: ${JSON.stringify(hello.error)}`);
    return client;
  }

  request(type: string, payload: Record<string, unknown>, channelId?: string, timeoutMs = 60_000): Promise<WirePacket> {
    this.sequence += 1;
    const requestId = `req_${this.prefix}_${this.sequence}`;
    const packet = {
      schema: 'xagent.connector.packet/v1',
      packet_id: `pkt_${this.prefix}_${this.sequence}`,
      request_id: requestId,
      type,
      time: Date.now(),
      payload,
      ...(channelId !== undefined ? { connector_channel_id: channelId } : {}),
    };
    return new Promise<WirePacket>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        reject(new Error(`no reply to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(requestId, (p) => {
        clearTimeout(timer);
        resolve(p);
      });
      this.ws.send(JSON.stringify(packet));
    });
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    this.ws.close();
    await closed;
  }
}
