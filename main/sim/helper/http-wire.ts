/**
 * HTTP/1.1 framing for the simulated helper's server, over one byte channel (an adb stream
 * opened with `tcp:6790`): requests with Content-Length or chunked bodies, keep-alive as
 * Netty's HttpServerKeepAliveHandler does it (HTTP/1.1 keeps the connection unless the client
 * says `Connection: close`), and the response headers the real server sends (ServerHandler:
 * Connection, Pragma: no-cache, Cache-Control: no-store; a JSON body with its length).
 * A malformed request gets 400 and the connection closes. The handler may answer 'reset': the
 * process died, so the connection is dropped with no response at all.
 */

/** What the server needs of a connection: the adb DeviceStream fits. */
export interface ByteChannel {
  readSome(): Promise<Buffer | undefined>;
  write(data: Buffer): Promise<void>;
  close(): void;
  readonly signal: AbortSignal;
}

export interface HttpRequest {
  method: string;
  /** The request target without the query string. */
  path: string;
  headers: Map<string, string>;
  body: Buffer;
}

export interface HttpReply {
  status: number;
  body: string;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpReply | 'reset'>;

const MAX_HEADER_BYTES = 64 * 1024;
/** Netty's HttpObjectAggregator in the real server allows 50 MB; so do we. */
const MAX_BODY_BYTES = 50 * 1024 * 1024;

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Request Entity Too Large',
  500: 'Internal Server Error',
};

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Buffered reads from a channel. */
class Reader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly channel: ByteChannel) {}

  /** Reads until `delimiter`; returns the bytes before it, or undefined at the end of input. */
  async until(delimiter: string, limit: number): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.buffer.indexOf(delimiter);
      if (at >= 0) {
        const out = this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + delimiter.length);
        return out;
      }
      if (this.buffer.length > limit) throw new BadRequest('header too large', 431);
      if (!(await this.fill())) return undefined;
    }
  }

  async exactly(length: number): Promise<Buffer | undefined> {
    while (this.buffer.length < length) if (!(await this.fill())) return undefined;
    const out = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return out;
  }

  /** Nothing buffered and nothing more will come. */
  private async fill(): Promise<boolean> {
    const chunk = await this.channel.readSome();
    if (!chunk) return false;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    return true;
  }
}

async function readChunked(reader: Reader): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let total = 0;
  for (;;) {
    const line = await reader.until('\r\n', 1024);
    if (line === undefined) return undefined;
    const size = Number.parseInt(line.toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size < 0) throw new BadRequest('bad chunk size');
    if (size === 0) {
      // Trailers, up to the empty line.
      for (;;) {
        const trailer = await reader.until('\r\n', MAX_HEADER_BYTES);
        if (trailer === undefined) return undefined;
        if (trailer.length === 0) return Buffer.concat(parts);
      }
    }
    total += size;
    if (total > MAX_BODY_BYTES) throw new BadRequest('body too large', 413);
    const data = await reader.exactly(size);
    const end = await reader.exactly(2);
    if (!data || !end) return undefined;
    parts.push(data);
  }
}

async function readRequest(reader: Reader): Promise<{ request: HttpRequest; keepAlive: boolean } | undefined> {
  const head = await reader.until('\r\n\r\n', MAX_HEADER_BYTES);
  if (head === undefined) return undefined;
  const lines = head.toString('latin1').split('\r\n');
  const requestLine = /^([A-Z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0] ?? '');
  if (!requestLine) throw new BadRequest('bad request line');
  const [, method = '', target = '', minor = '1'] = requestLine;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new BadRequest('bad header line');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body: Buffer | undefined = Buffer.alloc(0);
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) body = await readChunked(reader);
  else if (headers.has('content-length')) {
    const length = Number(headers.get('content-length'));
    if (!Number.isInteger(length) || length < 0) throw new BadRequest('bad content-length');
    if (length > MAX_BODY_BYTES) throw new BadRequest('body too large', 413);
    body = await reader.exactly(length);
  }
  if (body === undefined) return undefined;
  const connection = (headers.get('connection') ?? '').toLowerCase();
  const keepAlive = minor === '1' ? !connection.includes('close') : connection.includes('keep-alive');
  const query = target.indexOf('?');
  return { request: { method, path: query >= 0 ? target.slice(0, query) : target, headers, body }, keepAlive };
}

function encodeReply(reply: HttpReply, keepAlive: boolean): Buffer {
  const body = Buffer.from(reply.body, 'utf8');
  const head =
    `HTTP/1.1 ${reply.status} ${REASONS[reply.status] ?? 'Unknown'}\r\n` +
    `connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n` +
    'pragma: no-cache\r\n' +
    'cache-control: no-store\r\n' +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * Serves requests on one connection, one at a time, until the client closes it, asks for
 * close, sends something malformed, or the handler answers 'reset'. Never throws.
 */
export async function serveHttpConnection(channel: ByteChannel, handle: HttpHandler): Promise<void> {
  const reader = new Reader(channel);
  try {
    for (;;) {
      let next;
      try {
        next = await readRequest(reader);
      } catch (error) {
        if (!(error instanceof BadRequest)) throw error;
        const body = JSON.stringify({ value: { error: 'invalid argument', message: error.message, stacktrace: '' } });
        await channel.write(encodeReply({ status: error.status, body }, false));
        return;
      }
      if (!next) return;
      const reply = await handle(next.request);
      if (reply === 'reset' || channel.signal.aborted) return;
      await channel.write(encodeReply(reply, next.keepAlive));
      if (!next.keepAlive) return;
    }
  } catch {
    // The host closed the stream under us (StreamClosedError): nothing left to answer.
  } finally {
    channel.close();
  }
}
