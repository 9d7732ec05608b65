/**
 * One run of appium-uiautomator2-server on a phone, from `am instrument` to its stop: what the
 * lifecycle's `run` step brings up and stops (program-lifecycle.ts owns when).
 *
 * - Started by the first tool call of a lease that can use it (`am instrument -w`, kept open:
 *   its end is the server's end, which `ended` tells the lifecycle), health-checked through
 *   `GET /status`, then one session.
 * - Watched by the guard from the moment its instrumentation starts, not once it answers: its
 *   ports may be open before /status is (helper-exposure.ts).
 * - Stopping it force-stops the server app, which frees the phone's one UiAutomation
 *   connection, so stock `uiautomator dump`, Android Studio and Appium work again.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import { pauseFor, SHORT_COMMAND_MS } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, runText } from '../devices/shell-quote';
import type { RunningProgram } from '../program-lifecycle/program-lifecycle';
import { HelperClient, notPerformed } from './helper-client';
import { watchConnections, type ExposureContext, type WatchedRun } from './helper-exposure';
import { BridgeConnectionLedger } from './helper-guard';
import { HELPER_INSTRUMENT_ARGV, HELPER_STOP_ARGV, isNoInstrumentation } from './helper-protocol';
import { helperError, type PhoneHelper } from './phone-helper';

const STATUS_POLL_MS = 100;
const STATUS_REQUEST_MS = 2_000;

/** A running helper's session, as the lanes use it. */
export interface HelperSession {
  readonly version: string;
  /** `path` is below the session (`/source`, `/actions`, …). */
  call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<unknown>;
}

export interface ProcessContext extends ExposureContext {
  /** How long a start may take until `/status` answers. */
  startTimeoutMs: number;
}

export class HelperRun implements RunningProgram, WatchedRun {
  /** The bridge's own connections to it since this start (the guard matches what it reads against them). */
  readonly ledger = new BridgeConnectionLedger();
  watchTimer: NodeJS.Timeout | undefined;
  /** Resolves with its last output when the instrumentation ends (it crashed, or was stopped). */
  readonly ended: Promise<string>;
  #sessionId = '';
  #stopped = false;
  #output = '';
  #instrumentEnded = false;

  private constructor(
    private readonly context: ProcessContext,
    private readonly phone: PhoneHelper,
    private readonly shell: DeviceShell,
    private readonly instrument: Duplex,
  ) {
    this.ended = new Promise((resolve) => {
      const onEnd = (): void => {
        if (this.#instrumentEnded) return;
        this.#instrumentEnded = true;
        resolve(this.#output);
      };
      instrument.on('end', onEnd);
      instrument.on('close', onEnd);
      instrument.on('error', onEnd);
    });
    instrument.on('data', (chunk: Buffer) => {
      if (this.#output.length < 8192) this.#output += chunk.toString('utf8');
    });
  }

  /**
   * Starts the helper from its checked install: the instrumentation (watched from here), then
   * `/status` until it answers, then a session. Anything that goes wrong stops what started.
   */
  static async start(
    context: ProcessContext,
    phone: PhoneHelper,
    shell: DeviceShell,
    signal: AbortSignal,
  ): Promise<HelperRun> {
    if (!shell.openStream)
      throw new BridgeError('tool_unavailable', 'this connection to the phone cannot open streams');
    const started = context.clock();
    let instrument: Duplex;
    try {
      instrument = await shell.openStream(`shell:${buildCommandLine(HELPER_INSTRUMENT_ARGV)}`, {
        timeoutMs: SHORT_COMMAND_MS,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw helperError(
        'uia2_start_failed',
        `the helper could not be started: ${error instanceof Error ? error.message.slice(0, 200) : 'no shell'}`,
      );
    }
    const run = new HelperRun(context, phone, shell, instrument);
    // Watched from this moment, not once it answers: its ports may be open before /status is.
    watchConnections(context, phone, run, 0);
    try {
      await run.open(started, signal);
    } catch (error) {
      await run.stop();
      throw error;
    }
    context.logger.info('fast lane helper running', { device: phone.deviceId, ms: context.clock() - started });
    return run;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get sessionId(): string {
    return this.#sessionId;
  }

  /** The session for the lanes: each call goes to the phone's helper port through adb. */
  session(): HelperSession {
    const client = new HelperClient(this.opener());
    const prefix = `/session/${encodeURIComponent(this.#sessionId)}`;
    return {
      version: this.context.apks?.version ?? '',
      call: (method, path, body, options) => client.call(method, `${prefix}${path}`, body, options),
    };
  }

  /** Opens a stream to one of its ports, noted in the ledger (the guard tells the bridge's own connections apart). */
  opener(): { openStream: NonNullable<DeviceShell['openStream']> } {
    return opener(this.shell, this, this.context.clock);
  }

  /** Stops the guard's reads, ends the instrumentation and force-stops the app (idempotent). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    this.phone.watchedAt = null;
    this.instrument.destroy();
    await runText(this.shell, HELPER_STOP_ARGV, { timeoutMs: SHORT_COMMAND_MS }).catch(() => undefined);
  }

  /** `/status` until it answers, then one session whose trees are read without waiting for idle. */
  private async open(started: number, signal: AbortSignal): Promise<void> {
    const client = new HelperClient(this.opener());
    const timeoutMs = this.context.startTimeoutMs;
    for (;;) {
      signal.throwIfAborted();
      if (this.#stopped) throw new BridgeError('canceled', 'the helper was stopped while starting');
      if (this.#instrumentEnded) {
        const text = this.#output.trim().slice(0, 300);
        if (isNoInstrumentation(this.#output))
          throw helperError(
            'uia2_no_instrumentation',
            `this phone cannot run the helper’s instrumentation: ${text || 'am instrument failed'}`,
          );
        throw helperError('uia2_start_failed', `the helper ended while starting${text ? `: ${text}` : ''}`);
      }
      if (this.context.clock() - started > timeoutMs)
        throw new BridgeError(
          'command_timeout',
          `the helper did not answer within ${Math.round(timeoutMs / 1000)} s of starting`,
        );
      try {
        const status = await client.request('GET', '/status', undefined, { timeoutMs: STATUS_REQUEST_MS, signal });
        if (status.status === 200) break;
      } catch (error) {
        if (signal.aborted) throw error;
        if (isBridgeError(error) && error.code === 'canceled') continue;
        if (!notPerformed(error) && !(isBridgeError(error) && error.code === 'outcome_unknown'))
          throw helperError(
            'uia2_start_failed',
            `the helper could not be reached: ${error instanceof Error ? error.message : ''}`,
          );
      }
      await pauseFor(STATUS_POLL_MS, signal);
    }
    let sessionId: string | undefined;
    try {
      const created = await client.request(
        'POST',
        '/session',
        { capabilities: { firstMatch: [{}], alwaysMatch: {} } },
        { timeoutMs: SHORT_COMMAND_MS, signal },
      );
      const value = created.body.value as { sessionId?: unknown } | undefined;
      sessionId =
        typeof created.body.sessionId === 'string'
          ? created.body.sessionId
          : typeof value?.sessionId === 'string'
            ? value.sessionId
            : undefined;
      if (created.status !== 200 || !sessionId)
        throw helperError('uia2_start_failed', `the helper refused a session (HTTP ${created.status})`);
    } catch (error) {
      if (signal.aborted || (isBridgeError(error) && error.details?.reason === 'uia2_start_failed')) throw error;
      throw helperError(
        'uia2_start_failed',
        `the helper did not open a session: ${error instanceof Error ? error.message.slice(0, 200) : ''}`,
      );
    }
    this.#sessionId = sessionId;
    // Trees are read without waiting for the app to go idle (the stock dump's slow part);
    // the stale-tree check in fast-lane.ts covers a read taken mid-transition.
    await client
      .call(
        'POST',
        `/session/${encodeURIComponent(sessionId)}/appium/settings`,
        { settings: { waitForIdleTimeout: 0, actionAcknowledgmentTimeout: 0 } },
        { timeoutMs: SHORT_COMMAND_MS, signal },
      )
      .catch(() => undefined);
  }
}

/**
 * Opens the phone's streams (the helper's ports through adb); fails as `helper_unavailable`
 * once the phone is gone. Each opening is noted in the run's ledger, so the guard can tell
 * the bridge's own ended connections from anyone else's.
 */
export function opener(
  shell: DeviceShell | undefined,
  run: Pick<HelperRun, 'ledger'>,
  clock: () => number,
): { openStream: NonNullable<DeviceShell['openStream']> } {
  return {
    openStream: (service, options) => {
      if (!shell?.openStream)
        return Promise.reject(new BridgeError('helper_unavailable', 'the phone is not connected'));
      run.ledger.noteOpened(clock());
      return shell.openStream(service, options);
    },
  };
}
