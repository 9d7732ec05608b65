/**
 * Part a: what the bridge adds to one call. Each tool is timed through the whole bridge
 * (WebSocket → queue → adbkit → adb → phone → ack) and, in the same run and alternating
 * call by call, as the same adb commands issued directly through adbkit against the same
 * adb server and phone. Warm-up calls on both paths are not counted.
 */
import Adb from '@devicefarmer/adbkit';
import type { Duplex } from 'node:stream';
import type { WireClient } from './wire-client';
import type { SimulatedPhone } from '../main/sim/phone';
import { callTool } from './env';
import { now, summarize, type Summary } from './stats';

export interface LatencyRow {
  tool: string;
  /** What the direct path runs, as a person would type it. */
  direct: string;
  bridge: Summary;
  adbkit: Summary;
}

export interface LatencyTarget {
  client: WireClient;
  channelId: string;
  adbPort: number;
  serial: string;
  phone: SimulatedPhone;
}

interface Case {
  tool: string;
  direct: string;
  samples: number;
  warmup: number;
  /** Runs before each timed call on either path (outside the timing). */
  prepare?: () => void;
  viaBridge: () => Promise<void>;
  viaAdbkit: () => Promise<void>;
}

/**
 * A point on the Notes app's toolbar (the phones are put in Notes first): a tap there changes
 * nothing, and the default safety policy allows it. (On the launcher, even the wallpaper
 * between icons is read as "opens …" an app, and Wallet makes that an approval.)
 */
export const IDLE_TAP = { x: 540, y: 147 };

/**
 * The commands readDeviceStatus runs concurrently on every call (main/core/android/device-info.ts).
 * `getprop` is not among them: the bridge reads the build properties once per connection, and
 * a direct caller would too.
 */
const STATUS_COMMANDS = [
  'wm size',
  'wm density',
  'dumpsys battery',
  'dumpsys power',
  'dumpsys window',
  'dumpsys input',
];

async function readAll(stream: Duplex): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function directShell(adbPort: number, serial: string): (command: string) => Promise<Buffer> {
  const device = Adb.createClient({ host: '127.0.0.1', port: adbPort }).getDevice(serial);
  return async (command) => readAll(await device.shell(command));
}

/** Timed calls per path for each case (warm-up calls come on top). */
export interface SampleCounts {
  tap: number;
  status: number;
  uiTree: number;
  screenshot: number;
}

function cases(target: LatencyTarget, counts: SampleCounts): Case[] {
  const shell = directShell(target.adbPort, target.serial);
  // Cycles through 1..99, so consecutive captures on either path never see the same frame.
  let battery = 1;
  const nextFrame = (): void => {
    battery = (battery % 99) + 1;
    target.phone.setBatteryLevel(battery);
  };
  return [
    {
      tool: 'android_tap',
      direct: `input tap ${IDLE_TAP.x} ${IDLE_TAP.y}`,
      samples: counts.tap,
      warmup: Math.min(20, counts.tap),
      viaBridge: async () => {
        await callTool(target.client, target.channelId, 'android_tap', IDLE_TAP);
      },
      viaAdbkit: async () => {
        await shell(`input tap ${IDLE_TAP.x} ${IDLE_TAP.y}`);
      },
    },
    {
      tool: 'android_device_status',
      direct: `${STATUS_COMMANDS.length} commands at once (wm, dumpsys …)`,
      samples: counts.status,
      warmup: Math.min(10, counts.status),
      viaBridge: async () => {
        await callTool(target.client, target.channelId, 'android_device_status');
      },
      viaAdbkit: async () => {
        await Promise.all(STATUS_COMMANDS.map((c) => shell(c)));
      },
    },
    {
      tool: 'android_ui_tree',
      direct: 'uiautomator dump /dev/tty',
      samples: counts.uiTree,
      warmup: Math.min(10, counts.uiTree),
      viaBridge: async () => {
        await callTool(target.client, target.channelId, 'android_ui_tree');
      },
      viaAdbkit: async () => {
        const xml = await shell('uiautomator dump /dev/tty');
        if (!xml.includes('</hierarchy>')) throw new Error('uiautomator gave no XML');
      },
    },
    {
      tool: 'android_screenshot',
      direct: 'screencap (raw, what the bridge captures)',
      samples: counts.screenshot,
      warmup: Math.min(2, counts.screenshot),
      // A new frame every call (the status-bar battery changes), so neither path gets the
      // phone's frame cache or the bridge's `unchanged` shortcut.
      prepare: nextFrame,
      viaBridge: async () => {
        const result = await callTool(target.client, target.channelId, 'android_screenshot');
        if (result.unchanged === true) throw new Error('screen did not change between samples');
      },
      viaAdbkit: async () => {
        const raw = await shell('screencap');
        if (raw.length < 1_000_000) throw new Error(`raw screencap of ${raw.length} bytes`);
      },
    },
    {
      tool: 'android_screenshot',
      direct: 'screencap -p (PNG on the phone)',
      samples: counts.screenshot,
      warmup: Math.min(2, counts.screenshot),
      prepare: nextFrame,
      viaBridge: async () => {
        await callTool(target.client, target.channelId, 'android_screenshot');
      },
      viaAdbkit: async () => {
        await shell('screencap -p');
      },
    },
  ];
}

async function timed(run: () => Promise<void>): Promise<number> {
  const t0 = now();
  await run();
  return now() - t0;
}

/**
 * Runs every case with a non-zero sample count. `pauseMs`: the process idles that long before
 * each timed call on either path (outside the timing), as it does while a phone works on a
 * command; it shows what an idle CPU adds to the same code.
 */
export async function measureLatency(
  target: LatencyTarget,
  counts: SampleCounts,
  log: (line: string) => void,
  note = '',
  pauseMs = 0,
): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  for (const c of cases(target, counts)) {
    if (c.samples <= 0) continue;
    for (let i = 0; i < c.warmup; i++) {
      c.prepare?.();
      await c.viaBridge();
      c.prepare?.();
      await c.viaAdbkit();
    }
    const bridge: number[] = [];
    const adbkit: number[] = [];
    for (let i = 0; i < c.samples; i++) {
      // Alternate which path goes first, so neither always runs right after the other.
      const order = i % 2 === 0 ? (['bridge', 'adbkit'] as const) : (['adbkit', 'bridge'] as const);
      for (const path of order) {
        c.prepare?.();
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        if (path === 'bridge') bridge.push(await timed(c.viaBridge));
        else adbkit.push(await timed(c.viaAdbkit));
      }
    }
    const row = { tool: `${c.tool}${note}`, direct: c.direct, bridge: summarize(bridge), adbkit: summarize(adbkit) };
    rows.push(row);
    log(
      `  ${row.tool} vs ${c.direct}: bridge p50 ${row.bridge.p50.toFixed(2)} ms, adbkit p50 ${row.adbkit.p50.toFixed(2)} ms (${c.samples} each)`,
    );
  }
  return rows;
}
