/**
 * The adb transport wire format as adbd speaks it to the adb server: 24-byte little-endian
 * message headers (command, arg0, arg1, data length, data checksum, magic) followed by the
 * payload, plus a parser that turns arbitrary TCP chunks back into whole messages.
 * Nothing here knows about streams or services; see adbd-connection.ts for those.
 */

/** Command words: four ASCII letters read as a little-endian u32. */
export const A_SYNC = 0x434e5953;
export const A_CNXN = 0x4e584e43;
export const A_AUTH = 0x48545541;
export const A_OPEN = 0x4e45504f;
export const A_OKAY = 0x59414b4f;
export const A_CLSE = 0x45534c43;
export const A_WRTE = 0x45545257;
export const A_STLS = 0x534c5453;

const KNOWN_COMMANDS = new Set([A_SYNC, A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS]);

/** Oldest protocol version: payload checksums are computed and checked. */
export const A_VERSION_MIN = 0x01000000;
/** Protocol version from which checksums may be skipped (0 on the wire). */
export const A_VERSION_SKIP_CHECKSUM = 0x01000001;
/** The version this simulated adbd announces. */
export const A_VERSION = A_VERSION_SKIP_CHECKSUM;

/** Largest payload we announce in our CNXN. The host may announce a smaller one. */
export const DEVICE_MAX_PAYLOAD = 256 * 1024;
/** Payload size assumed before the host's CNXN tells us its own (adb's legacy default). */
export const LEGACY_MAX_PAYLOAD = 4096;
/**
 * Any payload longer than this is malformed: no adb version negotiates more than 1 MiB, so a
 * larger length means a corrupt or hostile stream and the connection is closed.
 */
export const MAX_ACCEPTED_PAYLOAD = 1024 * 1024;

/** AUTH arg0 values. */
export const ADB_AUTH_TOKEN = 1;
export const ADB_AUTH_SIGNATURE = 2;
export const ADB_AUTH_RSAPUBLICKEY = 3;

export const HEADER_LENGTH = 24;

export interface AdbMessage {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

/** Raised by the parser for input that cannot be a valid adb message. */
export class AdbProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdbProtocolError';
  }
}

/** Four-letter name of a command word, or its hex value when it is not printable. */
export function commandName(command: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(command >>> 0, 0);
  return /^[A-Z]{4}$/.test(bytes.toString('latin1')) ? bytes.toString('latin1') : `0x${(command >>> 0).toString(16)}`;
}

/** adb's "checksum": the plain sum of the payload bytes, modulo 2^32. */
export function payloadChecksum(data: Buffer): number {
  let sum = 0;
  for (const byte of data) sum = (sum + byte) >>> 0;
  return sum;
}

/**
 * Serialises one message. `withChecksum` is required while the peer's protocol version is the
 * old one; newer peers accept 0.
 */
export function encodeMessage(message: AdbMessage, withChecksum: boolean): Buffer {
  const out = Buffer.alloc(HEADER_LENGTH + message.data.length);
  out.writeUInt32LE(message.command >>> 0, 0);
  out.writeUInt32LE(message.arg0 >>> 0, 4);
  out.writeUInt32LE(message.arg1 >>> 0, 8);
  out.writeUInt32LE(message.data.length, 12);
  out.writeUInt32LE(withChecksum ? payloadChecksum(message.data) : 0, 16);
  out.writeUInt32LE((message.command ^ 0xffffffff) >>> 0, 20);
  message.data.copy(out, HEADER_LENGTH);
  return out;
}

export interface ParserOptions {
  /** Longest payload accepted; longer lengths are a protocol error. */
  maxPayload?: number;
}

/**
 * Incremental message parser. Feed it TCP chunks as they arrive (split or merged in any way);
 * it returns every message completed so far and throws AdbProtocolError on malformed input,
 * after which it must not be fed again.
 */
export class AdbMessageParser {
  private readonly maxPayload: number;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Whether non-zero checksums are verified; zero is always accepted (newer hosts send 0). */
  verifyChecksum = true;

  constructor(options: ParserOptions = {}) {
    this.maxPayload = options.maxPayload ?? MAX_ACCEPTED_PAYLOAD;
  }

  push(chunk: Buffer): AdbMessage[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const messages: AdbMessage[] = [];
    for (;;) {
      if (this.buffered < HEADER_LENGTH) break;
      const header = this.peek(HEADER_LENGTH);
      const command = header.readUInt32LE(0);
      const dataLength = header.readUInt32LE(12);
      const check = header.readUInt32LE(16);
      const magic = header.readUInt32LE(20);
      if (magic !== (command ^ 0xffffffff) >>> 0) {
        throw new AdbProtocolError(`bad magic 0x${magic.toString(16)} for command ${commandName(command)}`);
      }
      if (!KNOWN_COMMANDS.has(command)) throw new AdbProtocolError(`unknown command ${commandName(command)}`);
      if (dataLength > this.maxPayload) {
        throw new AdbProtocolError(`payload of ${dataLength} bytes exceeds the limit of ${this.maxPayload}`);
      }
      if (this.buffered < HEADER_LENGTH + dataLength) break;
      const whole = this.take(HEADER_LENGTH + dataLength);
      const data = whole.subarray(HEADER_LENGTH);
      if (this.verifyChecksum && check !== 0 && check !== payloadChecksum(data)) {
        throw new AdbProtocolError(`bad checksum for ${commandName(command)}`);
      }
      messages.push({ command, arg0: header.readUInt32LE(4), arg1: header.readUInt32LE(8), data });
    }
    return messages;
  }

  private peek(length: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= length) return first.subarray(0, length);
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined.subarray(0, length);
  }

  private take(length: number): Buffer {
    const first = this.chunks[0];
    let out: Buffer;
    if (first && first.length >= length) {
      out = first.subarray(0, length);
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
    } else {
      const joined = Buffer.concat(this.chunks);
      out = joined.subarray(0, length);
      this.chunks = joined.length > length ? [joined.subarray(length)] : [];
    }
    this.buffered -= length;
    // Copy so a retained payload does not pin the (possibly large) TCP chunk it came from.
    return Buffer.from(out);
  }
}

/** The identity and capabilities a device announces in its CNXN payload. */
export function deviceBanner(
  props: { product: string; model: string; device: string },
  features: readonly string[],
): string {
  return (
    `device::ro.product.name=${props.product};ro.product.model=${props.model};` +
    `ro.product.device=${props.device};features=${features.join(',')}`
  );
}
