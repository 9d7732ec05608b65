/**
 * scrcpy-server on the simulated phone, run as real phones run it:
 * `CLASSPATH=<jar> app_process / com.genymobile.scrcpy.Server <version> key=value…`.
 *
 * - The jar must be one of the `@u4/minicap-prebuilt` package's scrcpy-server builds, byte for
 *   byte; anything else is not a dex ART can load (app_process then fails as for any missing
 *   class: process-utils.ts). A build of another version refuses a client of a different
 *   version, as Options.parse does.
 * - With `tunnel_forward=true` it listens on the abstract socket `scrcpy_<scid>` for the
 *   connections it was told to expect (here: control only), writes the dummy byte, and stops
 *   listening (Java's try-with-resources closes the LocalServerSocket). Nothing listens on TCP.
 * - Control messages (main/core/scrcpy/scrcpy-wire.ts decodes them, as ControlMessageReader
 *   does) act on the phone as `input` does: touches become taps, long presses and swipes by
 *   their time and distance, keys act on UP, SET_CLIPBOARD sets the clip and injects PASTE,
 *   GET_CLIPBOARD answers with the text (the shell holds READ_CLIPBOARD_IN_BACKGROUND on
 *   Android 10+), START_APP launches or logs `No app found for package "…"`.
 * - Quirks: `inject-events-denied` (Xiaomi) logs the SecurityException InputManager.java
 *   prints (once per 3 s, as the server limits it) and injects nothing; `clipboard-refused`
 *   kills the control thread as on the Meizu of Genymobile/scrcpy#6224; Android before 5.0
 *   cannot run it. Sources: main/sim/QUIRKS.md "scrcpy-server".
 * - `list_apps=true` prints the launchable apps with their labels and exits, as `scrcpy
 *   --list-apps` has it run (deleting its own jar first unless `cleanup=false`).
 * - It ends when its control connection closes (the Controller's thread stops and the server
 *   exits), when its adb shell hangs up, or on `kill`.
 *
 * On a raw `shell:` stream the program's stdout and stderr are one stream in the order written,
 * so every line goes to `io.out` (the sim's live output carries stdout as it is written).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getPrebuilt } from '@u4/minicap-prebuilt';
import { ACTION, decodeControlMessages, encodeDeviceMessage, type ControlMessage } from '../../core/scrcpy/scrcpy-wire';
import type { CommandIo, PhoneContext } from '../commands/command-types';
import { normalizePhonePath } from '../phone-fs';
import { SIGNALS } from '../phone-processes';
import { KEYCODE } from '../screen/keycodes';
import { scrcpyTimingMs } from '../timing-profiles';

export const SCRCPY_MAIN_CLASS = 'com.genymobile.scrcpy.Server';
/** Android 5.0: scrcpy's minSdkVersion (server/build.gradle). */
export const SCRCPY_MIN_SDK = 21;
/** How far a finger may move and still tap (ViewConfiguration's touch slop, 8 dp at 420 dpi). */
const SLOP_PX = 24;
/** ViewConfiguration.getLongPressTimeout on Android 12+. */
const LONG_PRESS_MS = 400;

let jarVersions: Map<string, string> | undefined;

/** The scrcpy-server version whose jar has exactly these bytes, or undefined. */
export function identifyScrcpyJar(data: Buffer): string | undefined {
  if (!jarVersions) {
    jarVersions = new Map();
    const dir = getPrebuilt('scrcpy');
    for (const name of readdirSync(dir)) {
      const version = /^scrcpy-server-v(.+)\.jar$/.exec(name)?.[1];
      if (version)
        jarVersions.set(
          createHash('sha256')
            .update(readFileSync(join(dir, name)))
            .digest('hex'),
          version,
        );
    }
  }
  return jarVersions.get(createHash('sha256').update(data).digest('hex'));
}

/** `app_process` with scrcpy-server's jar and class; undefined when it is not that (another program). */
export function runScrcpyServer(
  io: CommandIo,
  phone: PhoneContext,
  classPath: string,
  className: string,
  args: readonly string[],
): Promise<number> | undefined {
  if (className !== SCRCPY_MAIN_CLASS) return undefined;
  const jar = normalizePhonePath(classPath, io.cwd);
  const data = phone.fs.read(jar);
  const version = data ? identifyScrcpyJar(data) : undefined;
  if (!version) return undefined;
  return runServer(io, phone, version, args, jar);
}

/**
 * `list_apps=true`: each launchable app with the label its launcher shows, sorted as
 * LogUtils.buildAppListMessage sorts them (system apps first, then by name, then package), the
 * name padded to 30 columns, or the package on the next line when the name is that long.
 */
export function appListMessage(apps: ReadonlyArray<{ pkg: string; label: string; system: boolean }>): string {
  const column = 30;
  const sorted = [...apps].sort(
    (a, b) =>
      Number(b.system) - Number(a.system) ||
      (a.label < b.label ? -1 : a.label > b.label ? 1 : 0) ||
      (a.pkg < b.pkg ? -1 : a.pkg > b.pkg ? 1 : 0),
  );
  let text = 'List of apps:';
  for (const app of sorted) {
    const padding = column - app.label.length;
    text += `\n ${app.system ? '* ' : '- '}${app.label}`;
    text += padding > 0 ? ' '.repeat(padding) : `\n   ${' '.repeat(column)}`;
    text += ` ${app.pkg}`;
  }
  return text;
}

interface Pointer {
  id: bigint;
  downAt: number;
  x0: number;
  y0: number;
  x: number;
  y: number;
}

async function runServer(
  io: CommandIo,
  phone: PhoneContext,
  version: string,
  args: readonly string[],
  jar: string,
): Promise<number> {
  const log = (level: 'INFO' | 'WARN' | 'ERROR', text: string): void =>
    (io.outNow ?? io.out)(`[server] ${level}: ${text}\n`);
  if (phone.info.sdk < SCRCPY_MIN_SDK) {
    // Dalvik cannot resolve the API 21 classes the server links against at start.
    io.out(
      'Exception in thread "main" java.lang.NoClassDefFoundError: android.system.ErrnoException\n' +
        '\tat com.genymobile.scrcpy.Server.main(Server.java)\n',
    );
    return 1;
  }
  const process = phone.processes.spawn('app_process');
  const hangUp = (): void => process.signal(SIGNALS.HUP);
  io.signal.addEventListener('abort', hangUp, { once: true });
  try {
    if (!(await phone.sleep(scrcpyTimingMs(phone.profile, 'start'), process.ended))) return 128 + SIGNALS.HUP;
    const clientVersion = args[0];
    if (clientVersion !== version) {
      const message = clientVersion
        ? `The server version (${version}) does not match the client (${clientVersion})`
        : 'Missing client version';
      log('ERROR', message);
      io.out(
        `java.lang.IllegalArgumentException: ${message}\n\tat com.genymobile.scrcpy.Options.parse(Options.java:300)\n`,
      );
      return 1;
    }
    const options = new Map<string, string>();
    for (const arg of args.slice(1)) {
      const eq = arg.indexOf('=');
      if (eq < 0) {
        log('ERROR', `Invalid key=value pair: "${arg}"`);
        return 1;
      }
      options.set(arg.slice(0, eq), arg.slice(eq + 1));
    }
    const scid = Number.parseInt(options.get('scid') ?? '-1', 16);
    const flag = (key: string, byDefault: boolean): boolean =>
      options.has(key) ? options.get(key) === 'true' : byDefault;
    log(
      'INFO',
      `Device: [${phone.info.manufacturer}] ${phone.info.brand} ${phone.info.model} (Android ${phone.info.androidVersion})`,
    );
    if (flag('list_apps', false)) {
      // A list run prints and exits; with cleanup (the default) it first deletes its own jar (CleanUp.unlinkSelf).
      if (flag('cleanup', true)) phone.fs.remove(jar, false);
      log('INFO', appListMessage(phone.packages.launchable()));
      return 0;
    }
    if (!flag('tunnel_forward', false) || flag('video', true) || flag('audio', true) || !flag('control', true)) {
      // Reverse tunnels, video and audio are not simulated: the sim serves the input lane only.
      log('ERROR', 'the simulated scrcpy-server serves only video=false audio=false control=true tunnel_forward=true');
      return 1;
    }
    let exitedOnItsOwn = false;
    const socketName = scid >= 0 ? `scrcpy_${scid.toString(16).padStart(8, '0')}` : 'scrcpy';
    const connected = new Promise<void>((resolve) => {
      const accepted = phone.processes.listen(process.pid, socketName, async (channel) => {
        // One connection: the server socket is closed once the control socket is accepted.
        phone.processes.unlisten(process.pid, socketName);
        resolve();
        await serveControl(channel, phone, log, flag('send_dummy_byte', true), process.ended);
        // The Controller's thread ended (EOF or a crash): the server exits by itself.
        exitedOnItsOwn = true;
        process.exit();
      });
      if (!accepted) {
        log('ERROR', 'java.io.IOException: Address already in use');
        process.exit();
      }
    });
    await Promise.race([connected, untilEnded(process.ended)]);
    await untilEnded(process.ended);
    return exitedOnItsOwn ? 0 : 128 + SIGNALS.HUP;
  } finally {
    io.signal.removeEventListener('abort', hangUp);
    process.exit();
  }
}

function untilEnded(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function serveControl(
  channel: {
    readSome(): Promise<Buffer | undefined>;
    write(data: Buffer): Promise<void>;
    close(): void;
    signal: AbortSignal;
  },
  phone: PhoneContext,
  log: (level: 'INFO' | 'WARN' | 'ERROR', text: string) => void,
  dummyByte: boolean,
  ended: AbortSignal,
): Promise<void> {
  const onEnd = (): void => channel.close();
  ended.addEventListener('abort', onEnd, { once: true });
  const pointers: Pointer[] = [];
  /** The gesture's first finger: what the screen model acts on (it has no multi-touch gestures). */
  let first: Pointer | undefined;
  const keysDown = new Map<number, number>();
  let lastRefusalLog = -Infinity;
  /** The app executor: one thread, so its lines come out in the order the messages came. */
  let apps: Promise<void> = Promise.resolve();
  try {
    if (dummyByte) await channel.write(Buffer.from([0]));
    let pending = Buffer.alloc(0);
    for (;;) {
      const chunk = await channel.readSome();
      if (!chunk || ended.aborted) return;
      pending = Buffer.concat([pending, chunk]);
      let decoded: { messages: ControlMessage[]; used: number };
      try {
        decoded = decodeControlMessages(pending);
      } catch (error) {
        log(
          'ERROR',
          `Controller error\ncom.genymobile.scrcpy.control.ControlProtocolException: ${(error as Error).message}`,
        );
        return;
      }
      pending = pending.subarray(decoded.used);
      for (const message of decoded.messages) {
        if (ended.aborted) return;
        await phone.sleep(scrcpyTimingMs(phone.profile, 'message'), ended);
        const result = handle(message);
        if (result === 'crash') return;
        if (result) await channel.write(result).catch(() => undefined);
      }
    }
  } finally {
    ended.removeEventListener('abort', onEnd);
    channel.close();
  }

  /** Whether the phone lets the shell inject; logs the refusal as InputManager's wrapper does. */
  function mayInject(): boolean {
    if (!phone.quirks.has('inject-events-denied')) return true;
    const now = phone.now();
    if (lastRefusalLog <= now - 3000) {
      log(
        'ERROR',
        phone.info.sdk >= 33
          ? 'Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.'
          : 'Injecting to another application requires INJECT_EVENTS permission',
      );
      log('ERROR', 'Make sure you have enabled "USB debugging (Security Settings)" and then rebooted your device.');
      lastRefusalLog = now;
    }
    return false;
  }

  function handle(message: ControlMessage): Buffer | 'crash' | undefined {
    switch (message.type) {
      case 'touch':
        if (mayInject()) touch(message);
        return undefined;
      case 'key': {
        if (!mayInject()) return undefined;
        if (message.action === ACTION.down && message.repeat === 0) keysDown.set(message.keycode, phone.now());
        if (message.action === ACTION.up && keysDown.delete(message.keycode) && message.keycode !== KEYCODE.UNKNOWN)
          phone.input.key(message.keycode);
        return undefined;
      }
      case 'text':
        // Controller.injectText: each char through the virtual keyboard's KeyCharacterMap; one it
        // cannot map (outside ASCII) is skipped with a warning.
        if (!mayInject()) return undefined;
        {
          let run = '';
          for (const char of message.text) {
            if (/^[\x20-\x7e]$/.test(char)) {
              run += char;
              continue;
            }
            if (run) phone.input.typeText(run);
            run = '';
            log('WARN', `Could not inject char u+${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
          }
          if (run) phone.input.typeText(run);
        }
        return undefined;
      case 'scroll':
        if (mayInject()) {
          // A wheel notch scrolls a list by about a finger's short swipe (64 dp here).
          const dy = Math.round(message.v * 160);
          const dx = Math.round(message.h * -160);
          phone.input.swipe(message.x, message.y, message.x + dx, message.y + dy, 100);
        }
        return undefined;
      case 'getClipboard': {
        if (phone.quirks.has('clipboard-refused')) return crashOnClipboard('getText', 27);
        const text = phone.clipboard.text();
        return text === undefined ? undefined : encodeDeviceMessage({ type: 'clipboard', text });
      }
      case 'setClipboard': {
        if (phone.quirks.has('clipboard-refused')) return crashOnClipboard('setText', 119);
        if (phone.clipboard.text() !== message.text) {
          // ClipData.newPlainText(null, text): no label.
          phone.clipboard.set(message.text, '');
          log('INFO', 'Device clipboard set');
        }
        if (message.paste && phone.info.sdk >= 24 && mayInject()) phone.input.key(KEYCODE.PASTE);
        return message.sequence !== 0n
          ? encodeDeviceMessage({ type: 'ackClipboard', sequence: message.sequence })
          : undefined;
      }
      case 'startApp': {
        const name = message.name;
        apps = apps.then(async () => {
          const pkg = name.replace(/^\+/, '');
          await phone.sleep(scrcpyTimingMs(phone.profile, 'appLookup'), ended);
          const app = phone.packages.get(pkg);
          if (!phone.packages.has(pkg)) return log('WARN', `No app found for package "${pkg}"`);
          if (!app?.launchable) return log('WARN', `Cannot create launch intent for app ${pkg}`);
          log('INFO', `Starting app "${app.label}" [${pkg}] on display 0...`);
          phone.screen.launchApp(pkg);
        });
        return undefined;
      }
    }
  }

  function crashOnClipboard(method: string, line: number): 'crash' {
    log('ERROR', 'Exception on thread Thread[control-recv,5,main]');
    io(
      'java.lang.SecurityException: Calling uid 0 does not own package com.android.shell\n' +
        '\tat android.content.IClipboard$Stub$Proxy.getPrimaryClip(IClipboard.java:333)\n' +
        `\tat com.genymobile.scrcpy.wrappers.ClipboardManager.${method}(ClipboardManager.java:${line})\n` +
        '\tat com.genymobile.scrcpy.control.Controller.handleEvent(Controller.java:306)\n',
    );
    return 'crash';
  }

  function io(text: string): void {
    log('ERROR', text.trimEnd());
  }

  function touch(m: ControlMessage & { type: 'touch' }): void {
    const now = phone.now();
    const p = pointers.find((q) => q.id === m.pointerId);
    if (m.action === ACTION.down) {
      if (p || pointers.length >= 10) return;
      const finger = { id: m.pointerId, downAt: now, x0: m.x, y0: m.y, x: m.x, y: m.y };
      pointers.push(finger);
      first ??= finger;
      return;
    }
    if (!p) return;
    p.x = m.x;
    p.y = m.y;
    if (m.action !== ACTION.up) return;
    pointers.splice(pointers.indexOf(p), 1);
    if (pointers.length > 0 || !first) return; // the gesture goes on until its last finger lifts
    const g = first;
    first = undefined;
    const moved = Math.hypot(g.x - g.x0, g.y - g.y0);
    const held = now - g.downAt;
    if (moved > SLOP_PX) phone.input.swipe(g.x0, g.y0, g.x, g.y, held);
    else if (held >= LONG_PRESS_MS) phone.input.longPress(g.x0, g.y0);
    else phone.input.tap(g.x0, g.y0);
  }
}
