/**
 * Small HTTP helpers shared by the control plane, admin API and console: JSON replies with
 * stable error bodies, bounded JSON body reading, loopback checks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BridgeError } from '../errors';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // Encoded once: Buffer.byteLength and then res.end(text) each walked the whole string to
  // UTF-8, which for the admin state of 256 phones (430 KiB) was most of the request's time.
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': bytes.length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(bytes);
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: { code, message } }, headers);
}

export function sendText(res: ServerResponse, status: number, contentType: string, text: string | Buffer): void {
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': body.length,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/**
 * Whether a request that carries a body says it is JSON (`application/json`, or a `+json`
 * type). A form or plain-text body is what a page from another site can send without asking
 * first (a CORS "simple request"); the admin API takes none.
 */
export function hasNonJsonBody(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return !(type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type));
}

/** Reads a JSON body of at most `maxBytes`; rejects with a BridgeError on anything else. */
export async function readJsonBody(req: IncomingMessage, maxBytes = 64 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) throw new BridgeError('invalid_arguments', `request body exceeds ${maxBytes} bytes`);
    chunks.push(buf);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new BridgeError('invalid_arguments', 'request body is not valid JSON');
  }
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** HTTP status for a BridgeError code crossing the admin/transfer HTTP boundary. */
export function statusForCode(code: string): number {
  switch (code) {
    case 'invalid_arguments':
    case 'invalid_address':
    case 'out_of_bounds':
    case 'secret_field_not_masked':
      return 400;
    case 'permission_denied':
    case 'secret_out_of_scope':
      return 403;
    case 'file_not_found':
    case 'device_not_found':
    case 'connection_not_found':
    case 'auth_session_not_found':
    case 'approval_not_found':
    case 'secret_not_found':
    case 'host_not_found':
      return 404;
    case 'lease_conflict':
    case 'idempotency_conflict':
    case 'human_in_control':
    case 'ask_pending':
    case 'host_exists':
    case 'host_not_removable':
    case 'host_key_refused':
      return 409;
    case 'file_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    // The request was sound but this phone cannot carry it out as it is now (its fix is in the message).
    case 'unicode_input_unavailable':
    case 'no_focused_field':
    case 'device_locked':
    case 'input_blocked':
    case 'screen_unreadable':
      return 422;
    case 'rate_limited':
      return 429;
    case 'device_offline':
    case 'queue_full':
      return 503;
    case 'unreachable':
    case 'device_unauthorized':
    case 'pairing_failed':
    case 'pairing_unsupported':
    case 'adb_unavailable':
    case 'command_timeout':
      return 502;
    default:
      return 500;
  }
}
