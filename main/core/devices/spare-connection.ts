/**
 * One connection kept ready ahead of need. Every command on a phone starts with a new
 * connection to the adb server switched to that phone (`host:transport:SERIAL`): a TCP
 * connect and a request/OKAY round trip before the command itself is even sent. Taking a
 * connection starts opening the next one, so a phone that is being driven finds that work
 * already done and its command goes out at once. A spare nobody takes within `idleMs` is
 * closed; one whose socket closes (server gone, phone dropped) is never handed out.
 */

/** What the slot needs of a connection (adbkit's Connection has these). */
export interface SpareableConnection {
  end(): unknown;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

interface Spare<T> {
  ready: Promise<T>;
  dead: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class SpareConnectionSlot<T extends SpareableConnection> {
  private spare: Spare<T> | undefined;
  private closed = false;

  constructor(
    private readonly open: () => Promise<T>,
    private readonly idleMs: number,
  ) {}

  /**
   * A connection for one request: the spare when it is alive, otherwise a new one. `spare`
   * tells the caller it may retry on a new connection if the spare fails before answering
   * (adb may have dropped the phone it was switched to since).
   */
  async take(): Promise<{ connection: T; spare: boolean }> {
    const spare = this.spare;
    this.spare = undefined;
    if (spare?.timer) clearTimeout(spare.timer);
    if (spare && !spare.dead) {
      if (!this.closed) this.prepare();
      const connection = await spare.ready.catch(() => undefined);
      if (connection && !spare.dead) return { connection, spare: true };
      connection?.end();
      return { connection: await this.open(), spare: false };
    }
    // This command's own connection goes first; the spare for the next one after it.
    const own = this.open();
    if (!this.closed) this.prepare();
    return { connection: await own, spare: false };
  }

  /** A new connection, never the spare (the retry after a spare failed). */
  fresh(): Promise<T> {
    return this.open();
  }

  /** Closes the spare (the phone went away); the next take() starts over. */
  drop(): void {
    const spare = this.spare;
    this.spare = undefined;
    if (spare) this.discard(spare);
  }

  /** Closes the spare and keeps no more. */
  close(): void {
    this.closed = true;
    this.drop();
  }

  private prepare(): void {
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
      if (this.spare === spare) this.drop();
    }, this.idleMs);
    spare.timer.unref();
    this.spare = spare;
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
