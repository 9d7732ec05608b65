/**
 * The helper's process on one phone, from start to crash or idle stop.
 *
 * - Started on demand by the first tool call that can use it (`am instrument -w`, kept open:
 *   its end is the server's end), health-checked through `GET /status`, then one session.
 * - A crash (the instrumentation ended, or the helper stopped answering) stops it; the next
 *   call starts it again once; a second crash leaves it `failed` until enabled again, unless
 *   the helper had run for the crash-forgiven time since the first: a phone whose helper
 *   crashes once a day keeps its fast lane.
 * - Stopped after the idle-stop time without use.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import { pauseFor } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine } from '../devices/shell-quote';
import { HelperClient, notPerformed } from './helper-client';
import { checkBeforeStart, watchConnections, type ExposureContext } from './helper-exposure';
import { BridgeConnectionLedger } from './helper-guard';
import { HELPER_INSTRUMENT_ARGV, isNoInstrumentation } from './helper-protocol';
import { COMMAND_TIMEOUT_MS, failHelper, stopHelper, type PhoneHelper } from './phone-helper';

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
  /** A helper that ran this long since its last start has its earlier crash forgiven. */
  crashForgivenMs: number;
  /** A running helper stops this long after its last use (read at each use: it can change). */
  idleStopMs: () => number;
}

/** Starts the phone's helper (a start under way is joined); true once its session is open. */
export function startHelper(
  context: ProcessContext,
  phone: PhoneHelper,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (phone.starting) return phone.starting;
  const work = startNow(context, phone, signal).finally(() => {
    phone.starting = undefined;
  });
  phone.starting = work;
  return work;
}

async function startNow(
  context: ProcessContext,
  phone: PhoneHelper,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const shell = context.shellFor(phone.deviceId);
  if (!shell?.openStream) return false;
  const generation = ++phone.generation;
  phone.state = 'starting';
  phone.sessionId = undefined;
  context.changed();
  const started = context.clock();
  if (!(await checkBeforeStart(context, phone, shell, generation))) return false;
  phone.ledger = new BridgeConnectionLedger();
  const timeoutMs = context.startTimeoutMs;
  let output = '';
  let ended = false;
  let stream: Duplex;
  try {
    stream = await shell.openStream(`shell:${buildCommandLine(HELPER_INSTRUMENT_ARGV)}`, {
      timeoutMs: COMMAND_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    failHelper(
      context,
      phone,
      `the helper could not be started: ${error instanceof Error ? error.message.slice(0, 200) : 'no shell'}`,
      'helper_unavailable',
    );
    return false;
  }
  phone.instrument = stream;
  // Watched from this moment, not once it answers: its ports may be open before /status is.
  watchConnections(context, phone, generation, 0);
  stream.on('data', (chunk: Buffer) => {
    if (output.length < 8192) output += chunk.toString('utf8');
  });
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    if (phone.instrument !== stream) return;
    phone.instrument = undefined;
    if (phone.state === 'running') void helperCrashed(context, phone, 'the helper’s instrumentation ended');
  };
  stream.on('end', onEnd);
  stream.on('close', onEnd);
  stream.on('error', onEnd);

  const client = new HelperClient(opener(shell, phone, context.clock));
  const gaveUp = async (message: string, code: string): Promise<false> => {
    if (phone.generation === generation) {
      await stopHelper(context, phone, null);
      failHelper(context, phone, message, code);
    }
    return false;
  };
  // Health: /status answers once the server listens.
  for (;;) {
    if (phone.generation !== generation || context.bridgeStopped()) return false;
    if (signal?.aborted) {
      await stopHelper(context, phone, null);
      return false;
    }
    if (ended) {
      const text = output.trim().slice(0, 300);
      if (isNoInstrumentation(output))
        return gaveUp(
          `this phone cannot run the helper’s instrumentation: ${text || 'am instrument failed'}`,
          'helper_no_instrumentation',
        );
      return gaveUp(`the helper ended while starting${text ? `: ${text}` : ''}`, 'helper_unavailable');
    }
    if (context.clock() - started > timeoutMs)
      return gaveUp(
        `the helper did not answer within ${Math.round(timeoutMs / 1000)} s of starting`,
        'command_timeout',
      );
    try {
      const status = await client.request('GET', '/status', undefined, {
        timeoutMs: STATUS_REQUEST_MS,
        ...(signal ? { signal } : {}),
      });
      if (status.status === 200) break;
    } catch (error) {
      if (isBridgeError(error) && error.code === 'canceled') continue;
      if (!notPerformed(error) && !(isBridgeError(error) && error.code === 'outcome_unknown'))
        return gaveUp(
          `the helper could not be reached: ${error instanceof Error ? error.message : ''}`,
          'helper_unavailable',
        );
    }
    await pauseFor(STATUS_POLL_MS, signal);
  }
  try {
    const created = await client.request(
      'POST',
      '/session',
      { capabilities: { firstMatch: [{}], alwaysMatch: {} } },
      { timeoutMs: COMMAND_TIMEOUT_MS, ...(signal ? { signal } : {}) },
    );
    const value = created.body.value as { sessionId?: unknown } | undefined;
    const sessionId =
      typeof created.body.sessionId === 'string'
        ? created.body.sessionId
        : typeof value?.sessionId === 'string'
          ? value.sessionId
          : undefined;
    if (created.status !== 200 || !sessionId)
      return gaveUp(`the helper refused a session (HTTP ${created.status})`, 'helper_unavailable');
    if (phone.generation !== generation) return false;
    phone.sessionId = sessionId;
    // Trees are read without waiting for the app to go idle (the stock dump's slow part);
    // the stale-tree check in fast-lane.ts covers a read taken mid-transition.
    await client
      .call(
        'POST',
        `/session/${encodeURIComponent(sessionId)}/appium/settings`,
        { settings: { waitForIdleTimeout: 0, actionAcknowledgmentTimeout: 0 } },
        { timeoutMs: COMMAND_TIMEOUT_MS },
      )
      .catch(() => undefined);
  } catch (error) {
    return gaveUp(
      `the helper did not open a session: ${error instanceof Error ? error.message.slice(0, 200) : ''}`,
      'helper_unavailable',
    );
  }
  if (phone.generation !== generation) return false;
  phone.state = 'running';
  phone.runningSince = context.clock();
  phone.version = context.apks?.version ?? phone.version;
  if (phone.lastErrorCode !== 'helper_crashed') {
    phone.lastError = null;
    phone.lastErrorCode = null;
  }
  context.logger.info('fast lane helper running', { device: phone.deviceId, ms: context.clock() - started });
  context.changed();
  return true;
}

/** The running helper crashed: stopped, and started again by the next call unless it crashed twice. */
export async function helperCrashed(context: ProcessContext, phone: PhoneHelper, message: string): Promise<void> {
  if (phone.state !== 'running' && phone.state !== 'starting') return;
  const ranFor = phone.runningSince === null ? 0 : context.clock() - phone.runningSince;
  if (ranFor >= context.crashForgivenMs) phone.crashes = 0;
  phone.crashes += 1;
  // Why it stopped is known before the phone confirms the force-stop: the card says so at once.
  const final = phone.crashes >= 2;
  phone.lastErrorCode = 'helper_crashed';
  phone.lastError = final ? message : `${message}; it starts again on the next call`;
  await stopHelper(context, phone, null);
  if (final) {
    failHelper(
      context,
      phone,
      `${message}; it crashed twice, so the stock lane is used until the fast lane is enabled again`,
      'helper_crashed',
    );
  } else {
    phone.lastError = `${message}; it starts again on the next call`;
    phone.lastErrorCode = 'helper_crashed';
    context.changed();
  }
}

/** The helper served a call: its idle stop counts from now. */
export function touchHelper(context: ProcessContext, phone: PhoneHelper): void {
  phone.lastUsedAt = context.clock();
  armIdleStop(context, phone);
}

/** (Re)arms the idle stop for the current idle-stop time, counted from the helper's last use. */
export function armIdleStop(context: ProcessContext, phone: PhoneHelper): void {
  if (phone.idleTimer) clearTimeout(phone.idleTimer);
  phone.idleTimer = setTimeout(
    () => {
      phone.idleTimer = undefined;
      void stopHelper(context, phone, null);
    },
    Math.max(0, phone.lastUsedAt + context.idleStopMs() - context.clock()),
  );
  phone.idleTimer.unref();
}

/** The running helper's session for the lanes: each call goes to the phone's helper port through adb. */
export function helperSession(context: ProcessContext, phone: PhoneHelper): HelperSession {
  const sessionId = phone.sessionId ?? '';
  const shell = context.shellFor(phone.deviceId);
  const client = new HelperClient(opener(shell, phone, context.clock));
  return {
    version: phone.version ?? '',
    call: (method, path, body, options) =>
      client.call(method, `/session/${encodeURIComponent(sessionId)}${path}`, body, options),
  };
}

/**
 * Opens the phone's streams (the helper's ports through adb); fails as `helper_unavailable`
 * once the phone is gone. Each opening is noted in the phone's ledger, so the guard can tell
 * the bridge's own ended connections from anyone else's.
 */
export function opener(
  shell: DeviceShell | undefined,
  phone: Pick<PhoneHelper, 'ledger'>,
  clock: () => number,
): { openStream: NonNullable<DeviceShell['openStream']> } {
  return {
    openStream: (service, options) => {
      if (!shell?.openStream)
        return Promise.reject(new BridgeError('helper_unavailable', 'the phone is not connected'));
      phone.ledger.noteOpened(clock());
      return shell.openStream(service, options);
    },
  };
}
