/**
 * Running minicap on the simulated phone, the two ways real phones run it (DeviceFarmer/minicap
 * run.sh): the native binary with its shared library
 * (`LD_LIBRARY_PATH=/data/local/tmp /data/local/tmp/minicap -P …`) and the APK through
 * app_process (`CLASSPATH=/data/local/tmp/minicap.apk app_process /system/bin
 * io.devicefarmer.minicap.Main -P …`). The phone decides by the bytes pushed: the binary, the
 * library and the APK must be the `@u4/minicap-prebuilt` package's files (minicap-files.ts), and
 * a binary or library built for another ABI or SDK fails the way bionic's linker and mksh fail
 * (texts and sources in QUIRKS.md). A running minicap is a process (`ps`, `pidof`, `kill`) that
 * listens on its abstract socket (adbd `localabstract:minicap`) until it is killed, its adb
 * shell hangs up (adbd sends SIGHUP), or a crash quirk ends it.
 */
import type { CommandIo, PhoneContext } from '../commands/command-types';
import { normalizePhonePath } from '../phone-fs';
import { SIGNALS } from '../phone-processes';
import { minicapTimingMs } from '../timing-profiles';
import {
  MINICAP_ABIS,
  identifyMinicapFile,
  minicapLibraryExists,
  type MinicapAbi,
  type MinicapFile,
} from './minicap-files';
import { MinicapStream, QUIRK_ALWAYS_UPRIGHT, type MinicapScreen } from './minicap-stream';

const SHELL = '/system/bin/sh';
export const MINICAP_APK_MAIN_CLASS = 'io.devicefarmer.minicap.Main';
/** Frames served before the `minicap-segfault` quirk's crash ("works for a few frames", openstf/minicap#8). */
export const MINICAP_SEGFAULT_AFTER_FRAMES = 3;
const SIGSEGV = SIGNALS.SEGV;

const NATIVE_USAGE =
  'Usage: %s [-h] [-n <name>]\n' +
  '  -d <id>:       Display ID. (0)\n' +
  '  -n <name>:     Change the name of the abtract unix domain socket. (minicap)\n' +
  '  -P <value>:    Display projection (<w>x<h>@<w>x<h>/{0|90|180|270}).\n' +
  '  -Q <value>:    JPEG quality (0-100).\n' +
  '  -s:            Take a screenshot and output it to stdout. Needs -P.\n' +
  '  -S:            Skip frames when they cannot be consumed quickly enough.\n' +
  '  -r <value>:    Frame rate (frames/s)' +
  '  -t:            Attempt to get the capture method running, then exit.\n' +
  '  -i:            Get display information in JSON format. May segfault.\n' +
  '  -h:            Show help.\n';

/** The APK prints its usage with System.out.println, placeholders and all. */
const APK_USAGE = NATIVE_USAGE.replace('(0)', '(%d)').replace('(minicap)', '(%s)') + '\n';

interface Projection {
  realWidth: number;
  realHeight: number;
  virtualWidth: number;
  virtualHeight: number;
  /** 0–3 (quarter turns), as minicap keeps it. */
  rotation: number;
}

/** Projection::Parser: `<w>x<h>@<w>x<h>/{0|90|180|270}`, nothing more. */
function parseProjection(text: string): Projection | undefined {
  const m = /^(\d+)x(\d+)@(\d+)x(\d+)\/(0|90|180|270)$/.exec(text);
  if (!m) return undefined;
  return {
    realWidth: Number(m[1]),
    realHeight: Number(m[2]),
    virtualWidth: Number(m[3]),
    virtualHeight: Number(m[4]),
    rotation: Number(m[5]) / 90,
  };
}

/** Projection::forceMaximumSize and forceAspectRatio (the native binary's rounding). */
function fitProjection(p: Projection): Projection {
  const out = { ...p };
  out.virtualWidth = Math.min(out.virtualWidth, out.realWidth);
  out.virtualHeight = Math.min(out.virtualHeight, out.realHeight);
  const aspect = out.realWidth / out.realHeight;
  if (out.virtualHeight > Math.trunc(out.virtualWidth / aspect))
    out.virtualHeight = Math.round(out.virtualWidth / aspect);
  else out.virtualWidth = Math.round(out.virtualHeight * aspect);
  return out;
}

function projectionValid(p: Projection): boolean {
  return (
    p.realWidth > 0 &&
    p.realHeight > 0 &&
    p.virtualWidth > 0 &&
    p.virtualHeight > 0 &&
    p.virtualWidth <= p.realWidth &&
    p.virtualHeight <= p.realHeight
  );
}

/** libjpeg-turbo's tjBufSize for 4:2:0 plus minicap's 4-byte length prefix (JpgEncoder.cpp). */
function jpgEncoderBytes(width: number, height: number): number {
  const pad = (n: number): number => Math.ceil(n / 16) * 16;
  return pad(width) * pad(height) * 3 + 2048 + 4;
}

function phoneAbis(phone: PhoneContext): string[] {
  return (phone.props.get('ro.product.cpu.abilist') ?? phone.props.get('ro.product.cpu.abi') ?? '').split(',');
}

/** A FLAG_SECURE window shows in minicap's virtual display only where minicap may create a secure one. */
function secureVisible(sdk: number): boolean {
  // Native before Android 12 creates it secure (minicap_28.cpp; openstf/minicap#101); the 31+
  // builds and the APK on Android 11+ (S codename) do not (DeviceFarmer/minicap#34).
  return sdk <= 30;
}

function minicapScreen(phone: PhoneContext): MinicapScreen {
  const showSecure = secureVisible(phone.info.sdk);
  return {
    capture: (drawnAt) =>
      drawnAt ? phone.frames.rawScreencapAt(drawnAt, { showSecure }) : phone.frames.rawScreencap({ showSecure }),
    size: () => logicalScreen(phone),
    version: () => phone.screen.version,
    onChange: (listener) => phone.screen.onChange(listener),
  };
}

/** Logical screen size now (what the APK's DisplayManagerGlobal reports). */
function logicalScreen(phone: PhoneContext): { width: number; height: number } {
  return phone.displays.logicalSize();
}

/**
 * Runs a pushed file as the shell would exec it; undefined when the bytes are not one of
 * minicap's (the shell then reports an unknown binary).
 */
export function runMinicapFile(io: CommandIo, phone: PhoneContext, data: Buffer): number | Promise<number> | undefined {
  const file = identifyMinicapFile(data);
  if (file?.kind !== 'binary') return undefined;
  const argv0 = io.argv[0] ?? 'minicap';
  const bits = MINICAP_ABIS[file.abi].bits;
  if (!phoneAbis(phone).includes(file.abi)) {
    // mksh reads the ELF header when execve fails with ENOEXEC (openstf/minicap#42, gojue/ecapture#359).
    io.err(`${SHELL}: ${argv0}: not executable: ${bits}-bit ELF file\n`);
    return 126;
  }
  const linkError = linkMinicap(io, phone, file);
  if (linkError !== undefined) {
    io.err(`CANNOT LINK EXECUTABLE "${argv0}": ${linkError}\n`);
    return 1;
  }
  return runNative(io, phone);
}

/** What bionic's linker says about minicap.so for this binary, or undefined when it links. */
function linkMinicap(io: CommandIo, phone: PhoneContext, binary: MinicapFile & { kind: 'binary' }): string | undefined {
  const dirs = (io.env?.get('LD_LIBRARY_PATH') ?? '').split(':').filter((d) => d !== '');
  let path: string | undefined;
  let data: Buffer | undefined;
  for (const dir of dirs) {
    const candidate = normalizePhonePath(`${dir}/minicap.so`, io.cwd);
    const bytes = phone.fs.read(candidate);
    if (bytes) {
      path = candidate;
      data = bytes;
      break;
    }
  }
  if (!path || !data) return 'library "minicap.so" not found';
  const lib = identifyMinicapFile(data);
  const want = MINICAP_ABIS[binary.abi];
  if (data.subarray(0, 4).toString('latin1') !== '\x7fELF') {
    const magic = data.subarray(0, 4).toString('hex').padEnd(8, '0');
    return `"${path}" has bad ELF magic: ${magic}`;
  }
  if (lib?.kind !== 'library') return `cannot locate symbol "minicap_create" referenced by "${argv0OrPath(io)}"...`;
  const have = MINICAP_ABIS[lib.abi];
  if (have.bits !== want.bits) return `"${path}" is ${have.bits}-bit instead of ${want.bits}-bit`;
  if (have.machine !== want.machine)
    return `"${path}" is for ${have.machine} (${have.machineNumber}) instead of ${want.machine} (${want.machineNumber})`;
  if (lib.sdk !== phone.info.sdk)
    // Built against another release's libgui: a private symbol it needs is gone or renamed.
    return `cannot locate symbol "_ZN7android21SurfaceComposerClient13createDisplayERKNS_7String8Eb" referenced by "${path}"...`;
  return undefined;
}

function argv0OrPath(io: CommandIo): string {
  return io.argv[0] ?? 'minicap';
}

/** getopt "d:n:P:Q:r:siSth" as minicap.cpp reads it. */
function parseNativeOptions(
  args: readonly string[],
): { ok: true; opts: Map<string, string> } | { ok: false; bad: string; missingArgument: boolean } {
  const opts = new Map<string, string>();
  const withValue = new Set(['d', 'n', 'P', 'Q', 'r']);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue; // bionic getopt permutes operands away
    for (let j = 1; j < arg.length; j++) {
      const letter = arg.charAt(j);
      if (withValue.has(letter)) {
        const rest = arg.slice(j + 1);
        const value = rest !== '' ? rest : args[++i];
        if (value === undefined) return { ok: false, bad: letter, missingArgument: true };
        opts.set(letter, value);
        break;
      }
      if (!'siSth'.includes(letter)) return { ok: false, bad: letter, missingArgument: false };
      opts.set(letter, '');
    }
  }
  return { ok: true, opts };
}

function displayInfoJson(phone: PhoneContext): string {
  const { width, height } = logicalScreen(phone);
  const dpi = phone.displays.density();
  const size = Math.sqrt((width / dpi) ** 2 + (height / dpi) ** 2);
  return (
    '{\n' +
    '    "id": 0,\n' +
    `    "width": ${width},\n` +
    `    "height": ${height},\n` +
    `    "xdpi": ${dpi.toFixed(2)},\n` +
    `    "ydpi": ${dpi.toFixed(2)},\n` +
    `    "size": ${size.toFixed(2)},\n` +
    `    "density": ${(dpi / 160).toFixed(2)},\n` +
    '    "fps": 60.00,\n' +
    '    "secure": true,\n' +
    `    "rotation": ${phone.displays.rotation() * 90}\n` +
    '}\n'
  );
}

async function runNative(io: CommandIo, phone: PhoneContext): Promise<number> {
  const name = (io.argv[0] ?? 'minicap').split('/').pop() ?? 'minicap';
  const parsed = parseNativeOptions(io.argv.slice(1));
  if (!parsed.ok) {
    io.err(
      parsed.missingArgument
        ? `${name}: option requires an argument -- ${parsed.bad}\n`
        : `${name}: invalid option -- ${parsed.bad}\n`,
    );
    io.err(NATIVE_USAGE.replace('%s', io.argv[0] ?? 'minicap'));
    return 1;
  }
  const opts = parsed.opts;
  let projection: Projection | undefined;
  const rawProjection = opts.get('P');
  if (rawProjection !== undefined) {
    projection = parseProjection(rawProjection);
    if (!projection) {
      io.err('ERROR: invalid format for -P, need <w>x<h>@<w>x<h>/{0|90|180|270}\n');
      return 1;
    }
  }
  if (opts.has('h')) {
    io.err(NATIVE_USAGE.replace('%s', io.argv[0] ?? 'minicap'));
    return 0;
  }
  const sdk = phone.info.sdk;
  if (opts.has('i')) {
    io.out(displayInfoJson(phone));
    return 0;
  }
  const fitted = fitProjection(
    projection ?? { realWidth: 0, realHeight: 0, virtualWidth: 0, virtualHeight: 0, rotation: 0 },
  );
  if (!projection || !projectionValid(fitted)) {
    io.err('ERROR: missing or invalid -P\n');
    return 1;
  }
  const process = phone.processes.spawn(name, (signum) => {
    // minicap traps SIGTERM and SIGINT: it stops its loops and exits 0.
    if (signum !== SIGNALS.TERM && signum !== SIGNALS.INT) return false;
    io.err(
      `INFO: (jni/minicap/minicap.cpp:${signum === SIGNALS.TERM ? 200 : 196}) Received ${signum === SIGNALS.TERM ? 'SIGTERM' : 'SIGINT'}, stopping\n`,
    );
    stopping = true;
    process.exit();
    return true;
  });
  let stopping = false;
  let crashed = false;
  const hangUp = (): void => process.signal(SIGNALS.HUP);
  io.signal.addEventListener('abort', hangUp, { once: true });
  const log = (line: string): void => io.err(`${line}\n`);
  try {
    log(`PID: ${process.pid}`);
    log(
      `INFO: Using projection ${fitted.realWidth}x${fitted.realHeight}@${fitted.virtualWidth}x${fitted.virtualHeight}/${fitted.rotation}`,
    );
    const src = `external/MY_minicap/src/minicap_${sdk}.cpp`;
    for (const [line, text] of [
      [243, 'Creating SurfaceComposerClient'],
      [246, 'Performing SurfaceComposerClient init check'],
      [257, 'Creating virtual display'],
      [263, 'Creating buffer queue'],
      [266, 'Setting buffer options'],
      [270, 'Creating CPU consumer'],
      [274, 'Creating frame waiter'],
      [278, 'Publishing virtual display'],
    ] as const)
      log(`INFO: (${src}:${line}) ${text}`);
    log(
      `INFO: (jni/minicap/JpgEncoder.cpp:64) Allocating ${jpgEncoderBytes(fitted.realWidth, fitted.realHeight)} bytes for JPG encoder`,
    );
    if (!(await phone.sleep(minicapTimingMs(phone.profile, 'nativeStart'), process.ended))) return endStatus();
    if (phone.quirks.has('minicap-segfault') && opts.has('t')) {
      // openstf/minicap#159: the crash comes right after the encoder's allocation.
      crashed = true;
      process.signal(SIGSEGV);
      return endStatus();
    }
    if (opts.has('t')) {
      io.out('OK\n');
      process.exit();
      return 0;
    }
    const turned = fitted.rotation % 2 === 1;
    const stream = new MinicapStream({
      flavour: 'native',
      pid: process.pid,
      banner: { ...fitted, orientation: fitted.rotation },
      quirks: QUIRK_ALWAYS_UPRIGHT,
      source: turned
        ? { width: fitted.realHeight, height: fitted.realWidth }
        : { width: fitted.realWidth, height: fitted.realHeight },
      frame: turned
        ? { width: fitted.virtualHeight, height: fitted.virtualWidth }
        : { width: fitted.virtualWidth, height: fitted.virtualHeight },
      quality: opts.has('Q') ? Number.parseInt(opts.get('Q') ?? '', 10) || 0 : 80,
      skipFrames: opts.has('S') || opts.has('r'),
      frameCostMs: minicapTimingMs(phone.profile, 'frame'),
      screen: minicapScreen(phone),
      ended: process.ended,
      log,
      afterFrame: (sent) => {
        if (phone.quirks.has('minicap-segfault') && sent >= MINICAP_SEGFAULT_AFTER_FRAMES) {
          crashed = true;
          process.signal(SIGSEGV);
        }
      },
      exit: () => process.exit(),
    });
    const socketName = opts.get('n') ?? 'minicap';
    if (!phone.processes.listen(process.pid, socketName, (channel) => stream.accept(channel))) {
      log(
        `ERROR: (jni/minicap/minicap.cpp:446: errno: Address already in use) Unable to start server on namespace '${socketName}'`,
      );
      process.exit();
      return 1;
    }
    await new Promise<void>((resolve) => {
      if (process.ended.aborted) resolve();
      else process.ended.addEventListener('abort', () => resolve(), { once: true });
    });
    return endStatus();
  } finally {
    io.signal.removeEventListener('abort', hangUp);
    process.exit();
  }

  function endStatus(): number {
    if (crashed) {
      // mksh reports a foreground job killed by a signal by the signal's name (openstf/minicap#8).
      io.err('Segmentation fault \n');
      return 128 + SIGSEGV;
    }
    if (stopping) return 0;
    return 128 + SIGNALS.HUP;
  }
}

/**
 * `app_process [-Djava.class.path=…] PARENT_DIR [--nice-name=…] CLASS ARGS…` for minicap's
 * APK; undefined when the class path is not the package's minicap.apk (another Java program).
 */
export function runMinicapApk(
  io: CommandIo,
  phone: PhoneContext,
  classPath: string,
  className: string,
  args: readonly string[],
): number | Promise<number> | undefined {
  const data = phone.fs.read(normalizePhonePath(classPath, io.cwd));
  if (!data || identifyMinicapFile(data)?.kind !== 'apk' || className !== MINICAP_APK_MAIN_CLASS) return undefined;
  return runApk(io, phone, args);
}

async function runApk(io: CommandIo, phone: PhoneContext, args: readonly string[]): Promise<number> {
  // Main.kt folds the arguments: flags act at once, a value belongs to the flag before it.
  let projectionText: string | undefined;
  let socketName = 'minicap';
  let quality = 100;
  let screenshot = false;
  let info = false;
  let lastKey = '';
  for (const arg of args) {
    if (arg.startsWith('-')) {
      if (arg === '-h') {
        io.out(APK_USAGE);
        return 0;
      }
      if (arg === '-s') screenshot = true;
      if (arg === '-i') info = true;
      lastKey = arg;
      continue;
    }
    if (lastKey === '-n') socketName = arg;
    else if (lastKey === '-P') projectionText = arg;
    else if (lastKey === '-Q') quality = Number.parseInt(arg, 10);
  }
  const screen = logicalScreen(phone);
  const rotationNow = phone.displays.rotation();
  let projection: Projection | undefined;
  if (projectionText !== undefined) {
    const parts = projectionText.split(/[@/x]/).map((p) => Number.parseInt(p, 10));
    if (parts.length < 5 || parts.some((n) => Number.isNaN(n))) {
      io.err(`Exception in thread "main" java.lang.NumberFormatException: For input string: "${projectionText}"\n`);
      return 1;
    }
    const [rw = 0, rh = 0, vw = 0, vh = 0, angle = 0] = parts;
    if (![0, 90, 180, 270].includes(angle)) {
      io.err('Exception in thread "main" java.lang.IllegalStateException: Invalid rotation\n');
      return 1;
    }
    // Projection.forceAspectRatio (Kotlin Float, roundToInt).
    const aspect = rw / rh;
    const target = vh > vw / aspect ? { w: vw, h: Math.round(vw / aspect) } : { w: Math.round(vh * aspect), h: vh };
    projection = {
      realWidth: rw,
      realHeight: rh,
      virtualWidth: target.w,
      virtualHeight: target.h,
      rotation: angle / 90,
    };
  }
  if (!(await phone.sleep(minicapTimingMs(phone.profile, 'apkStart'), io.signal))) return 128 + SIGNALS.HUP;
  if (info) {
    const dpi = phone.displays.density().toFixed(1);
    io.out(
      `{\n   "id": 0,\n   "width": ${screen.width},\n   "height": ${screen.height},\n   "xdpi": ${dpi},\n   "ydpi": ${dpi},\n   "density": ${phone.displays.density()},\n   "rotation": ${rotationNow}\n}\n\n`,
    );
    return 0;
  }
  const rotation = projection?.rotation ?? rotationNow;
  const base = projection
    ? { width: projection.virtualWidth, height: projection.virtualHeight }
    : { width: screen.width, height: screen.height };
  // BaseProvider.getTargetSize: a quarter-turned projection swaps the target.
  const target = rotation % 2 === 1 ? { width: base.height, height: base.width } : base;
  if (screenshot) return 0; // -s needs the main looper's frame; not simulated (see QUIRKS.md)
  const process = phone.processes.spawn('app_process');
  const hangUp = (): void => process.signal(SIGNALS.HUP);
  io.signal.addEventListener('abort', hangUp, { once: true });
  const log = (line: string): void => io.err(`${line}\n`);
  let exitedOnItsOwn = false;
  try {
    log(`PID: ${process.pid}`);
    log(
      `INFO: ${projection ? `${projection.realWidth}x${projection.realHeight}@${projection.virtualWidth}x${projection.virtualHeight}/${projection.rotation * 90}` : 'null'}`,
    );
    const stream = new MinicapStream({
      flavour: 'apk',
      pid: process.pid,
      banner: {
        realWidth: screen.width,
        realHeight: screen.height,
        virtualWidth: target.width,
        virtualHeight: target.height,
        orientation: rotation,
      },
      quirks: QUIRK_ALWAYS_UPRIGHT,
      // The APK projects the whole current screen onto the target: a turned screen is squeezed (DeviceFarmer/minicap#17).
      frame: target,
      quality: Number.isNaN(quality) ? 100 : quality,
      skipFrames: true,
      frameCostMs: minicapTimingMs(phone.profile, 'frame'),
      screen: minicapScreen(phone),
      ended: process.ended,
      log,
      exit: () => {
        exitedOnItsOwn = true;
        process.exit();
      },
    });
    if (!phone.processes.listen(process.pid, socketName, (channel) => stream.accept(channel))) {
      log(`${logbackTime(phone)} [main] ERROR Main - error waiting connection`);
      log('java.io.IOException: Address already in use');
      process.exit();
      return 0;
    }
    log(`${logbackTime(phone)} [main] INFO  Main - Listening on socket : ${socketName}`);
    await new Promise<void>((resolve) => {
      if (process.ended.aborted) resolve();
      else process.ended.addEventListener('abort', () => resolve(), { once: true });
    });
    return exitedOnItsOwn ? 1 : 128 + SIGNALS.HUP;
  } finally {
    io.signal.removeEventListener('abort', hangUp);
    process.exit();
  }
}

/** logback's `%d{HH:mm:ss.SSS}` on the phone's clock. */
function logbackTime(phone: PhoneContext): string {
  const d = new Date(phone.now());
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** Whether the package ships a native library for this phone (the bridge's choice between the two ways). */
export function nativeMinicapSupported(abi: MinicapAbi, sdk: number): boolean {
  return minicapLibraryExists(abi, sdk);
}
