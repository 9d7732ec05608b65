/**
 * The packet envelope (spec §7): parsing at the edge with the contract's envelope schema, and
 * builders for what we send.
 * Everything we send goes through `makePacket`, so every outgoing packet has the same shape.
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import {
  formatIssue,
  MAX_PACKET_TYPE_LENGTH,
  MAX_WIRE_ID_LENGTH,
  packetEnvelopeSchema,
  PACKET_SCHEMA,
  type PacketEnvelope,
} from '../../contract/wire-schemas';
import type { WireError } from '../errors';

export type Envelope = PacketEnvelope;

export interface OutgoingPacket {
  schema: typeof PACKET_SCHEMA;
  packet_id: string;
  request_id?: string;
  reply_to?: string;
  connector_channel_id?: string;
  type: string;
  time: number;
  payload?: Record<string, unknown>;
  error?: WireError;
}

export type ParseResult =
  | { ok: true; packet: Envelope }
  | {
      ok: false;
      message: string;
      packetId?: string | undefined;
      requestId?: string | undefined;
      channelId?: string | undefined;
    };

/** Objects/arrays nested deeper than this make a packet invalid. */
export const MAX_PACKET_DEPTH = 64;

/** Iterative (no recursion, so no stack to overflow) depth check of a parsed JSON value. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ node: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ node: value, depth: 1 });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child as object, depth: depth + 1 });
    }
  }
  return false;
}

const isId = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_WIRE_ID_LENGTH;

/**
 * The envelope of a packet that is plainly well formed, as `packetEnvelopeSchema` returns it
 * (the same fields, unknown ones dropped), or null to let the schema decide and say why. Every
 * packet takes this path, and the schema's generic walk is a good part of a tap's own time
 * when it runs cold, between an agent's calls; only what the schema surely accepts passes here
 * (a test holds the two to the same answers).
 */
function plainEnvelope(r: Record<string, unknown>): PacketEnvelope | null {
  const { packet_id, request_id, reply_to, connector_channel_id, type, time, payload, error } = r;
  if (r.schema !== PACKET_SCHEMA || !isId(packet_id) || packet_id.length === 0) return null;
  if (typeof type !== 'string' || type.length === 0 || type.length > MAX_PACKET_TYPE_LENGTH) return null;
  if (request_id !== undefined && !isId(request_id)) return null;
  if (reply_to !== undefined && !isId(reply_to)) return null;
  if (connector_channel_id !== undefined && !isId(connector_channel_id)) return null;
  if (time !== undefined && !(Number.isSafeInteger(time) && (time as number) >= 0)) return null;
  // A payload key "__proto__" is the schema's to handle (its record copy treats it apart).
  if (payload !== undefined && !(isPlainRecord(payload) && !Object.hasOwn(payload, '__proto__'))) return null;
  let wireError: PacketEnvelope['error'];
  if (error !== undefined) {
    if (!isPlainRecord(error) || typeof error.code !== 'string' || error.code.length === 0) return null;
    if (error.message !== undefined && typeof error.message !== 'string') return null;
    wireError = error.message === undefined ? { code: error.code } : { code: error.code, message: error.message };
  }
  const packet: PacketEnvelope = { schema: PACKET_SCHEMA, packet_id, type };
  if (request_id !== undefined) packet.request_id = request_id;
  if (reply_to !== undefined) packet.reply_to = reply_to;
  if (connector_channel_id !== undefined) packet.connector_channel_id = connector_channel_id;
  if (time !== undefined) packet.time = time as number;
  if (payload !== undefined) packet.payload = { ...payload };
  if (wireError) packet.error = wireError;
  return packet;
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Parses one text frame. Never throws; reports what could be salvaged for the error reply. */
export function parseEnvelope(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, message: 'frame is not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, message: 'packet must be a JSON object' };
  }
  const record = raw as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (isId(v) ? v : undefined);
  // JSON.parse copes with any depth, but the recursive code behind it (argument hashing,
  // schema checks) overflows the stack on a few thousand levels (found by the hardening fuzz:
  // an internal_error). No packet of ours is deep, so refuse deep ones here, at the edge.
  if (nestedDeeperThan(raw, MAX_PACKET_DEPTH)) {
    return {
      ok: false,
      message: `packet is nested deeper than ${MAX_PACKET_DEPTH} levels`,
      packetId: str(record.packet_id),
      requestId: str(record.request_id),
      channelId: str(record.connector_channel_id),
    };
  }
  const plain = plainEnvelope(record);
  if (plain) return { ok: true, packet: plain };
  const result = packetEnvelopeSchema.safeParse(raw);
  if (result.success) return { ok: true, packet: result.data };
  const issue = result.error.issues[0];
  return {
    ok: false,
    message: `invalid envelope: ${issue ? formatIssue(issue) : 'invalid'}`.slice(0, 300),
    packetId: str(record.packet_id),
    requestId: str(record.request_id),
    channelId: str(record.connector_channel_id),
  };
}

/**
 * Random bytes for ids, drawn from one CSPRNG buffer refilled per 4 KiB (as crypto.randomUUID
 * pools its own): every call mints several ids (its packets, timeline entry and audit line),
 * and a sync randomBytes costs microseconds each on the call's path. Each byte is used once.
 * Ids only: a secret is never made here.
 */
const ID_POOL = Buffer.alloc(4096);
let idPoolUsed = ID_POOL.length;

export function newId(prefix: string, bytes = 12): string {
  if (bytes > ID_POOL.length) return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
  if (idPoolUsed + bytes > ID_POOL.length) {
    randomFillSync(ID_POOL);
    idPoolUsed = 0;
  }
  const id = ID_POOL.toString('base64url', idPoolUsed, idPoolUsed + bytes);
  idPoolUsed += bytes;
  return `${prefix}_${id}`;
}

export function makePacket(
  fields: Omit<OutgoingPacket, 'schema' | 'packet_id' | 'time'> & { time?: number },
): OutgoingPacket {
  const packet: OutgoingPacket = {
    schema: PACKET_SCHEMA,
    packet_id: newId('pkt'),
    type: fields.type,
    time: fields.time ?? Date.now(),
  };
  if (fields.request_id !== undefined) packet.request_id = fields.request_id;
  if (fields.reply_to !== undefined) packet.reply_to = fields.reply_to;
  if (fields.connector_channel_id !== undefined) packet.connector_channel_id = fields.connector_channel_id;
  if (fields.payload !== undefined) packet.payload = fields.payload;
  if (fields.error !== undefined) packet.error = fields.error;
  return packet;
}

/** An ack for `request`: same request_id, reply_to its packet_id, same channel. */
export function makeReply(
  request: Envelope,
  type: string,
  body: { payload?: Record<string, unknown>; error?: WireError; connector_channel_id?: string },
): OutgoingPacket {
  const channel = body.connector_channel_id ?? request.connector_channel_id;
  return makePacket({
    type,
    request_id: request.request_id ?? request.packet_id,
    reply_to: request.packet_id,
    ...(channel ? { connector_channel_id: channel } : {}),
    ...(body.payload ? { payload: body.payload } : {}),
    ...(body.error ? { error: body.error } : {}),
  });
}
