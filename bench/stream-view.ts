/**
 * What part h needs of a simulated phone and of the console's live view: a screen that keeps
 * changing (commands run on the phone itself, not through the bridge, so no control action
 * holds the stream's freshness barrier), a viewer that long-polls the frame route as the
 * console does (renderer/src/features/phone-view/use-live-frames.ts), and the time from a
 * change on the phone to the first frame served that shows it.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import sharp from 'sharp';
import { NOTES_HEADER_RGB, headerProbePoint } from '../main/sim/screen/colors';
import type { SimulatedPhone } from '../main/sim/phone';
import { USB_PHONE_TIMINGS } from '../main/sim/timing-profiles';
import type { AdminPhoneProgram } from '../main/contract/admin-api';
import { bridgeDevices, waitUntil, type BridgeHandle } from './env';
import { now } from './stats';

/**
 * Android 12L: minicap's native files exist for SDK 32, and from SDK 31 the agent's screenshot may
 * come from the stream (its pictures hide secure windows as screencap does).
 */
export const ANDROID_12L = { sdk: 32, androidVersion: '12' };
/** The simulated Pixel 7's screen (main/sim/phone.ts defaults). */
export const PHONE_SCREEN = { width: 1080, height: 2400, density: 420 };
/** What the console asks for (renderer phone-view.tsx LIVE_MAX_SIDE). */
const LIVE_MAX_SIDE = 720;
/** The console's shortest time from one ask to the next (use-live-frames.ts MIN_GAP_MS). */
const MIN_GAP_MS = 30;
const HOME_KEY = 'input keyevent 3';
/** What one `input` command takes on the usb-phone profile. */
const INPUT_MS = USB_PHONE_TIMINGS.input;
const OPEN_NOTES = 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1';
/** A JPEG or WebP of an orange band is within this of the band's colour per channel. */
const COLOUR_TOLERANCE = 24;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function run(phone: SimulatedPhone, commandLine: string, signal?: AbortSignal): Promise<void> {
  const out = await phone.exec(commandLine, { signal: signal ?? AbortSignal.timeout(30_000) });
  if (out.exitCode !== 0 && !signal?.aborted)
    throw new Error(`${commandLine} on ${phone.serial}: exit ${out.exitCode} ${out.stderr.toString()}`);
}

/** Opens Notes and taps its note field, so typed text changes the screen. */
export async function focusNoteField(phone: SimulatedPhone): Promise<void> {
  await run(phone, OPEN_NOTES);
  const dump = (await phone.exec('uiautomator dump /dev/tty', { signal: AbortSignal.timeout(30_000) })).stdout;
  const bounds = /note_text[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(dump.toString());
  if (!bounds) throw new Error(`no note field on ${phone.serial}'s screen`);
  const [x1, y1, x2, y2] = bounds.slice(1).map(Number) as [number, number, number, number];
  await run(phone, `input tap ${Math.round((x1 + x2) / 2)} ${Math.round((y1 + y2) / 2)}`);
}

/**
 * One visible change in the focused note field: a letter typed, or the last one deleted
 * (alternately, so the text stays short). Takes the phone's time for `input` (≈ 0.3 s on
 * usb-phone); the screen changes at its end.
 */
export async function changeScreen(phone: SimulatedPhone, turn: number, signal?: AbortSignal): Promise<void> {
  await run(phone, turn % 2 === 0 ? 'input text a' : 'input keyevent 67', signal);
}

/** How long the note's text grows before it shrinks again (the field shows about 400 letters). */
const NOTE_SWING = 300;

/**
 * Keeps a phone's screen changing with `loops` commands running at once; stop() says how many
 * changes landed. The note's text grows letter by letter to NOTE_SWING, then shrinks letter by
 * letter, so two pictures a frame apart never show the same screen (typing and deleting
 * alternately would often show it again).
 */
export function keepChanging(
  phone: SimulatedPhone,
  loops: number,
): { stop(): Promise<{ changes: number; seconds: number }> } {
  const controller = new AbortController();
  // Every running command listens to it.
  setMaxListeners(loops * 4 + 10, controller.signal);
  const startVersion = phone.screenState().version;
  const started = now();
  let length = 0;
  let growing = true;
  const workers = Array.from({ length: loops }, async (_v, loop) => {
    // Started one after another across one command's time, so the changes come evenly (as an
    // animation's do) rather than all at the end of the same command time.
    if (loop > 0) await pause((loop * INPUT_MS) / loops);
    while (!controller.signal.aborted) {
      if (growing && length >= NOTE_SWING) growing = false;
      else if (!growing && length <= 0) growing = true;
      length += growing ? 1 : -1;
      await run(phone, growing ? 'input text a' : 'input keyevent 67', controller.signal).catch(() => undefined);
    }
  });
  return {
    async stop() {
      const changes = phone.screenState().version - startVersion;
      const seconds = (now() - started) / 1000;
      controller.abort();
      await Promise.all(workers);
      return { changes, seconds };
    },
  };
}

/** The phone's stream as the bridge shows it (admin state: its `minicap_stream` program). */
export async function streamOf(bridge: BridgeHandle, deviceId: string): Promise<AdminPhoneProgram | undefined> {
  return minicapOf((await bridgeDevices(bridge)).find((d) => d.device_id === deviceId));
}

function minicapOf(device: { programs?: AdminPhoneProgram[] } | undefined): AdminPhoneProgram | undefined {
  return device?.programs?.find((p) => p.program === 'minicap_stream');
}

export async function waitForStreams(
  bridge: BridgeHandle,
  deviceIds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  await waitUntil(
    async () => {
      const devices = await bridgeDevices(bridge);
      return deviceIds.every((id) => minicapOf(devices.find((d) => d.device_id === id))?.state === 'ready');
    },
    timeoutMs,
    `the screen stream running on ${deviceIds.length} phone(s)`,
  );
}

export interface ServedFrame {
  seq: number;
  fresh: boolean;
  lane: string;
  jpeg: Buffer;
  /** When the answer was read here (performance.now()). */
  at: number;
}

/**
 * A console viewer: asks for the frame after the one it has, again as soon as one comes (with
 * the console's pauses), until stopped. Every served frame goes to `onFrame`.
 */
export function openViewer(
  bridge: BridgeHandle,
  deviceId: string,
  onFrame: (frame: ServedFrame) => void | Promise<void>,
): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    let seq = 0;
    while (!stopped) {
      const askedAt = now();
      const res = await bridge.adminBytes(
        `/admin/api/devices/${deviceId}/frame?after=${seq}&max_side=${LIVE_MAX_SIDE}`,
      );
      if (res.status !== 200) {
        await pause(1_000);
        continue;
      }
      const next = Number(res.headers.get('x-frame-seq') ?? seq);
      const frame: ServedFrame = {
        seq: next,
        fresh: res.headers.get('x-frame-fresh') === '1',
        lane: res.headers.get('x-frame-lane') ?? '',
        jpeg: res.body,
        at: now(),
      };
      await onFrame(frame);
      const same = next === seq;
      seq = next;
      await pause(same ? 250 : Math.max(0, MIN_GAP_MS - (now() - askedAt)));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Fresh frames a viewer is served a second over `seconds`: new numbers (what the console counts
 * as shown), and new pictures (a frame whose bytes differ from the one before: minicap without
 * `-S` may send the same screen again); the lanes they came from.
 */
export async function distinctFramesPerSecond(
  bridge: BridgeHandle,
  deviceId: string,
  seconds: number,
): Promise<{ perSecond: number; newPicturesPerSecond: number; lanes: string[] }> {
  let lastSeq = 0;
  let lastHash = '';
  let distinct = 0;
  let newPictures = 0;
  let counting = false;
  const lanes = new Set<string>();
  const viewer = openViewer(bridge, deviceId, (frame) => {
    const hash = createHash('sha256').update(frame.jpeg).digest('hex');
    if (counting && frame.seq !== lastSeq && frame.fresh) {
      distinct++;
      if (hash !== lastHash) newPictures++;
      lanes.add(frame.lane);
    }
    lastSeq = frame.seq;
    lastHash = hash;
  });
  // The first frames start the capture loop (and the stream, when it may run): not counted.
  await pause(2_000);
  counting = true;
  const started = now();
  await pause(seconds * 1000);
  counting = false;
  const elapsed = (now() - started) / 1000;
  await viewer.stop();
  return { perSecond: distinct / elapsed, newPicturesPerSecond: newPictures / elapsed, lanes: [...lanes] };
}

/** Whether a picture of the screen (any size, JPEG or WebP) shows the Notes header band. */
export async function showsNotes(image: Buffer): Promise<boolean> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const probe = headerProbePoint(PHONE_SCREEN);
  const k = info.width / PHONE_SCREEN.width;
  const at = (Math.round(probe.y * k) * info.width + Math.round(probe.x * k)) * 3;
  return NOTES_HEADER_RGB.every((v, i) => Math.abs((data[at + i] ?? 0) - v) <= COLOUR_TOLERANCE);
}

/**
 * Glass to glass: the phone goes from Notes to the home screen or back (`input keyevent 3`,
 * `monkey`, run on the phone itself); timed from the moment the command has changed the
 * screen to the first frame the route serves that shows it. Null for a change not seen
 * within 5 s.
 */
export async function glassToGlass(
  bridge: BridgeHandle,
  deviceId: string,
  phone: SimulatedPhone,
  samples: number,
): Promise<{ latencies: number[]; missed: number; lanes: string[] }> {
  const lanes = new Set<string>();
  let waiting: { since: number; notes: boolean; seen: (at: number) => void } | undefined;
  let lastSeq = 0;
  const viewer = openViewer(bridge, deviceId, async (frame) => {
    if (frame.seq === lastSeq) return;
    lastSeq = frame.seq;
    const expected = waiting;
    if (!expected || frame.at < expected.since) return;
    if ((await showsNotes(frame.jpeg)) === expected.notes) {
      lanes.add(frame.lane);
      expected.seen(frame.at);
    }
  });
  const latencies: number[] = [];
  let missed = 0;
  try {
    let notes = phone.foregroundPackage() === 'com.example.notes';
    await pause(2_000);
    for (let i = 0; i < samples; i++) {
      notes = !notes;
      await run(phone, notes ? OPEN_NOTES : HOME_KEY);
      const since = now();
      const seenAt = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 5_000);
        waiting = {
          since,
          notes,
          seen: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
      });
      waiting = undefined;
      if (seenAt === null) missed++;
      else latencies.push(seenAt - since);
      // A person's pace between changes, varied so the change does not fall at the same point of a capture.
      await pause(400 + Math.round(Math.random() * 400));
    }
  } finally {
    await viewer.stop();
  }
  return { latencies, missed, lanes: [...lanes] };
}
