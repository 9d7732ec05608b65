/**
 * One phone's input lane through scrcpy-server (Apache-2.0, shipped in `@u4/minicap-prebuilt`),
 * reached only through adb: nothing on the phone listens where an app or the network can reach.
 *
 * - The jar goes to a folder of the bridge's own under /data/local/tmp and is started only after
 *   `sha256sum` on the phone shows the package's bytes, before every start (a missing or
 *   tampered copy is pushed again; a copy that still differs is never run).
 * - It runs with `app_process` as the shell user in the foreground of an adb shell the session
 *   holds (if the bridge or adb goes, adbd hangs the shell up and the server ends), with a random
 *   `scid`: it listens on `localabstract:scrcpy_<scid>` for one connection (`tunnel_forward`),
 *   and the session takes it at once. `cleanup=false`: no second process is left to restore
 *   settings; `power_on=false`, `clipboard_autosync=false`: it does only what it is asked.
 * - **Barrier.** Injections have no answer. After each action the session sends START_APP for a
 *   package that cannot exist; the server's single control thread hands it to its app executor
 *   only after every earlier message was injected, and that executor prints `No app found for
 *   package "…"` on the server's log stream. The line proves the action reached InputManager;
 *   any refusal logged while injecting (Xiaomi's INJECT_EVENTS) is on the same stream before
 *   it. No clipboard read (no Android 12 "pasted from your clipboard" toast), nothing shown.
 *   It costs one `getInstalledApplications` walk on the phone.
 * - **Outcomes.** Before any byte of a call is written, a dead server is `helper_unavailable`
 *   (provably not performed: the lane may use stock `input`). Once written, a connection that
 *   ends or a deadline that passes before the barrier is `outcome_unknown` (never resend).
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { BridgeError, isBridgeError } from '../errors';
import { pauseFor, SHORT_COMMAND_MS } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, excerpt, runText } from '../devices/shell-quote';
import { minicapPrebuiltRoot } from '../stream/minicap-process';
import { installCheckedFiles, localFileSha256 } from '../program-lifecycle/checked-files';
import { connectWhenListening } from '../program-lifecycle/connect-when-listening';
import { classifyScrcpyOutput, failureError, type ScrcpyFailure } from './scrcpy-output';
import {
  ACTION,
  decodeDeviceMessages,
  encodeControlMessage,
  INJECT_TEXT_MAX_BYTES,
  type ControlMessage,
  type DeviceMessage,
} from './scrcpy-wire';

export const SCRCPY_VERSION = '3.3.1';
export const SCRCPY_DIR = '/data/local/tmp/xagent-scrcpy';
export const SCRCPY_JAR_REMOTE = `${SCRCPY_DIR}/scrcpy-server.jar`;
const MAIN_CLASS = 'com.genymobile.scrcpy.Server';
const OUTPUT_KEEP_CHARS = 64 * 1024;
/** ViewConfiguration's default long-press timeout is 400–500 ms; past it on every release. */
const LONG_PRESS_MS = 600;
/** A swipe's moves go at the display's frame rate, as a finger's would be sampled. */
const MOVE_EVERY_MS = 16;

/** The jar in the bridge's own package (the asar-unpacked copy in the packaged app), or null. */
export function scrcpyJarLocalPath(root = minicapPrebuiltRoot()): string | null {
  if (!root) return null;
  const path = join(root, 'scrcpy', `scrcpy-server-v${SCRCPY_VERSION}.jar`);
  return existsSync(path) ? path : null;
}

/** The shell line that starts the server: a fixed variable assignment, then every word quoted. */
export function scrcpyCommandLine(scid: number): string {
  return `CLASSPATH=${SCRCPY_JAR_REMOTE} ${buildCommandLine([
    'app_process',
    '/',
    MAIN_CLASS,
    SCRCPY_VERSION,
    `scid=${scidHex(scid)}`,
    'log_level=info',
    'video=false',
    'audio=false',
    'control=true',
    'tunnel_forward=true',
    'cleanup=false',
    'power_on=false',
    'clipboard_autosync=false',
    'send_device_meta=false',
    'send_dummy_byte=true',
  ])}`;
}

function scidHex(scid: number): string {
  return scid.toString(16).padStart(8, '0');
}

/** Puts the jar on the phone unless its copy already has the package's bytes; checks it after. */
export async function installScrcpyJar(shell: DeviceShell, local: string, signal?: AbortSignal): Promise<void> {
  await installCheckedFiles(
    shell,
    {
      files: [{ local, sha256: localFileSha256(local), remote: SCRCPY_JAR_REMOTE }],
      dir: SCRCPY_DIR,
      what: 'scrcpy-server',
    },
    signal,
  );
}

/** One finger of a gesture: where it is at each time (ms from the gesture's start). */
export interface PointerPath {
  points: ReadonlyArray<{ x: number; y: number; atMs: number }>;
}

export interface ScrcpyStartOptions {
  /** The phone's screen in its pixels (the touch messages carry it; the server does not check it). */
  screen: { width: number; height: number };
  /** Until the server answers the first barrier. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The jar to push (tests: a wrong one); default the package's. */
  jar?: string;
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

type SessionState = 'running' | 'stopping' | 'ended';

export class ScrcpyInputSession {
  private state: SessionState = 'running';
  private output = '';
  /** Characters dropped from the front of `output` (it is kept bounded). */
  private dropped = 0;
  private inbox = Buffer.alloc(0);
  private readonly deviceMessages: DeviceMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private barrierCount = 0;
  private sequence = 0n;
  /** Set once the phone refused an injection: every later input is refused before it is sent. */
  private refusal: ScrcpyFailure | undefined;
  /** One call at a time: their barriers and the server's pointer state are per session. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopped: Promise<void> | undefined;
  /** Resolves with the server's output when its shell ends (it exited, crashed, or was stopped). */
  readonly ended: Promise<string>;

  private constructor(
    private readonly shell: DeviceShell,
    private readonly session: Duplex,
    private readonly socket: Duplex,
    readonly scid: number,
    private readonly screen: { width: number; height: number },
    sessionEnded: Promise<void>,
  ) {
    this.ended = sessionEnded.then(() => this.output);
    socket.on('data', (chunk: Buffer) => this.onDeviceData(chunk));
    // The accept byte was read in paused mode; from here the socket flows.
    socket.resume();
    const gone = (): void => {
      if (this.state === 'running') this.state = 'ended';
      this.wake();
    };
    socket.on('close', gone);
    socket.on('error', gone);
    void sessionEnded.then(() => {
      gone();
      socket.destroy();
    });
  }

  /** Installs (or checks) the jar, then runs the server (`run`): what a caller without a lifecycle uses. */
  static async start(shell: DeviceShell, options: ScrcpyStartOptions): Promise<ScrcpyInputSession> {
    const local = options.jar ?? scrcpyJarLocalPath();
    if (!local) throw new BridgeError('tool_unavailable', 'the bridge’s package has no scrcpy-server');
    await installScrcpyJar(shell, local, options.signal);
    return ScrcpyInputSession.run(shell, options);
  }

  /**
   * Starts the server from the jar already checked on the phone (`installScrcpyJar`, the
   * lifecycle's verify step, just before), connects, and proves injection works with a first
   * barrier.
   */
  static async run(shell: DeviceShell, options: Omit<ScrcpyStartOptions, 'jar'>): Promise<ScrcpyInputSession> {
    if (!shell.openStream)
      throw new BridgeError('tool_unavailable', 'this connection to the phone cannot open streams');
    const openStream = shell.openStream.bind(shell);
    const deadline = performance.now() + options.timeoutMs;
    const left = (): number => Math.max(1, deadline - performance.now());
    const signalOpt = options.signal ? { signal: options.signal } : {};

    // 31 bits, as Options.java reads it (Integer.parseInt(value, 16), never negative).
    const scid = randomInt(1, 0x7fffffff);
    const session = await openStream(`shell:${scrcpyCommandLine(scid)}`, { timeoutMs: left(), ...signalOpt });
    let output = '';
    let sessionEnded = false;
    // Until the session takes it over (and keeps it bounded), the output is kept here for a start failure's words.
    let onOutput = (text: string): void => {
      output += text;
    };
    const decoder = new StringDecoder('utf8');
    const ended = new Promise<void>((resolve) => {
      const end = (): void => {
        sessionEnded = true;
        resolve();
      };
      session.on('data', (chunk: Buffer) => onOutput(decoder.write(chunk)));
      session.once('end', end);
      session.once('close', end);
      session.once('error', end);
    });
    session.resume();

    let socket: Duplex;
    try {
      socket = await connectWhenListening({
        open: (timeoutMs) => openStream(`localabstract:scrcpy_${scidHex(scid)}`, { timeoutMs, ...signalOpt }),
        // The server writes one byte once it accepted (send_dummy_byte): adbd's connect to a name
        // nobody listens on is refused, but a slow accept is not a failure.
        accepted: (socket, timeoutMs) => readOneByte(socket, timeoutMs, options.signal),
        ended: () => (sessionEnded ? startFailure(output) : null),
        deadline,
        what: 'scrcpy-server',
        timeoutMs: options.timeoutMs,
        ...signalOpt,
      });
    } catch (error) {
      session.destroy();
      throw error;
    }
    const lane = new ScrcpyInputSession(shell, session, socket, scid, options.screen, ended);
    lane.output = output;
    onOutput = (text) => lane.onOutput(text);
    try {
      // A key the system ignores, then the barrier: a phone that refuses injection says so now.
      await lane.call(
        [
          { type: 'key', action: ACTION.down, keycode: 0, repeat: 0, metaState: 0 },
          { type: 'key', action: ACTION.up, keycode: 0, repeat: 0, metaState: 0 },
        ],
        { timeoutMs: left(), ...signalOpt },
      );
    } catch (error) {
      await lane.stop();
      throw error;
    }
    return lane;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** What the server printed so far (its log and any stack trace). */
  log(): string {
    return this.output;
  }

  tap(x: number, y: number, options: CallOptions): Promise<void> {
    return this.gesture(
      [
        {
          points: [
            { x, y, atMs: 0 },
            { x, y, atMs: 0 },
          ],
        },
      ],
      options,
    );
  }

  longPress(x: number, y: number, options: CallOptions & { durationMs?: number }): Promise<void> {
    const ms = options.durationMs ?? LONG_PRESS_MS;
    return this.gesture(
      [
        {
          points: [
            { x, y, atMs: 0 },
            { x, y, atMs: ms },
          ],
        },
      ],
      options,
    );
  }

  swipe(x1: number, y1: number, x2: number, y2: number, durationMs: number, options: CallOptions): Promise<void> {
    const steps = Math.max(1, Math.round(durationMs / MOVE_EVERY_MS));
    const points = Array.from({ length: steps + 1 }, (_, i) => ({
      x: x1 + ((x2 - x1) * i) / steps,
      y: y1 + ((y2 - y1) * i) / steps,
      atMs: (durationMs * i) / steps,
    }));
    return this.gesture([{ points }], options);
  }

  /**
   * Fingers moving together (pinch, two-finger swipe): each path's first point puts its finger
   * down, its last lifts it. Moves are paced on this computer: the server stamps each event
   * when it reads it.
   */
  gesture(paths: readonly PointerPath[], options: CallOptions): Promise<void> {
    if (paths.length === 0 || paths.length > 10 || paths.some((p) => p.points.length < 1))
      return Promise.reject(new BridgeError('invalid_arguments', 'a gesture has 1 to 10 fingers, each with a point'));
    // Every point in time, in order; a finger is down from its first point to its last.
    const times = [...new Set(paths.flatMap((p) => p.points.map((q) => q.atMs)))].sort((a, b) => a - b);
    const steps: Array<{ atMs: number; messages: ControlMessage[] }> = times.map((atMs) => ({ atMs, messages: [] }));
    paths.forEach((path, finger) => {
      const last = path.points.length - 1;
      path.points.forEach((point, i) => {
        const step = steps.find((s) => s.atMs === point.atMs);
        const action = i === 0 ? ACTION.down : i === last ? ACTION.up : ACTION.move;
        step?.messages.push(this.touch(action, finger, point.x, point.y));
        // A one-point finger goes down and up at the same moment.
        if (last === 0) step?.messages.push(this.touch(ACTION.up, finger, point.x, point.y));
      });
    });
    return this.call(steps, options, true);
  }

  /** A key press (down and up), or a long press (down, a repeat past the long-press timeout, up). */
  key(keycode: number, options: CallOptions & { longPress?: boolean; metaState?: number }): Promise<void> {
    const meta = options.metaState ?? 0;
    const k = (action: number, repeat: number): ControlMessage => ({
      type: 'key',
      action,
      keycode,
      repeat,
      metaState: meta,
    });
    if (!options.longPress) return this.call([k(ACTION.down, 0), k(ACTION.up, 0)], options);
    return this.call(
      [
        { atMs: 0, messages: [k(ACTION.down, 0)] },
        { atMs: LONG_PRESS_MS, messages: [k(ACTION.down, 1), k(ACTION.up, 0)] },
      ],
      options,
      true,
    );
  }

  /** Only the down or only the up half of a key (holding a modifier across calls). */
  keyAction(keycode: number, action: 'down' | 'up', options: CallOptions): Promise<void> {
    return this.call([{ type: 'key', action: ACTION[action], keycode, repeat: 0, metaState: 0 }], options);
  }

  /** A mouse-wheel scroll at (x, y): positive `vertical` scrolls the content up (towards its top). */
  scroll(x: number, y: number, horizontal: number, vertical: number, options: CallOptions): Promise<void> {
    return this.call([{ type: 'scroll', x, y, ...this.size(), h: horizontal, v: vertical, buttons: 0 }], options);
  }

  /**
   * Text in any language: put on the clipboard and pasted into the focused field, answered by
   * the server's clipboard acknowledgement (sent after the PASTE key was injected). The previous
   * clipboard is not put back: PASTE is injected without waiting, and the app reads the
   * clipboard when it handles the key, so restoring it at once could paste the old text.
   */
  typeText(text: string, options: CallOptions): Promise<void> {
    return this.clipboardCall(text, true, options);
  }

  /**
   * Printable ASCII typed as key events (INJECT_TEXT: the server maps each character through
   * the virtual keyboard's KeyCharacterMap), in pieces of at most 300 bytes as scrcpy's own
   * client sends them. The clipboard is not touched. Other characters are refused before
   * anything is sent: they go by paste (`typeText`).
   */
  injectText(text: string, options: CallOptions): Promise<void> {
    if (!/^[\x20-\x7e]*$/.test(text))
      return Promise.reject(
        new BridgeError('invalid_arguments', 'only printable ASCII is typed as key events; other text is pasted'),
      );
    const pieces: ControlMessage[] = [];
    for (let at = 0; at < text.length; at += INJECT_TEXT_MAX_BYTES)
      pieces.push({ type: 'text', text: text.slice(at, at + INJECT_TEXT_MAX_BYTES) });
    return this.serial(async () => {
      this.checkRefusal();
      const from = this.dropped + this.output.length;
      await this.send([pieces], options, true);
      const said = this.output.slice(Math.max(0, from - this.dropped));
      if (/Could not inject char/.test(said))
        throw new BridgeError(
          'outcome_unknown',
          'scrcpy-server could not type every character (the phone’s keyboard map lacks some); part of the text may have been typed',
        );
    });
  }

  /** Sets the phone's clipboard (no paste). */
  setClipboard(text: string, options: CallOptions): Promise<void> {
    return this.clipboardCall(text, false, options);
  }

  /**
   * The clipboard's text, or null when it holds none (the server then sends nothing; the barrier
   * after it tells that apart from an answer still on its way: both travel in order).
   */
  getClipboard(options: CallOptions): Promise<string | null> {
    return this.serial(async () => {
      const before = this.deviceMessages.length;
      await this.send([[{ type: 'getClipboard', copyKey: 0 }]], options, false);
      // The clipboard answer is written by the server's sender thread before the barrier's
      // app lookup even starts; give it the barrier's own deadline to arrive.
      const answer = await this.waitFor(
        () => this.deviceMessages.slice(before).find((m) => m.type === 'clipboard'),
        Math.min(200, options.timeoutMs),
        options.signal,
      ).catch(() => undefined);
      return answer?.type === 'clipboard' ? answer.text : null;
    });
  }

  /** Starts an app by package name; `app_not_found` when the phone has none it can launch. */
  startApp(packageName: string, options: CallOptions): Promise<void> {
    if (!/^[A-Za-z][\w.]*$/.test(packageName) || Buffer.byteLength(packageName) > 255)
      return Promise.reject(new BridgeError('invalid_arguments', 'not a package name'));
    return this.serial(async () => {
      const from = this.dropped + this.output.length;
      await this.send([[{ type: 'startApp', name: packageName }]], options, false);
      const said = this.output.slice(Math.max(0, from - this.dropped));
      const missing = [
        `No app found for package "${packageName}"`,
        `Cannot create launch intent for app ${packageName}`,
      ];
      if (missing.some((m) => said.includes(m)))
        throw new BridgeError('app_not_found', `no app ${packageName} that can be started on this phone`);
    });
  }

  /** Ends the server (its control socket closes, then its shell) and waits for its shell to end. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      if (this.state === 'running') this.state = 'stopping';
      this.socket.destroy();
      // The server exits when its control connection closes; the shell then ends by itself.
      const exited = await Promise.race([
        this.ended.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000).unref()),
      ]);
      // Closing the shell makes adbd hang it up: the server gets SIGHUP.
      this.session.destroy();
      if (!exited)
        await runText(this.shell, ['pkill', '-f', `scid=${scidHex(this.scid)}`], { timeoutMs: SHORT_COMMAND_MS }).catch(
          () => undefined,
        );
      this.state = 'ended';
      this.wake();
    })();
    return this.stopped;
  }

  private size(): { screenWidth: number; screenHeight: number } {
    return { screenWidth: this.screen.width, screenHeight: this.screen.height };
  }

  private touch(action: number, finger: number, x: number, y: number): ControlMessage {
    return {
      type: 'touch',
      action,
      pointerId: BigInt(finger),
      x,
      y,
      ...this.size(),
      pressure: action === ACTION.up ? 0 : 1,
      actionButton: 0,
      buttons: 0,
    };
  }

  private clipboardCall(text: string, paste: boolean, options: CallOptions): Promise<void> {
    return this.serial(async () => {
      if (paste) this.checkRefusal();
      this.sequence += 1n;
      const sequence = this.sequence;
      let message: ControlMessage;
      try {
        message = { type: 'setClipboard', sequence, paste, text };
        encodeControlMessage(message);
      } catch (error) {
        throw new BridgeError('invalid_arguments', error instanceof Error ? error.message : 'text too long');
      }
      const from = this.dropped + this.output.length;
      this.checkAlive();
      this.socket.write(encodeControlMessage(message));
      await this.waitFor(
        () => this.deviceMessages.find((m) => m.type === 'ackClipboard' && m.sequence === sequence),
        options.timeoutMs,
        options.signal,
      ).catch(async (error: unknown) => {
        // A phone that refuses the shell's clipboard throws before it sets anything, and the
        // server dies: its last words (all out once its shell ended) tell that nothing was done.
        if (this.state !== 'running') {
          await Promise.race([this.ended, pauseFor(Math.min(2_000, options.timeoutMs), options.signal)]);
          const failure = classifyScrcpyOutput(this.output.slice(Math.max(0, from - this.dropped)));
          if (failure?.kind === 'clipboard_refused') throw failureError(failure, 'the phone refused the clipboard');
        }
        throw this.unknown(error, paste ? 'the text' : 'the clipboard');
      });
      this.afterBarrier(from, paste ? 'typing' : 'setting the clipboard');
    });
  }

  /** Sends messages (optionally paced) and the barrier after them; one call at a time. */
  private call(
    steps: ReadonlyArray<{ atMs: number; messages: ControlMessage[] }> | ControlMessage[],
    options: CallOptions,
    paced = false,
  ): Promise<void> {
    return this.serial(async () => {
      this.checkRefusal();
      const batches = paced
        ? (steps as ReadonlyArray<{ atMs: number; messages: ControlMessage[] }>)
        : [{ atMs: 0, messages: steps as ControlMessage[] }];
      await this.send(
        batches.map((b) => b.messages),
        options,
        true,
        batches.map((b) => b.atMs),
      );
    });
  }

  private async send(
    batches: ControlMessage[][],
    options: CallOptions,
    input: boolean,
    times: number[] = [],
  ): Promise<void> {
    const started = performance.now();
    const from = this.dropped + this.output.length;
    this.checkAlive();
    let written = false;
    this.barrierCount += 1;
    const name = `xagent.barrier.s${scidHex(this.scid)}.n${this.barrierCount}`;
    try {
      // At least one write: a call with no messages (the barrier alone) still sends the barrier.
      const writes = Math.max(1, batches.length);
      for (let i = 0; i < writes; i++) {
        const wait = (times[i] ?? 0) - (performance.now() - started);
        if (written && wait > 0) await pauseFor(wait, options.signal);
        if (!written) this.checkAlive();
        else if (this.state !== 'running')
          throw new BridgeError(
            'outcome_unknown',
            'scrcpy-server went away in the middle of a gesture; whether it acted is unknown',
          );
        const messages = batches[i] ?? [];
        // The barrier rides in the last batch's write: one segment for a tap, not two.
        this.socket.write(
          Buffer.concat(
            (i === writes - 1 ? [...messages, { type: 'startApp' as const, name }] : messages).map(
              encodeControlMessage,
            ),
          ),
        );
        written = true;
      }
      const line = `No app found for package "${name}"`;
      const left = Math.max(1, options.timeoutMs - (performance.now() - started));
      // Looked for in what the server said since this call's first byte (not the whole kept output).
      await this.waitFor(
        () => (this.output.indexOf(line, Math.max(0, from - this.dropped)) >= 0 ? true : undefined),
        left,
        options.signal,
      );
    } catch (error) {
      if (!written && !(isBridgeError(error) && error.code === 'outcome_unknown')) throw error;
      throw this.unknown(error, 'the input');
    }
    if (input) this.afterBarrier(from, 'the input');
  }

  /** After a barrier: a refusal the server logged since `from` fails the call (nothing was injected). */
  private afterBarrier(from: number, what: string): void {
    const said = this.output.slice(Math.max(0, from - this.dropped));
    const failure = classifyScrcpyOutput(said);
    if (!failure) return;
    if (failure.kind === 'inject_denied') this.refusal = failure;
    throw failureError(failure, `the phone refused ${what}`);
  }

  private checkRefusal(): void {
    if (this.refusal) throw failureError(this.refusal, 'the phone refuses injected input');
  }

  /** Before a call's first byte: a server that is gone means nothing was sent (safe to use stock input). */
  private checkAlive(): void {
    if (this.state === 'running' && !this.socket.destroyed) return;
    const failure = classifyScrcpyOutput(this.output);
    throw new BridgeError(
      'helper_unavailable',
      `scrcpy-server is not running on the phone${failure ? ` (${failure.line})` : ''}; nothing was sent`,
      failure ? { fix: failure.fix, scrcpyFailure: failure.kind } : undefined,
    );
  }

  private unknown(error: unknown, what: string): BridgeError {
    if (isBridgeError(error) && (error.code === 'outcome_unknown' || error.code === 'canceled')) {
      if (error.code === 'outcome_unknown') return error;
    }
    const why =
      isBridgeError(error) && error.code === 'canceled'
        ? 'the call was canceled'
        : this.state !== 'running'
          ? 'scrcpy-server went away before confirming it'
          : 'scrcpy-server did not confirm it in time';
    return new BridgeError('outcome_unknown', `${what} was sent but ${why}; whether it acted is unknown`);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private onOutput(text: string): void {
    this.output += text;
    if (this.output.length > OUTPUT_KEEP_CHARS) {
      const cut = this.output.length - OUTPUT_KEEP_CHARS / 2;
      this.output = this.output.slice(cut);
      this.dropped += cut;
    }
    this.wake();
  }

  private onDeviceData(chunk: Buffer): void {
    this.inbox = Buffer.concat([this.inbox, chunk]);
    try {
      const { messages, used } = decodeDeviceMessages(this.inbox);
      this.inbox = this.inbox.subarray(used);
      this.deviceMessages.push(...messages);
      // Only the newest matter to a waiter; keep the list short.
      if (this.deviceMessages.length > 64) this.deviceMessages.splice(0, this.deviceMessages.length - 64);
    } catch {
      this.socket.destroy();
    }
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with `check()`'s first defined value; rejects when the session ends, the time passes or the signal aborts. */
  private waitFor<T>(check: () => T | undefined, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = (error: BridgeError | null, value?: T): void => {
        clearTimeout(timer);
        this.waiters.delete(poll);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(value as T);
      };
      const poll = (): void => {
        const value = check();
        if (value !== undefined) return done(null, value);
        if (this.state !== 'running')
          done(new BridgeError('outcome_unknown', 'scrcpy-server went away before confirming'));
      };
      const onAbort = (): void => done(new BridgeError('canceled', 'the call was canceled'));
      const timer = setTimeout(
        () => done(new BridgeError('command_timeout', `no confirmation within ${timeoutMs} ms`)),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(poll);
      poll();
    });
  }
}

function readOneByte(socket: Duplex, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      socket.removeListener('readable', onReadable);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onEnd);
      socket.removeListener('error', onEnd);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onReadable = (): void => {
      const byte = socket.read(1) as Buffer | null;
      if (byte) finish();
    };
    const onEnd = (): void => finish(new Error('closed before the server accepted'));
    const onAbort = (): void => finish(new BridgeError('canceled', 'canceled'));
    const timer = setTimeout(() => finish(new Error('no accept byte')), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('readable', onReadable);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.once('error', onEnd);
    onReadable();
  });
}

/** The server's own last words when it did not start (too old an Android, a wrong jar, a crash). */
function startFailure(output: string): BridgeError {
  const failure = classifyScrcpyOutput(output);
  if (failure) return failureError(failure, 'scrcpy-server did not start');
  const last = output.replaceAll('\r\n', '\n').trim().split('\n').at(-1) ?? '';
  return new BridgeError('command_failed', `scrcpy-server did not start${excerpt(last)}`);
}
