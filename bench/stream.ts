/**
 * Part h (#26, "Speed"): the screen stream (minicap) side by side with the stock ways, in one
 * run, on `usb-phone` simulated phones on Android 12L (SDK 32: minicap's native files, and the
 * agent's screenshot may come from the stream). One bridge in its own process serves three
 * phones: S with the stream turned on for it, C stock (screencap), F with the fast lane's
 * helper. h1: the agent's screenshot; h2: the live view's frames and glass-to-glass latency;
 * h3 (stream-cpu.ts): the bridge's CPU with 8 phones.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { AdbServerRig } from '../test/helpers/adb-server';
import {
  bindChannel,
  callTool,
  connectClient,
  startPhones,
  startSpawnedBridge,
  waitForDevices,
  waitUntil,
  type BridgeHandle,
  type Cleanup,
} from './env';
import type { Report } from './report';
import { ms, now, summarize, table, type Summary } from './stats';
import { streamCpuBench } from './stream-cpu';
import {
  ANDROID_12L,
  changeScreen,
  distinctFramesPerSecond,
  focusNoteField,
  glassToGlass,
  keepChanging,
  showsNotes,
  streamOf,
  waitForStreams,
} from './stream-view';
import type { WireClient } from './wire-client';

/** An agent's pause between seeing the screen change and asking for a screenshot. */
const THINK_MS = 300;
type Way = 'stream' | 'stock' | 'fast';
const WAY_LABEL: Record<Way, string> = {
  stream: 'with the stream (phone S)',
  stock: 'stock screencap, stream off (phone C)',
  fast: 'fast lane helper running, stream off (phone F)',
};

const pause = (msToWait: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msToWait));

interface Shot {
  ms: number;
  result: Record<string, any>;
  image: Buffer;
}

/** invoke → ack → download, default settings. */
async function screenshot(bridge: BridgeHandle, client: WireClient, channelId: string): Promise<Shot> {
  const t0 = now();
  const result = await callTool(client, channelId, 'android_screenshot');
  const res = await fetch(`${bridge.url}${String(result.download_url)}`, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`download: HTTP ${res.status}`);
  const image = Buffer.from(await res.arrayBuffer());
  return { ms: now() - t0, result, image };
}

interface ShotRow {
  what: string;
  way: Way;
  times: Summary;
  /** The calls not answered `unchanged` (a new picture was encoded). */
  changed?: Summary;
  /** Screenshots answered from another source than the way's own (the stream's fallbacks). */
  otherSource: number;
  unchanged: number;
  /** After an action: pictures that showed the action's screen. */
  fresh?: number;
}

/** Enables the fast lane on a phone and waits until its helper answers; false (and why) when it cannot. */
async function startFastLane(
  bridge: BridgeHandle,
  client: WireClient,
  deviceId: string,
  channelId: string,
): Promise<string | null> {
  const enabled = await bridge.admin('POST', `/admin/api/devices/${deviceId}/helper`, { action: 'enable' });
  if (enabled.status !== 200) return `enable: HTTP ${enabled.status} ${JSON.stringify(enabled.body)}`;
  const state = async (): Promise<string> => {
    const res = await bridge.admin('GET', '/admin/api/state');
    return String(
      (res.body.devices as Array<{ device_id: string; helper?: { state: string } }>).find(
        (d) => d.device_id === deviceId,
      )?.helper?.state,
    );
  };
  await waitUntil(async () => (await state()) === 'stopped', 120_000, 'the helper installed on phone F');
  const first = await callTool(client, channelId, 'android_ui_tree');
  return first.lane === 'helper' ? null : `the first call went ${JSON.stringify(first.lane)}`;
}

export async function streamBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  const n = quick
    ? { shots: 5, afterAction: 4, viewSeconds: 4, g2g: 4 }
    : { shots: 20, afterAction: 12, viewSeconds: 10, g2g: 12 };
  log('h. screen stream: three usb-phone phones on Android 12L (S stream, C stock, F fast lane), one bridge process');
  const set = await startPhones(cleanup, adb, ['usb-phone', 'usb-phone', 'usb-phone'], 'H', ANDROID_12L);
  const phones = { stream: set.phones[0]!, stock: set.phones[1]!, fast: set.phones[2]! };
  await Promise.all(Object.values(phones).map((phone) => focusNoteField(phone)));
  const bridge = await startSpawnedBridge(cleanup, adb);
  const [idS, idC, idF] = (await waitForDevices(bridge, [set.serial(0), set.serial(1), set.serial(2)])) as [
    string,
    string,
    string,
  ];
  const ids: Record<Way, string> = { stream: idS, stock: idC, fast: idF };
  const client = await connectClient(cleanup, bridge, 'stream client');
  const enabled = await bridge.admin('POST', `/admin/api/devices/${idS}/programs`, {
    action: 'enable',
    program: 'minicap_stream',
  });
  if (enabled.status !== 200) throw new Error(`enable the stream: HTTP ${enabled.status}`);
  const channels: Record<Way, string> = {
    stream: await bindChannel(bridge, client, idS),
    stock: await bindChannel(bridge, client, idC),
    fast: await bindChannel(bridge, client, idF),
  };
  await waitForStreams(bridge, [idS], 30_000);
  const fastProblem = await startFastLane(bridge, client, idF, channels.fast).catch((error: unknown) =>
    error instanceof Error ? error.message : String(error),
  );
  const ways: Way[] = fastProblem ? ['stream', 'stock'] : ['stream', 'stock', 'fast'];
  if (fastProblem) log(`h. the fast lane did not start (${fastProblem}); its row is left out`);
  const expectedSource = (way: Way): string => (way === 'stream' ? 'stream' : 'screencap');

  // h1: the screen changed on the phone THINK_MS before each screenshot (so every capture is of a
  // new frame and none is `unchanged`); the ways alternate call by call, so load affects them alike.
  log('h1. agent screenshot, screen changed before each');
  const times: Record<Way, number[]> = { stream: [], stock: [], fast: [] };
  const changedTimes: Record<Way, number[]> = { stream: [], stock: [], fast: [] };
  const other: Record<Way, number> = { stream: 0, stock: 0, fast: 0 };
  const unchanged: Record<Way, number> = { stream: 0, stock: 0, fast: 0 };
  const bridgePieces: Array<Awaited<ReturnType<typeof streamedShotPieces>>> = [];
  let turn = 0;
  for (let i = -2; i < n.shots; i++) {
    for (const way of i % 2 === 0 ? ways : [...ways].reverse()) {
      await changeScreen(phones[way], turn++);
      await pause(THINK_MS);
      const shot = await screenshot(bridge, client, channels[way]);
      if (i < 0) continue;
      times[way].push(shot.ms);
      if (shot.result.source !== expectedSource(way)) other[way]++;
      if (shot.result.unchanged === true) unchanged[way]++;
      else changedTimes[way].push(shot.ms);
      if (way === 'stream' && bridgePieces.length < 10) bridgePieces.push(await streamedShotPieces(shot.image));
    }
  }
  const rows: ShotRow[] = ways.map((way) => ({
    what: 'screen changed, then screenshot',
    way,
    times: summarize(times[way]),
    changed: summarize(changedTimes[way]),
    otherSource: other[way],
    unchanged: unchanged[way],
  }));

  // An action through the bridge, then a screenshot at once: it must show the action's screen.
  log('h1. action (launch Notes / Home key), then screenshot at once');
  for (const way of ['stream', 'stock'] as const) {
    // From the home screen, so the first launch changes the screen too.
    await callTool(client, channels[way], 'android_press_key', { key: 'home' });
    const after: number[] = [];
    let fresh = 0;
    let otherAfter = 0;
    let unchangedAfter = 0;
    for (let i = 0; i < n.afterAction; i++) {
      const toNotes = i % 2 === 0;
      if (toNotes) await callTool(client, channels[way], 'android_launch_app', { package: 'com.example.notes' });
      else await callTool(client, channels[way], 'android_press_key', { key: 'home' });
      const shot = await screenshot(bridge, client, channels[way]);
      after.push(shot.ms);
      if ((await showsNotes(shot.image)) === toNotes) fresh++;
      if (shot.result.source !== expectedSource(way)) otherAfter++;
      if (shot.result.unchanged === true) unchangedAfter++;
    }
    rows.push({
      what: 'action, then screenshot at once',
      way,
      times: summarize(after),
      otherSource: otherAfter,
      unchanged: unchangedAfter,
      fresh,
    });
  }

  report.section('h. Screen stream (minicap, #26): usb-phone profile, Android 12L, side by side');
  report.add(
    table(
      [
        'call',
        'way',
        'n',
        'p50',
        'p95',
        'p50 without `unchanged` answers',
        'not from its own source',
        'unchanged',
        'showed the action',
        'goal',
      ],
      rows.map((r) => [
        r.what,
        WAY_LABEL[r.way],
        String(r.times.count),
        ms(r.times.p50),
        ms(r.times.p95),
        r.changed ? ms(r.changed.p50) : '—',
        String(r.otherSource),
        String(r.unchanged),
        r.fresh === undefined ? '—' : `${r.fresh} of ${r.times.count}`,
        r.way === 'stream'
          ? `p50 ≤ 100 ms${r.fresh === undefined ? '' : ', every one fresh'}: ${
              r.times.p50 <= 100 && (r.fresh === undefined || r.fresh === r.times.count) ? 'met' : 'missed'
            }`
          : '—',
      ]),
    ),
  );
  const pieces = {
    jpegDecode: summarize(bridgePieces.map((p) => p.jpegDecode)),
    hash: summarize(bridgePieces.map((p) => p.hash)),
    webp: summarize(bridgePieces.map((p) => p.webp)),
    viewRescale: summarize(bridgePieces.map((p) => p.viewRescale)),
  };
  report.add(
    `Screenshots at the defaults (WebP q80, max side 1280), invoke → ack → download, the bridge in its own process (\`device-bridge serve\`). ` +
      `"Screen changed": a letter typed in (or deleted from) the note field by a command run on the phone itself, ${THINK_MS} ms before the call ` +
      '(an agent looking at the last answer), so each capture is of a new frame; the ways alternate call by call. ' +
      '"Action, then screenshot at once": android_launch_app (Notes) and android_press_key (home) in turn through the bridge, the screenshot ' +
      'invoked as soon as the action\'s ack came; "showed the action" checks the Notes header\'s colour in the picture (test/integration/screen-stream.test.ts). ' +
      '"Not from its own source": `source` other than `stream` for S (the stream could not answer; screencap in the same call), other than `screencap` for C and F. ' +
      `The bridge's own work on a streamed picture, timed on ${pieces.webp.count} of the delivered pictures in the bench process (same sharp, same CPU; p50): ` +
      `JPEG decode to RGBA ${ms(pieces.jpegDecode.p50)} ms, SHA-256 of the JPEG ${ms(pieces.hash.p50)} ms, WebP encode (q80, effort 2) ${ms(pieces.webp.p50)} ms.`,
  );

  // h2: the live view. The stream of S keeps running for its lease; C and F have no stream.
  log('h2. live view: distinct frames a second while the screen keeps changing');
  // The actions above left S and C on the home screen or in Notes with nothing focused.
  await Promise.all([focusNoteField(phones.stream), focusNoteField(phones.stock)]);
  const viewWays: Way[] = fastProblem ? ['stream', 'stock'] : ['stream', 'stock', 'fast'];
  const viewRows: string[][] = [];
  for (const way of viewWays) {
    const phone = phones[way];
    const rendersBefore = phone.renderCount();
    // Twenty commands at once, each ≈ 0.3 s of phone time, started evenly: about 60 changes a
    // second, as a screen animating at 60 Hz (more than minicap's 30-40 frames a second).
    const driver = keepChanging(phone, 20);
    const fps = await distinctFramesPerSecond(bridge, ids[way], n.viewSeconds);
    const stream = await streamOf(bridge, ids[way]);
    const driven = await driver.stop();
    const renders = phone.renderCount() - rendersBefore;
    viewRows.push([
      WAY_LABEL[way],
      fps.lanes.join(', ') || '—',
      (driven.changes / driven.seconds).toFixed(1),
      (renders / driven.seconds).toFixed(1),
      way === 'stream' ? String(stream?.stream?.fps ?? '—') : '—',
      fps.perSecond.toFixed(1),
      fps.newPicturesPerSecond.toFixed(1),
      way === 'stream' ? (fps.newPicturesPerSecond >= 25 ? 'met' : 'missed') : '—',
    ]);
  }
  log('h2. glass to glass: Notes ↔ home on the phone, to the first frame served that shows it');
  const g2gRows: string[][] = [];
  for (const way of viewWays) {
    const g = await glassToGlass(bridge, ids[way], phones[way], n.g2g);
    const s = summarize(g.latencies);
    g2gRows.push([WAY_LABEL[way], g.lanes.join(', ') || '—', String(s.count), ms(s.p50), ms(s.p95), String(g.missed)]);
  }
  report.add(
    table(
      [
        'live view, one viewer (console loop, max side 720)',
        'lane served',
        'screen changes a second (driven)',
        'frames rendered by the simulated phone a second',
        'stream frames a second (bridge)',
        'new frame numbers a second served',
        'new pictures a second served',
        'goal ≥ 25 distinct',
      ],
      viewRows,
    ),
  );
  report.add(table(['glass to glass', 'lane served', 'n', 'p50', 'p95', 'not seen within 5 s'], g2gRows));
  report.add(
    `Live view: one viewer long-polls \`GET /admin/api/devices/:id/frame?after=<seq>&max_side=720\` as the console does (the next ask as soon as a frame comes, ` +
      `at least 30 ms after the last ask began), for ${n.viewSeconds} s after 2 s of warm-up, while twenty \`input\` commands at a time, started evenly ` +
      "across one command's 0.3 s, keep changing the note on the phone: it grows letter by letter to 300, then shrinks, and so on (about 60 changes a second, a screen animating at 60 Hz). " +
      '"Frames rendered by the simulated phone": the simulator rasterises each screen it is asked for with sharp on this computer (minicap\'s ' +
      "frames are drawn straight at the 576×1280 projection, as SurfaceFlinger composes minicap's virtual display, and JPEG-encoded), " +
      "paced to the profile's 33 ms a frame at the most. " +
      '"Stream frames a second (bridge)" is the rate minicap frames reached the bridge (its own 2 s window). ' +
      '"New frame numbers" is what the console counts as frames shown; "new pictures" counts only frames whose bytes differ from the one before ' +
      '(a frame that shows the same screen as the one before). ' +
      `The bridge's work per minicap frame for the view (576×1280 JPEG scaled to 720 and encoded again, live-frames.ts keepJpeg), timed here: p50 ${ms(
        pieces.viewRescale.p50,
      )} ms. ` +
      'Glass to glass: the phone switches between Notes and the home screen (`monkey`, `input keyevent 3` run on the phone), timed from the ' +
      "command's end (the screen has changed; the simulator has not yet drawn it) to the first frame the route serves whose header shows it.",
  );

  await cleanup.runNow('stream client');
  await cleanup.runNow('spawned bridge');
  await cleanup.runNow('phones H');
  await streamCpuBench(report, cleanup, adb, quick, log);
}

/** The bridge's per-picture work on a streamed screenshot (screenshot-pipeline fromStream + encode), timed here. */
async function streamedShotPieces(
  delivered: Buffer,
): Promise<{ jpegDecode: number; hash: number; webp: number; viewRescale: number }> {
  // minicap's picture: 576×1280 JPEG at quality 80 (minicap-process.ts); rebuilt from the delivered one.
  const jpeg = await sharp(delivered).jpeg({ quality: 80 }).toBuffer();
  let t0 = now();
  const { data, info } = await sharp(jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const jpegDecode = now() - t0;
  t0 = now();
  createHash('sha256').update(jpeg).digest('hex');
  const hash = now() - t0;
  t0 = now();
  await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
    .webp({ quality: 80, effort: 2 })
    .toBuffer();
  const webp = now() - t0;
  t0 = now();
  await sharp(jpeg).metadata();
  await sharp(jpeg)
    .resize({ width: 720, height: 720, fit: 'inside', kernel: 'linear' })
    .jpeg({ quality: 70 })
    .toBuffer();
  return { jpegDecode, hash, webp, viewRescale: now() - t0 };
}
