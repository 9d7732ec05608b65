/**
 * minicap on one phone, from the package's files to a running stream and back to nothing.
 *
 * - The files come from `@u4/minicap-prebuilt` (Apache-2.0), shipped with the bridge and never
 *   downloaded: the native binary with the `minicap.so` built for the phone's SDK when the
 *   package has one for its ABI (starts in milliseconds), else the APK run through
 *   `app_process` (any SDK; what DeviceFarmer/minicap's run.sh does when no library fits), else
 *   nothing (the phone is streamed another way).
 * - They go to a folder of their own under /data/local/tmp, and are run only after `sha256sum`
 *   on the phone shows they are the package's bytes: a file planted there is never run.
 * - minicap runs in the foreground of an adb shell the bridge holds open, so if the bridge (or
 *   its adb server) goes away, adbd hangs up the shell and minicap ends with it. Its socket has
 *   a random abstract name (`-n`), and the bridge connects at once and keeps minicap's only
 *   client slot, so nothing else on the phone reads the screen through it.
 * - Stop: `kill` its pid (from the banner), then the shell is closed; cleanup removes the files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import { SHORT_COMMAND_MS, withDeadline } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, excerpt, runText } from '../devices/shell-quote';
import { connectWhenListening } from '../program-lifecycle/connect-when-listening';
import { installCheckedFiles, localFileSha256 } from '../program-lifecycle/checked-files';
import { MinicapReader, type MinicapBanner } from './minicap-wire';

/** The phone folder that holds the bridge's copy of minicap (and nothing else). */
export const MINICAP_DIR = '/data/local/tmp/xagent-minicap';
const APK_MAIN_CLASS = 'io.devicefarmer.minicap.Main';
/** The longest side of the stream's pictures: the agent screenshot's default max_side. */
export const STREAM_MAX_SIDE = 1280;
const JPEG_QUALITY = 80;
/** Output of a failed start kept for its message. */
const OUTPUT_KEEP_BYTES = 4_096;

export type MinicapWay = 'native' | 'apk';

export interface MinicapFilePlan {
  way: MinicapWay;
  /** For the native way: the ABI whose binary runs. */
  abi: string | null;
  files: Array<{ local: string; remote: string; mode: number; sha256: string }>;
}

let packageDir: string | null | undefined;

/** The package's folder (in the packaged app, the asar-unpacked copy adb can read), or null when it is missing. */
function minicapPackageDir(): string | null {
  if (packageDir !== undefined) return packageDir;
  try {
    // The package's `exports` hide package.json: its entry point sits at the top of it.
    const dir = dirname(require.resolve('@u4/minicap-prebuilt')).replace(/app\.asar([\\/])/, 'app.asar.unpacked$1');
    packageDir = existsSync(join(dir, 'prebuilt')) ? dir : null;
  } catch {
    packageDir = null;
  }
  return packageDir;
}

/** The package's `prebuilt/` folder, or null. */
export function minicapPrebuiltRoot(): string | null {
  const dir = minicapPackageDir();
  return dir ? join(dir, 'prebuilt') : null;
}

let packageVersion: string | null | undefined;

/**
 * The package's version (for the console and the licence notes). Read once: the admin state
 * asks for it per phone, and reading package.json 256 times was most of that state's build.
 */
export function minicapPackageVersion(): string | null {
  if (packageVersion !== undefined) return packageVersion;
  const dir = minicapPackageDir();
  try {
    packageVersion = dir
      ? ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? null)
      : null;
  } catch {
    packageVersion = null;
  }
  return packageVersion;
}

/**
 * Which way minicap can run on a phone with these ABIs (ro.product.cpu.abilist, best first) and
 * SDK, and the files it needs; null when the package has nothing for it.
 */
export function planMinicapFiles(
  abis: readonly string[],
  sdk: number,
  root = minicapPrebuiltRoot(),
): MinicapFilePlan | null {
  if (!root || !Number.isInteger(sdk) || sdk < 21) return null;
  for (const abi of abis) {
    if (!/^[a-z0-9_-]+$/.test(abi)) continue;
    const binary = `${root}/${abi}/bin/minicap`;
    const library = `${root}/${abi}/lib/android-${sdk}/minicap.so`;
    if (existsSync(binary) && existsSync(library)) {
      return {
        way: 'native',
        abi,
        files: [
          { local: binary, remote: `${MINICAP_DIR}/minicap`, mode: 0o755, sha256: localFileSha256(binary) },
          { local: library, remote: `${MINICAP_DIR}/minicap.so`, mode: 0o644, sha256: localFileSha256(library) },
        ],
      };
    }
  }
  const apk = `${root}/noarch/minicap.apk`;
  if (!existsSync(apk)) return null;
  return {
    way: 'apk',
    abi: null,
    files: [{ local: apk, remote: `${MINICAP_DIR}/minicap.apk`, mode: 0o644, sha256: localFileSha256(apk) }],
  };
}

/** minicap's -P: the natural (portrait) size, the picture size, and the rotation in degrees. */
export function projectionFor(
  natural: { width: number; height: number },
  rotation: number,
  maxSide = STREAM_MAX_SIDE,
): { arg: string; virtualWidth: number; virtualHeight: number } {
  const scale = Math.min(1, maxSide / Math.max(natural.width, natural.height));
  const virtualWidth = Math.max(1, Math.round(natural.width * scale));
  const virtualHeight = Math.max(1, Math.round(natural.height * scale));
  return {
    arg: `${natural.width}x${natural.height}@${virtualWidth}x${virtualHeight}/${(rotation % 4) * 90}`,
    virtualWidth,
    virtualHeight,
  };
}

/** The shell line that starts minicap: a fixed variable assignment, then every word quoted. */
export function minicapCommandLine(plan: MinicapFilePlan, projection: string, socketName: string): string {
  const options = ['-P', projection, '-n', socketName, '-Q', String(JPEG_QUALITY)];
  if (plan.way === 'native')
    // -S: frames the bridge has not taken yet are dropped for the newest, so the stream never falls
    // behind the screen (as STF runs it). The APK always sends the latest.
    return `LD_LIBRARY_PATH=${MINICAP_DIR} ${buildCommandLine([`${MINICAP_DIR}/minicap`, ...options, '-S'])}`;
  return `CLASSPATH=${MINICAP_DIR}/minicap.apk ${buildCommandLine(['app_process', '/system/bin', APK_MAIN_CLASS, ...options])}`;
}

/** Puts the plan's files on the phone unless its copies are already the package's bytes; checks them after. */
export async function installMinicapFiles(
  shell: DeviceShell,
  plan: MinicapFilePlan,
  signal?: AbortSignal,
): Promise<void> {
  await installCheckedFiles(shell, { files: plan.files, what: 'minicap' }, signal);
  // Pushed files keep the mode sync gave them; an old copy may have lost its execute bit.
  if (plan.way === 'native')
    await runText(shell, ['chmod', '755', `${MINICAP_DIR}/minicap`], {
      timeoutMs: SHORT_COMMAND_MS,
      ...(signal ? { signal } : {}),
    });
}

/** Removes the bridge's minicap folder from the phone (nothing of it stays after a stream ends). */
export async function removeMinicapFiles(shell: DeviceShell, signal?: AbortSignal): Promise<void> {
  await runText(shell, ['rm', '-rf', MINICAP_DIR], { timeoutMs: SHORT_COMMAND_MS, ...(signal ? { signal } : {}) });
}

export interface RunningMinicap {
  way: MinicapWay;
  banner: MinicapBanner;
  reader: MinicapReader;
  /** Picture size / screen size (the projection's). */
  scale: number;
  /** Resolves when minicap's shell ends (it exited, crashed, or was stopped), with its last output. */
  ended: Promise<string>;
  /** Kills minicap and closes its shell and stream. */
  stop(): Promise<void>;
}

export interface StartOptions {
  plan: MinicapFilePlan;
  natural: { width: number; height: number };
  rotation: number;
  /** Until the banner has come. */
  timeoutMs: number;
  signal?: AbortSignal;
  clock?: () => number;
}

/** Starts minicap (files already installed) and connects to it; rejects with its own words when it fails. */
export async function startMinicap(shell: DeviceShell, options: StartOptions): Promise<RunningMinicap> {
  if (!shell.openStream) throw new BridgeError('tool_unavailable', 'this connection to the phone cannot open streams');
  const openStream = shell.openStream.bind(shell);
  const socketName = `xagent_${randomBytes(12).toString('hex')}`;
  const projection = projectionFor(options.natural, options.rotation);
  const deadline = performance.now() + options.timeoutMs;
  const left = (): number => Math.max(1, deadline - performance.now());
  const signalOpt = options.signal ? { signal: options.signal } : {};

  const session: Duplex = await openStream(`shell:${minicapCommandLine(options.plan, projection.arg, socketName)}`, {
    timeoutMs: left(),
    ...signalOpt,
  });
  let output = '';
  let sessionEnded = false;
  const ended = new Promise<string>((resolve) => {
    const end = (): void => {
      sessionEnded = true;
      resolve(output);
    };
    session.on('data', (chunk: Buffer) => {
      if (output.length < OUTPUT_KEEP_BYTES) output += chunk.toString('utf8');
    });
    session.once('end', end);
    session.once('close', end);
    session.once('error', end);
  });
  // The shell's output is read only for its last words; a paused stream would stall adbd.
  session.resume();

  let socket: Duplex | undefined;
  try {
    // minicap listens once its capture is set up (native: milliseconds; the APK: a JVM start).
    socket = await connectWhenListening({
      open: (timeoutMs) => openStream(`localabstract:${socketName}`, { timeoutMs, ...signalOpt }),
      ended: () => (sessionEnded ? startFailure(output) : null),
      deadline,
      what: 'minicap',
      timeoutMs: options.timeoutMs,
      ...signalOpt,
    });
    const reader = new MinicapReader(socket, options.clock);
    const banner = await withDeadline(reader.banner, {
      timeoutMs: left(),
      ...signalOpt,
      what: 'minicap’s banner',
    });
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopped ??= (async () => {
        reader.close();
        // Killed while its shell is still open, so the pid is surely minicap's and not a reused one.
        if (!sessionEnded && banner.pid > 0)
          await runText(shell, ['kill', String(banner.pid)], { timeoutMs: SHORT_COMMAND_MS }).catch(() => undefined);
        session.destroy();
      })();
      return stopped;
    };
    // minicap ending on its own (a crash) closes its stream too.
    void ended.then(() => reader.close());
    const scale = projection.virtualWidth / options.natural.width;
    return { way: options.plan.way, banner, reader, scale, ended, stop };
  } catch (error) {
    socket?.destroy();
    session.destroy();
    if (sessionEnded && !(isBridgeError(error) && error.code === 'canceled')) throw startFailure(output);
    throw error;
  }
}

/** minicap's own last words when it failed to start (the linker's, the shell's, minicap's ERROR line). */
function startFailure(output: string): BridgeError {
  const words = output.replaceAll('\r\n', '\n').trim();
  const line =
    words
      .split('\n')
      .find((l) => /CANNOT LINK|not executable|ERROR|Permission denied|Segmentation|not found|Exception/i.test(l)) ??
    words.split('\n').at(-1) ??
    '';
  return new BridgeError('command_failed', `minicap did not start${excerpt(line)}`);
}
