/**
 * Connections kept ready ahead of need. Every command on a phone starts with a new
 * connection to the adb server switched to that phone (`host:transport:SERIAL`): a TCP
 * connect and a request/OKAY round trip before the command itself is even sent. Taking a
 * connection starts opening the next one, so a phone that is being driven finds that work
 * already done and its command goes out at once.
 *
 * Some tools send several commands at once (device status sends six). The pool keeps as
 * many spares as the largest such burst seen within `idleMs`, at most `maxSpares`. A spare
 * nobody takes within `idleMs` is closed; one whose socket closes (server gone, phone
 * dropped) is never handed out.
 */

/** What the pool needs of a connection (adbkit's Connection has these). */
export interface SpareableConnection {
  end(): unknown;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

interface Spare<T> {
  ready: Promise<T>;
  dead: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** Takes this close together count as one burst (they come from one tool call). */
const BURST_MS = 5;

export interface SparePoolOptions {
  /** Spares unused this long are closed; the burst size they were kept for is forgotten. */
  idleMs: number;
  /** Most spares kept at once. */
  maxSpares: number;
  clock?: () => number;
}

export class SpareConnectionPool<T extends SpareableConnection> {
  private spares: Array<Spare<T>> = [];
  private closed = false;
  private burst = { startedAt: -Infinity, size: 0 };
  private wanted = { size: 1, at: -Infinity };
  private readonly clock: () => number;

  constructor(
    private readonly open: () => Promise<T>,
    private readonly options: SparePoolOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /**
   * A connection for one request: a live spare when there is one, otherwise a new one.
   * `spare` tells the caller it may retry on a new connection if the spare fails before
   * answering (adb may have dropped the phone it was switched to since).
   */
  async take(): Promise<{ connection: T; spare: boolean }> {
    this.countTake();
    let spare = this.spares.shift();
    while (spare?.dead) {
      this.discard(spare);
      spare = this.spares.shift();
    }
    if (spare?.timer) clearTimeout(spare.timer);
    // This command's own connection (when there is no spare) goes first, the spares after it.
    const own = spare ? undefined : this.open();
    // With a spare in hand, the next one is opened once this command's request is on its way
    // (setImmediate runs after the caller's write): opening a connection is CPU work the
    // command need not wait behind.
    if (spare) setImmediate(() => this.topUp());
    else this.topUp();
    if (spare) {
      const connection = await spare.ready.catch(() => undefined);
      if (connection && !spare.dead) return { connection, spare: true };
      connection?.end();
      return { connection: await this.open(), spare: false };
    }
    return { connection: await own!, spare: false };
  }

  /** A new connection, never a spare (the retry after a spare failed). */
  fresh(): Promise<T> {
    return this.open();
  }

  /** Closes the spares (the phone went away); the next take() starts over. */
  drop(): void {
    const spares = this.spares;
    this.spares = [];
    for (const spare of spares) this.discard(spare);
  }

  /** Closes the spares and keeps no more. */
  close(): void {
    this.closed = true;
    this.drop();
  }

  /** Number of spares held or being opened (for tests). */
  size(): number {
    return this.spares.length;
  }

  private countTake(): void {
    const now = this.clock();
    if (now - this.burst.startedAt > BURST_MS) this.burst = { startedAt: now, size: 0 };
    this.burst.size += 1;
    const size = Math.min(this.burst.size, this.options.maxSpares);
    if (size >= this.wanted.size || now - this.wanted.at > this.options.idleMs) this.wanted = { size, at: now };
  }

  private topUp(): void {
    if (this.closed) return;
    while (this.spares.length < this.wanted.size) this.spares.push(this.prepare());
  }

  private prepare(): Spare<T> {
    const spare: Spare<T> = { ready: this.open(), dead: false, timer: undefined };
    spare.ready.then(
      (connection) => {
        const die = (): void => {
          spare.dead = true;
        };
        connection.on('close', die);
        connection.on('error', die);
      },
      () => {
        spare.dead = true;
      },
    );
    spare.timer = setTimeout(() => {
      const index = this.spares.indexOf(spare);
      if (index >= 0) this.spares.splice(index, 1);
      this.discard(spare);
    }, this.options.idleMs);
    spare.timer.unref();
    return spare;
  }

  private discard(spare: Spare<T>): void {
    if (spare.timer) clearTimeout(spare.timer);
    spare.dead = true;
    // Still connecting: it is closed as soon as it connects.
    spare.ready.then(
      (connection) => connection.end(),
      () => undefined,
    );
  }
}
