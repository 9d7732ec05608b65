/**
 * The HTTP server's connection limits as options (core option `connections.*`, README
 * "Documented limits"): checked once at start, with the option's name in the message. The
 * server applies them (server/connection-limits.ts).
 */

export interface ConnectionLimits {
  /** Connections at once on every plane; past it a new one is closed before any byte is read. */
  maxConnections: number;
  /** Connections at once from one client address (trusted proxies count only in the total). */
  maxConnectionsPerAddress: number;
  /** A request line and headers must arrive within this long of the connection or the last response. */
  headersTimeoutMs: number;
  /**
   * A request body must arrive within this long (uploads are judged by their progress instead,
   * files/upload-handler.ts); Node's own whole-request deadline is off, since it would cut a
   * long upload that is still moving.
   */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** How often the header and request deadlines are checked (Node's own sweep). */
  checkIntervalMs: number;
  /** A refused socket whose answer cannot be flushed (the peer does not read) is destroyed after this long. */
  refusalBackstopMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 256,
  maxConnectionsPerAddress: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  refusalBackstopMs: 2_000,
};

/** Checks the limits once, up front, with the option's name in the message. */
export function resolveConnectionLimits(input: Partial<ConnectionLimits> = {}, what = 'connections'): ConnectionLimits {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...input };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0)
      throw new TypeError(`${what}.${key} must be a positive integer (got ${String(value)})`);
  }
  if (limits.maxConnectionsPerAddress > limits.maxConnections) {
    throw new TypeError(
      `${what}.maxConnectionsPerAddress (${limits.maxConnectionsPerAddress}) must not exceed ${what}.maxConnections (${limits.maxConnections})`,
    );
  }
  // Node refuses a header deadline longer than the request deadline.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new TypeError(
      `${what}.headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed ${what}.requestTimeoutMs (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}
