/**
 * GET/HEAD /files/refs/{file_ref}?exp=…&sig=… — the transfer plane's download endpoint.
 *
 * The URL is the credential (xAgent sends no header), so the order is: the ref's shape is
 * checked on the raw request target (anything else is 404 before any lookup), then the
 * signature and expiry (403), then the in-memory cache (404). Only the cache turns a ref
 * into a path; the request never does.
 */
import { promises as fsp } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { ErrorCode } from '../errors';
import type { CachedFile, FileCache } from './file-cache';
import type { UrlSigner } from './signed-url';

export interface DownloadDeps {
  cache: FileCache;
  signer: UrlSigner;
}

/** Exactly one path shape is served; `..`, encodings, extra segments and overlong refs fail it. */
const REF_PATH = /^\/files\/refs\/(file_[A-Za-z0-9_-]{32})$/;
/** A signed target is ~130 characters; anything far longer is not ours. */
const MAX_TARGET_CHARS = 512;

/** Serves one signed download. Never throws; every outcome is a response. */
export function handleDownload(req: IncomingMessage, res: ServerResponse, deps: DownloadDeps): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendTransferError(res, 405, 'invalid_arguments', 'method not allowed', { Allow: 'GET, HEAD' });
    return;
  }
  const target = req.url ?? '';
  const queryStart = target.indexOf('?');
  const pathPart = queryStart === -1 ? target : target.slice(0, queryStart);
  const match = target.length <= MAX_TARGET_CHARS ? REF_PATH.exec(pathPart) : null;
  const fileRef = match?.[1];
  if (fileRef === undefined) {
    sendTransferError(res, 404, 'file_not_found', 'file not found');
    return;
  }
  const verdict = deps.signer.verify(
    fileRef,
    new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1)),
  );
  if (verdict === 'bad_signature') {
    sendTransferError(res, 403, 'permission_denied', 'download URL signature is invalid');
    return;
  }
  if (verdict === 'expired') {
    sendTransferError(res, 403, 'permission_denied', 'download URL has expired');
    return;
  }
  const file = deps.cache.get(fileRef);
  const path = deps.cache.path(fileRef);
  if (!file || path === undefined) {
    sendTransferError(res, 404, 'file_not_found', 'file not found or expired');
    return;
  }
  void serveFile(req, res, file, path);
}

async function serveFile(req: IncomingMessage, res: ServerResponse, file: CachedFile, path: string): Promise<void> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(path, 'r');
  } catch {
    // Evicted between the lookup and the open.
    sendTransferError(res, 404, 'file_not_found', 'file not found or expired');
    return;
  }
  let size: number;
  try {
    size = (await handle.stat()).size;
  } catch {
    await handle.close().catch(() => undefined);
    sendTransferError(res, 500, 'internal_error', 'file could not be read');
    return;
  }
  if (res.destroyed) {
    await handle.close().catch(() => undefined);
    return;
  }
  res.writeHead(200, {
    'Content-Type': file.mimeType,
    'Content-Length': size,
    'Content-Disposition': contentDisposition(file.filename),
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  });
  if (req.method === 'HEAD') {
    res.end();
    await handle.close().catch(() => undefined);
    return;
  }
  // The read stream owns the handle (autoClose): a client abort destroys it and closes the fd.
  pipeline(handle.createReadStream(), res, (error) => {
    if (error && !res.destroyed) res.destroy();
  });
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Codes a transfer-plane error body carries: ErrorCodes, plus the HTTP-only 'unauthorized'. */
export type TransferErrorCode = ErrorCode | 'unauthorized';

/**
 * Transfer-plane error body `{"error":{"code","message"}}`. `code` is usually an ErrorCode;
 * 'unauthorized' is the one HTTP-only code. After headers went out, the only honest signal
 * left is to cut the connection.
 */
export function sendTransferError(
  res: ServerResponse,
  status: number,
  code: TransferErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}
