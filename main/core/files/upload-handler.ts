/**
 * POST /files/uploads — the transfer plane's upload endpoint (spec §5.1), and the ownership
 * check tools use before touching an uploaded file.
 *
 * Checks run cheapest-first and before any body byte is read: API key, channel header,
 * channel existence, content type, declared length. The multipart body is then parsed as
 * a stream (busboy) and the `file` part goes straight to the FileCache with the size cap;
 * past the cap we answer 413, stop reading and the cache deletes the partial file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { BridgeError, isBridgeError } from '../errors';
import type { CachedFile, FileCache } from './file-cache';
import { normalizeMimeType } from './file-cache';
import { sendTransferError, type TransferErrorCode } from './download-handler';

export interface UploadDeps {
  cache: FileCache;
  /** True when the request carries the system API key (`Authorization: Bearer …`). */
  authorize: (req: IncomingMessage) => boolean;
  /** Aborts when the key `authorize` accepted is rotated away: the upload is then refused (401). */
  keyRevoked?: () => AbortSignal;
  channelExists: (channelId: string) => boolean;
  maxUploadBytes: number;
  /** The upload fails with 408 when no body byte arrives for this long. Default 30 s. */
  idleTimeoutMs?: number | undefined;
}

export type UploadFileType = 'image' | 'video' | 'audio' | 'file';

export interface UploadResponse {
  file_ref: string;
  file_type: UploadFileType;
  filename: string;
  byte_size: number;
  expires_at: number;
}

export const CHANNEL_HEADER = 'x-xagent-connector-channel-id';
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** Multipart framing and the small optional fields on top of the file itself. */
const MULTIPART_OVERHEAD_BYTES = 256 * 1024;
const FALLBACK_FILENAME = 'upload.bin';

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  heic: 'image/heic',
  heif: 'image/heif',
  mp4: 'video/mp4',
  m4v: 'video/x-m4v',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  flac: 'audio/flac',
  amr: 'audio/amr',
  apk: 'application/vnd.android.package-archive',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  txt: 'text/plain',
};

/** Handles one upload request. Never throws; every outcome is a response. */
export function handleUpload(req: IncomingMessage, res: ServerResponse, deps: UploadDeps): void {
  // The body of a refused request is never read, so the connection cannot be reused.
  const refuse = (
    status: number,
    code: TransferErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    sendTransferError(res, status, code, message, { Connection: 'close', ...headers });
  };
  if (req.method !== 'POST') return refuse(405, 'invalid_arguments', 'method not allowed', { Allow: 'POST' });
  let authorized: boolean;
  try {
    authorized = deps.authorize(req);
  } catch {
    authorized = false;
  }
  if (!authorized) return refuse(401, 'unauthorized', 'a valid API key is required');
  const keyRevoked = deps.keyRevoked?.();
  const channelHeader = req.headers[CHANNEL_HEADER];
  const channelId = typeof channelHeader === 'string' ? channelHeader.trim() : '';
  if (channelId === '')
    return refuse(400, 'connector_channel_id_required', 'X-XAgent-Connector-Channel-ID header is required');
  if (!deps.channelExists(channelId)) return refuse(404, 'connection_not_found', 'connector channel not found');
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '')) {
    return refuse(415, 'invalid_arguments', 'Content-Type must be multipart/form-data');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > deps.maxUploadBytes + MULTIPART_OVERHEAD_BYTES) {
    return refuse(413, 'file_too_large', `upload exceeds ${deps.maxUploadBytes} bytes`);
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // File names in UTF-8 (照片.png), as browsers and curl send them; busboy's default is latin1.
      defParamCharset: 'utf8',
      limits: { files: 4, fields: 16, fieldSize: 16 * 1024, parts: 32, headerPairs: 32 },
    });
  } catch {
    return refuse(400, 'invalid_arguments', 'malformed multipart Content-Type');
  }
  const run = new UploadRun(req, res, deps, channelId, parser);
  run.begin();
  if (keyRevoked) run.endWhen(keyRevoked);
}

/** An upload still running when its API key is rotated away: refused like a wrong key. */
class KeyRotatedError extends Error {
  override readonly name = 'KeyRotatedError';
}

/** One upload in progress: owns the parser, the idle timer and the cache write. */
class UploadRun {
  private readonly abort = new AbortController();
  private stored: Promise<CachedFile> | undefined;
  private settled = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly deps: UploadDeps,
    private readonly channelId: string,
    private readonly parser: busboy.Busboy,
  ) {}

  begin(): void {
    const { req, res, parser } = this;
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || this.stored || this.settled) {
        stream.resume();
        return;
      }
      const filename = info.filename ?? FALLBACK_FILENAME;
      this.stored = this.deps.cache.putStream({
        stream,
        maxBytes: this.deps.maxUploadBytes,
        mimeType: resolveMimeType(info.mimeType, filename),
        filename,
        channelId: this.channelId,
        kind: 'upload',
        signal: this.abort.signal,
      });
      this.stored.then(undefined, (error: unknown) => this.fail(error));
    });
    // recipient_ref and reply_token are accepted and ignored (spec §5.1).
    parser.on('field', () => undefined);
    parser.on('error', () => this.fail(new BridgeError('invalid_arguments', 'malformed multipart body')));
    parser.on('close', () => {
      if (!this.stored) {
        this.fail(new BridgeError('invalid_arguments', 'form field "file" is required'));
        return;
      }
      this.stored.then(
        (file) => this.succeed(file),
        (error: unknown) => this.fail(error),
      );
    });
    res.on('close', () => {
      this.clearIdle();
      // The client left before the answer: stop writing; a finished file nobody knows of goes.
      if (!res.writableFinished) this.fail(new BridgeError('canceled', 'client disconnected'));
    });
    req.on('data', () => this.armIdle());
    req.on('error', () => this.fail(new BridgeError('canceled', 'upload connection failed')));
    this.armIdle();
    req.pipe(parser);
  }

  /** Fails the upload (401, file discarded) once `signal` aborts; listens only while it runs. */
  endWhen(signal: AbortSignal): void {
    const stop = (): void => this.fail(new KeyRotatedError('the API key this upload was authorized with was rotated'));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    this.res.once('close', () => signal.removeEventListener('abort', stop));
  }

  private succeed(file: CachedFile): void {
    if (this.settled) return;
    this.settled = true;
    this.clearIdle();
    if (this.res.destroyed) {
      void this.deps.cache.remove(file.fileRef);
      return;
    }
    const body: UploadResponse = {
      file_ref: file.fileRef,
      file_type: fileTypeOf(file.mimeType, file.filename),
      filename: file.filename,
      byte_size: file.byteSize,
      expires_at: file.expiresAt,
    };
    const text = JSON.stringify(body);
    this.res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    this.res.end(text);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.clearIdle();
    this.abort.abort();
    // Stop reading: no more body bytes reach the parser or the disk.
    this.req.unpipe(this.parser);
    this.req.pause();
    this.parser.destroy();
    const respond = (): void => {
      if (this.res.destroyed) return;
      const { status, code, message } = describeFailure(error);
      sendTransferError(this.res, status, code, message, { Connection: 'close' });
    };
    if (!this.stored) {
      respond();
      return;
    }
    // Answer once the cache is done: the partial file is deleted (the write was aborted), or
    // a file completed before the failure is removed, since nobody will learn its ref.
    void this.stored
      .then(
        (file) => this.deps.cache.remove(file.fileRef),
        () => undefined,
      )
      .then(respond, respond);
  }

  private armIdle(): void {
    if (this.settled) return;
    this.clearIdle();
    const idleMs = this.deps.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.idleTimer = setTimeout(
      () => this.fail(new BridgeError('command_timeout', `upload stalled for ${idleMs} ms`)),
      idleMs,
    );
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

function describeFailure(error: unknown): { status: number; code: TransferErrorCode; message: string } {
  if (error instanceof KeyRotatedError) return { status: 401, code: 'unauthorized', message: error.message };
  if (!isBridgeError(error)) return { status: 500, code: 'internal_error', message: 'upload failed' };
  switch (error.code) {
    case 'file_too_large':
      return { status: 413, code: error.code, message: error.message };
    case 'invalid_arguments':
      return { status: 400, code: error.code, message: error.message };
    case 'command_timeout':
      return { status: 408, code: error.code, message: error.message };
    case 'canceled':
      return { status: 400, code: error.code, message: 'upload was interrupted' };
    default:
      return { status: 500, code: 'internal_error', message: 'upload failed' };
  }
}

/**
 * The part's declared type unless it is only a default (busboy reports text/plain when the
 * part has none; clients often send application/octet-stream), then the extension.
 */
export function resolveMimeType(declared: string, filename: string): string {
  const normalized = normalizeMimeType(declared);
  const weak = normalized === 'application/octet-stream' || normalized === 'text/plain';
  if (!weak) return normalized;
  return mimeTypeFromFilename(filename) ?? normalized;
}

export function mimeTypeFromFilename(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return MIME_BY_EXTENSION[filename.slice(dot + 1).toLowerCase()];
}

/** Spec §5.1 `file_type`, from the MIME type or else the extension. */
export function fileTypeOf(mimeType: string, filename: string): UploadFileType {
  const fromMime = categoryOf(normalizeMimeType(mimeType));
  if (fromMime !== 'file') return fromMime;
  const guessed = mimeTypeFromFilename(filename);
  return guessed ? categoryOf(guessed) : 'file';
}

function categoryOf(mimeType: string): UploadFileType {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'file';
}

/**
 * The file behind `fileRef` when `channelId` owns it. Tools call this before using a ref
 * from tool arguments: refs are not credentials, channels are.
 */
export function assertFileOwnedBy(cache: FileCache, fileRef: string, channelId: string): CachedFile {
  const file = cache.get(fileRef);
  if (!file) throw new BridgeError('file_not_found', 'file not found or expired');
  if (file.channelId !== channelId) throw new BridgeError('permission_denied', 'file belongs to another channel');
  return file;
}
