/**
 * What the Connector sends on the data plane (spec §8), packet type by packet type: whether it
 * answers a request (request_id and reply_to) or is pushed to a channel, whether it belongs to
 * a channel, and the shape of its payload, down to tool results (Device Profile §6: media goes
 * through the transfer plane as file_ref + download_url, never inline). `outgoingPacketSchema`
 * checks one whole packet; tests run it on every packet the bridge sends.
 */
import { z } from 'zod';
import {
  connectionDescriptorSchema,
  nonEmptyString,
  packetEnvelopeSchema,
  PROTOCOL_VERSION,
  toolIdSchema,
  wireErrorSchema,
} from './wire-schemas';

const epochMs = z.number().int().min(0);

// ---- tool results ----------------------------------------------------------------------------

/** A file handed to xAgent: a ref and a short-lived download URL on the transfer plane (§5.2). */
export const deliveredFileSchema = z.object({
  file_ref: nonEmptyString,
  download_url: z.string().regex(/^(\/|https?:\/\/)/, 'download_url is a path on the Connector or an http(s) URL'),
  mime_type: nonEmptyString,
  byte_size: z.number().int().min(0),
  expires_at: epochMs,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 is 64 lowercase hex digits'),
});

export type DeliveredFile = z.infer<typeof deliveredFileSchema>;

/** Strings this long made only of base64 characters are file bytes, which never travel inline. */
const INLINE_BYTES_MIN_LENGTH = 1024;
const BASE64_RUN = /^[A-Za-z0-9+/=_\r\n-]+$/;

/** Paths (within `value`) of strings that carry file bytes: data: URLs and long base64 runs. */
function inlineBytesPaths(value: unknown): Array<Array<string | number>> {
  const found: Array<Array<string | number>> = [];
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (/^data:[^,]*;base64,/i.test(node) || (node.length >= INLINE_BYTES_MIN_LENGTH && BASE64_RUN.test(node)))
        found.push(path);
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push({ node: child, path: [...path, i] }));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) stack.push({ node: child, path: [...path, key] });
    }
  }
  return found;
}

/** A tool's `result`: an object, without file bytes inside (the Card's output_schema says the rest). */
export const toolResultSchema = z.record(z.string(), z.unknown()).superRefine((result, ctx) => {
  for (const path of inlineBytesPaths(result)) {
    ctx.addIssue({ code: 'custom', message: 'file bytes travel as file_ref + download_url, never inline', path });
  }
});

// ---- payloads of the packets the Connector sends ---------------------------------------------

const AUTH_START_STATUSES = [
  'pending',
  'scanned',
  'authenticated',
  'expired',
  'qr_refresh_required',
  'failed',
] as const;
const AUTH_STATUS_STATUSES = [...AUTH_START_STATUSES, 'unauthenticated'] as const;

/** §8.8 / §8.10: the state of one authentication session. */
function authSessionPayload(statuses: readonly [string, ...string[]]) {
  return z.object({
    connector_channel_id: nonEmptyString,
    flow_id: nonEmptyString,
    auth_session_id: nonEmptyString.optional(),
    status: z.enum(statuses),
    qr_code_text: z.string().optional(),
    qr_code_image: z.string().optional(),
    expires_at: epochMs.optional(),
    poll_interval_millis: z.number().int().positive().optional(),
    message: z.string().optional(),
    connection_descriptor: connectionDescriptorSchema.optional(),
  });
}

const descriptorPayload = z.object({ connection_descriptor: connectionDescriptorSchema });

const PAYLOADS = {
  'connector.hello.ack': z.object({
    connector_card_id: nonEmptyString,
    connector_id: nonEmptyString,
    protocol_version: z.literal(PROTOCOL_VERSION),
  }),
  'channel.open.ack': z.object({
    connector_channel_id: nonEmptyString,
    connection_descriptor: connectionDescriptorSchema,
  }),
  'channel.close.ack': z.object({ status: z.literal('ok') }),
  'auth.start.ack': authSessionPayload(AUTH_START_STATUSES),
  'auth.status.ack': authSessionPayload(AUTH_STATUS_STATUSES).refine(
    (p) => p.status !== 'authenticated' || p.connection_descriptor !== undefined,
    {
      message: 'an authenticated session answers with the connection_descriptor',
      path: ['connection_descriptor'],
    },
  ),
  'auth.cancel.ack': z.object({
    connector_channel_id: nonEmptyString,
    auth_session_id: z.string(),
    status: z.enum(['canceled', 'ignored', 'not_found']),
    auth_status: z.string().optional(),
    message: z.string().optional(),
    connection_descriptor: connectionDescriptorSchema.optional(),
  }),
  'auth.logout.ack': z.object({ status: z.literal('ok'), connection_descriptor: connectionDescriptorSchema }),
  'connection.descriptor.get.ack': descriptorPayload,
  'connection.descriptor.push': descriptorPayload,
  'tool.invoke.ack': z.object({ tool_id: toolIdSchema, result: toolResultSchema }),
  'tool.progress.push': z.object({
    tool_id: toolIdSchema,
    status: nonEmptyString,
    message: z.string().optional(),
    progress: z.number().min(0).max(1).optional(),
  }),
  pong: z.record(z.string(), z.unknown()),
} as const;

/**
 * How each packet type travels. `answer`: carries the request's request_id and reply_to, and
 * either a payload or an error. `push`: Connector-initiated, always a payload. `error` (§8.23):
 * always an error.
 */
type Delivery = 'answer' | 'push' | 'error';

interface PacketRule {
  delivery: Delivery;
  /** A user-level packet: the envelope names its channel. */
  channel: boolean;
  payload?: z.ZodType;
}

export const OUTGOING_PACKET_TYPES = [
  'connector.hello.ack',
  'channel.open.ack',
  'channel.close.ack',
  'auth.start.ack',
  'auth.status.ack',
  'auth.cancel.ack',
  'auth.logout.ack',
  'connection.descriptor.get.ack',
  'connection.descriptor.push',
  'tool.invoke.ack',
  'tool.progress.push',
  'pong',
  'error',
] as const;

export type OutgoingPacketType = (typeof OUTGOING_PACKET_TYPES)[number];

function ruleOf(type: OutgoingPacketType): PacketRule {
  if (type === 'error') return { delivery: 'error', channel: false };
  const payload = PAYLOADS[type];
  if (type === 'connection.descriptor.push' || type === 'tool.progress.push')
    return { delivery: 'push', channel: true, payload };
  return { delivery: 'answer', channel: type !== 'connector.hello.ack' && type !== 'pong', payload };
}

const RULES = new Map<string, PacketRule>(OUTGOING_PACKET_TYPES.map((type) => [type, ruleOf(type)]));

/** A stable machine-readable code (§7): snake_case, and a message for people. */
export const outgoingErrorSchema = wireErrorSchema.extend({
  code: z.string().regex(/^[a-z][a-z0-9_]*$/, 'error codes are snake_case'),
  message: nonEmptyString,
  /** The fix in words, when the phone refused something a person can change (android/phone-fixes.ts). */
  fix: nonEmptyString.optional(),
});

/** One packet the Connector sends: the envelope, then its type's rules and payload. */
export const outgoingPacketSchema = packetEnvelopeSchema
  .extend({ time: epochMs, error: outgoingErrorSchema.optional() })
  .superRefine((packet, ctx) => {
    const issue = (message: string, path: PropertyKey[]): void => ctx.addIssue({ code: 'custom', message, path });
    const rule = RULES.get(packet.type);
    if (!rule) return issue(`${packet.type} is not a packet type the Connector sends`, ['type']);
    if (rule.channel && !packet.connector_channel_id)
      issue(`${packet.type} names its channel`, ['connector_channel_id']);
    if (rule.delivery === 'answer') {
      if (packet.request_id === undefined) issue('an answer returns the request_id of its request', ['request_id']);
      if (!packet.reply_to) issue('an answer points reply_to at the packet it answers', ['reply_to']);
    }
    if (rule.delivery === 'error') {
      if (!packet.error) issue('an error packet carries error', ['error']);
      if (packet.payload !== undefined) issue('an error packet carries no payload', ['payload']);
      return;
    }
    if (packet.error) {
      if (rule.delivery === 'push') issue('a push carries no error', ['error']);
      if (packet.payload !== undefined) issue('a failed answer carries its error and no payload', ['payload']);
      return;
    }
    if (packet.payload === undefined) {
      if (packet.type !== 'pong') issue(`${packet.type} carries a payload`, ['payload']);
      return;
    }
    const parsed = rule.payload!.safeParse(packet.payload);
    if (!parsed.success) {
      for (const inner of parsed.error.issues) issue(inner.message, ['payload', ...inner.path]);
      return;
    }
    checkChannelAgreement(packet.connector_channel_id, packet.payload, issue);
  });

/** The channel named in a payload (and in its Descriptor) is the envelope's channel. */
function checkChannelAgreement(
  channelId: string | undefined,
  payload: Record<string, unknown>,
  issue: (message: string, path: PropertyKey[]) => void,
): void {
  if (typeof payload.connector_channel_id === 'string' && payload.connector_channel_id !== channelId) {
    issue('payload.connector_channel_id differs from the envelope', ['payload', 'connector_channel_id']);
  }
  const descriptor = payload.connection_descriptor as { connection: { connector_channel_id: string } } | undefined;
  if (descriptor && descriptor.connection.connector_channel_id !== channelId) {
    issue('the Descriptor is of another channel than the envelope', [
      'payload',
      'connection_descriptor',
      'connection',
      'connector_channel_id',
    ]);
  }
}
