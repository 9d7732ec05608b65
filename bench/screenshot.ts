/**
 * Part d (issue #6): a screenshot through the bridge at the default settings, timed from
 * invoke to the end of the download, against `adb exec-out screencap -p` run by hand (the
 * real adb CLI) on the same phone; bytes delivered against the phone's PNG; and a loose
 * legibility check of the default image.
 */
import sharp from 'sharp';
import { runAdb, type AdbServerRig } from '../test/helpers/adb-server';
import type { SimulatedPhone } from '../main/sim/phone';
import { callTool, type BridgeHandle } from './env';
import type { WireClient } from './wire-client';
import { now, summarize, type Summary } from './stats';

export interface ScreenshotTarget {
  bridge: BridgeHandle;
  client: WireClient;
  channelId: string;
  adb: AdbServerRig;
  serial: string;
  phone: SimulatedPhone;
  /** The phone's density (dpi), for the text-size estimate. */
  density: number;
}

export interface ScreenshotRow {
  profile: string;
  /** invoke → ack. */
  ack: Summary;
  /** invoke → ack → download complete. */
  bridge: Summary;
  byHand: Summary;
  bridgeBytes: number;
  phonePngBytes: number;
  mimeType: string;
  width: number;
  height: number;
  phoneWidth: number;
  phoneHeight: number;
  /** Mean absolute difference per channel (0–255) between the default image and the phone's PNG scaled the same way. */
  meanAbsError: number;
  /** Height in pixels of 14 sp body text in the delivered image. */
  textPx: number;
}

async function viaBridge(
  t: ScreenshotTarget,
): Promise<{ ackMs: number; totalMs: number; bytes: Buffer; result: Record<string, any> }> {
  const t0 = now();
  const result = await callTool(t.client, t.channelId, 'android_screenshot');
  const ackMs = now() - t0;
  const res = await fetch(`${t.bridge.url}${String(result.download_url)}`, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`download: HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { ackMs, totalMs: now() - t0, bytes, result };
}

async function byHand(t: ScreenshotTarget): Promise<{ ms: number; png: Buffer }> {
  const t0 = now();
  const out = await runAdb(t.adb, ['-s', t.serial, 'exec-out', 'screencap', '-p'], { timeoutMs: 30_000 });
  if (out.code !== 0) throw new Error(`adb exec-out screencap -p failed: ${out.stderr}`);
  return { ms: now() - t0, png: out.stdout };
}

export async function measureScreenshots(
  t: ScreenshotTarget,
  profile: string,
  samples: number,
  log: (line: string) => void,
): Promise<ScreenshotRow> {
  // A new frame before every capture (the status-bar battery changes), so no path is
  // answered from the phone's frame cache or with the bridge's `unchanged`.
  let battery = 1;
  const nextFrame = (): void => {
    battery = (battery % 99) + 1;
    t.phone.setBatteryLevel(battery);
  };
  // Warm-up: the bridge's first capture on a phone also measures raw against PNG.
  for (let i = 0; i < 2; i++) {
    nextFrame();
    await viaBridge(t);
    nextFrame();
    await byHand(t);
  }
  const ack: number[] = [];
  const total: number[] = [];
  const hand: number[] = [];
  let last: { bytes: Buffer; result: Record<string, any>; png: Buffer } | undefined;
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? (['bridge', 'hand'] as const) : (['hand', 'bridge'] as const);
    let shot: Awaited<ReturnType<typeof viaBridge>> | undefined;
    let png: Buffer | undefined;
    for (const path of order) {
      nextFrame();
      if (path === 'bridge') {
        shot = await viaBridge(t);
        ack.push(shot.ackMs);
        total.push(shot.totalMs);
      } else {
        const h = await byHand(t);
        hand.push(h.ms);
        png = h.png;
      }
    }
    if (shot && png) last = { bytes: shot.bytes, result: shot.result, png };
  }
  if (!last) throw new Error('no screenshot sample');

  // Same frame for the comparison of bytes and pixels.
  nextFrame();
  const same = await viaBridge(t);
  const phonePng = (await byHand(t)).png;
  const delivered = await sharp(same.bytes).metadata();
  const phone = await sharp(phonePng).metadata();
  const width = delivered.width ?? 0;
  const height = delivered.height ?? 0;
  const mine = await sharp(same.bytes).removeAlpha().raw().toBuffer();
  const reference = await sharp(phonePng).removeAlpha().resize(width, height, { kernel: 'lanczos3' }).raw().toBuffer();
  let diff = 0;
  for (let i = 0; i < mine.length && i < reference.length; i++) diff += Math.abs((mine[i] ?? 0) - (reference[i] ?? 0));
  const scale = width / (phone.width ?? width);
  const row: ScreenshotRow = {
    profile,
    ack: summarize(ack),
    bridge: summarize(total),
    byHand: summarize(hand),
    bridgeBytes: same.bytes.length,
    phonePngBytes: phonePng.length,
    mimeType: String(same.result.mime_type),
    width,
    height,
    phoneWidth: phone.width ?? 0,
    phoneHeight: phone.height ?? 0,
    meanAbsError: diff / Math.max(1, Math.min(mine.length, reference.length)),
    textPx: ((14 * t.density) / 160) * scale,
  };
  log(
    `  ${profile}: bridge p50 ${row.bridge.p50.toFixed(1)} ms, by hand p50 ${row.byHand.p50.toFixed(1)} ms; ${row.bridgeBytes} B vs ${row.phonePngBytes} B`,
  );
  return row;
}
