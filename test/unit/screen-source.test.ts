/**
 * The screen room (main/core/screen/): the freshness rule says which source answers each use
 * of a picture and how fresh it must be; a phone's ScreenSource follows it with a fake stream
 * and a fake phone that counts its screencaps; the encoder keeps nothing, so two phones' sources
 * never share a picture, even one made from the very same stream bytes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { BridgeError } from '../../main/core/errors';
import type { DeviceShell } from '../../main/core/devices/device-shell';
import { FRESHNESS, mayReuse, pickSource, REUSE_FRAME_MS, servesMaxSide } from '../../main/core/screen/freshness';
import { ScreenEncoder } from '../../main/core/screen/screen-encoder';
import type { StreamFrame, StreamPort } from '../../main/core/screen/screen-source';
import { ScreenSources } from '../../main/core/screen/screen-sources';

const SCREEN = { width: 1080, height: 2400 };

describe('the freshness rule', () => {
  test('the stream answers every use while it runs; without it, screencap; only the live view reads the helper', () => {
    const uses = Object.keys(FRESHNESS) as Array<keyof typeof FRESHNESS>;
    for (const use of uses) {
      assert.equal(pickSource(use, { streamRunning: true, helperStreaming: true }), 'stream', use);
      assert.equal(pickSource(use, { streamRunning: false, helperStreaming: false }), 'screencap', use);
    }
    assert.equal(pickSource('live', { streamRunning: false, helperStreaming: true }), 'helper');
    for (const use of ['screenshot', 'approval', 'timeline', 'thumbnail'] as const)
      assert.equal(pickSource(use, { streamRunning: false, helperStreaming: true }), 'screencap', use);
  });

  test('what must show the screen after the last action waits for the stream; the thumbnail and live view take its newest frame', () => {
    assert.equal(FRESHNESS.screenshot.stream, 'after_last_action');
    assert.equal(FRESHNESS.approval.stream, 'after_last_action');
    assert.equal(FRESHNESS.timeline.stream, 'after_last_action');
    assert.equal(FRESHNESS.thumbnail.stream, 'newest');
    assert.equal(FRESHNESS.live.stream, 'newest');
  });

  test('a picture taken stands for the screen before the next action only when taken since the last one ended, and young', () => {
    assert.equal(mayReuse(1_000, 900, 1_500), true);
    assert.equal(mayReuse(1_000, 1_000, 1_000 + REUSE_FRAME_MS), true);
    assert.equal(mayReuse(1_000, 1_001, 1_100), false, 'taken before the last action ended');
    assert.equal(mayReuse(1_000, 900, 1_001 + REUSE_FRAME_MS), false, 'too old');
  });

  test('a stream picture serves a max side it reaches, never one it would have to be scaled up to', () => {
    const half = { width: 540, height: 1200 };
    assert.equal(servesMaxSide(half, SCREEN, 1200), true);
    assert.equal(servesMaxSide(half, SCREEN, 720), true);
    assert.equal(servesMaxSide(half, SCREEN, 1280), false);
    // A max side beyond the screen itself asks for the screen's own size.
    assert.equal(servesMaxSide(SCREEN, SCREEN, 4000), true);
  });
});

/** A JPEG of one colour. */
function jpegOf(width: number, height: number, color: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** screencap's raw output: a 12-byte header (width, height, RGBA_8888) and the pixels. */
function rawScreencap(width: number, height: number, byte: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(width, 0);
  header.writeUInt32LE(height, 4);
  header.writeUInt32LE(1, 8);
  return Buffer.concat([header, Buffer.alloc(width * height * 4, byte)]);
}

/** A phone that counts its screencaps (raw and PNG both go through execOut). */
function phone(width = 108, height = 240, byte = 0x7f) {
  let screencaps = 0;
  const shell = {
    execOut: (argv: string[]) => {
      screencaps += 1;
      assert.deepEqual(argv, ['screencap'], 'only the raw screencap is expected of a first capture');
      return Promise.resolve(rawScreencap(width, height, byte));
    },
  } as unknown as DeviceShell;
  return { shell, screencaps: () => screencaps };
}

/** A stream whose freshness answer and newest frame the test sets, and which counts what it was asked. */
function fakeStream(options: {
  fresh?: { jpeg: Buffer; screen: { width: number; height: number } } | null;
  newest?: { jpeg: Buffer; scale: number } | null;
}) {
  const asked: string[] = [];
  const frame = (jpeg: Buffer): StreamFrame => ({ jpeg, index: 1 });
  const stream: StreamPort = {
    agentFrame: (deviceId) => {
      asked.push(`agentFrame:${deviceId}`);
      const fresh = options.fresh ?? null;
      return Promise.resolve(fresh ? { frame: frame(fresh.jpeg), screen: fresh.screen } : null);
    },
    live: (deviceId) => {
      asked.push(`live:${deviceId}`);
      const newest = options.newest ?? null;
      return newest
        ? {
            reader: {
              latest: frame(newest.jpeg),
              closed: false,
              next: () => Promise.reject(new Error('not in this test')),
            },
            scale: newest.scale,
          }
        : null;
    },
    want: () => undefined,
  };
  return { stream, asked };
}

const read = (shell: DeviceShell) => ({ shell, signal: new AbortController().signal, timeoutMs: 5_000 });

describe('a phone’s ScreenSource follows the rule', () => {
  test('the screenshot comes from the stream when it has a fresh frame large enough: no screencap', async () => {
    const jpeg = await jpegOf(540, 1200, '#2040a0');
    const { stream, asked } = fakeStream({ fresh: { jpeg, screen: SCREEN } });
    const p = phone();
    const sources = new ScreenSources({ stream });
    const { pixels } = await sources.of('dev_a').screenshot(read(p.shell), 1200);
    assert.equal(pixels.source, 'stream');
    assert.deepEqual([pixels.width, pixels.height, pixels.imageWidth], [1080, 2400, 540]);
    assert.equal(p.screencaps(), 0);
    assert.deepEqual(asked, ['agentFrame:dev_a']);
  });

  test('no fresh frame in time, or one too small for the side asked: screencap in the same call', async () => {
    const jpeg = await jpegOf(540, 1200, '#2040a0');
    for (const [fresh, maxSide] of [
      [null, 1280],
      [{ jpeg, screen: SCREEN }, 1600],
    ] as const) {
      const p = phone();
      const sources = new ScreenSources({ stream: fakeStream({ fresh }).stream });
      const { pixels, done } = await sources.of('dev_a').screenshot(read(p.shell), maxSide);
      done();
      assert.equal(pixels.source, 'screencap');
      assert.equal(p.screencaps(), 1);
    }
  });

  test('while a person holds the phone unwatched the agent’s screenshot is refused, before the stream is asked', async () => {
    const { stream, asked } = fakeStream({ fresh: null });
    const refusal = new BridgeError('human_in_control', 'a person holds the phone');
    const sources = new ScreenSources({ stream, hiddenFromAgent: () => refusal });
    await assert.rejects(sources.of('dev_a').screenshot(read(phone().shell), 720), (e) => e === refusal);
    assert.deepEqual(asked, []);
  });

  test('the thumbnail takes the stream’s newest frame at once; the approval card waits for one after the last action', async () => {
    const jpeg = await jpegOf(540, 1200, '#a02020');
    const { stream, asked } = fakeStream({ fresh: { jpeg, screen: SCREEN }, newest: { jpeg, scale: 0.5 } });
    const p = phone();
    const sources = new ScreenSources({ stream });
    const queued: string[] = [];
    const onQueue = <T>(capture: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      queued.push('screencap');
      return capture(new AbortController().signal);
    };
    const thumb = await sources
      .of('dev_a')
      .picture('thumbnail', { maxSide: 360, quality: 70 }, onQueue, { shell: p.shell, timeoutMs: 5_000 });
    assert.equal(thumb.source, 'stream');
    assert.deepEqual([thumb.screenWidth, thumb.screenHeight], [1080, 2400]);
    assert.equal(Math.max(thumb.width, thumb.height), 360);
    assert.deepEqual(asked, ['live:dev_a'], 'the newest frame, no freshness wait');
    asked.length = 0;
    const card = await sources
      .of('dev_a')
      .picture('approval', { maxSide: 720, quality: 70 }, onQueue, { shell: p.shell, timeoutMs: 5_000 });
    assert.equal(card.source, 'stream');
    assert.deepEqual(asked, ['agentFrame:dev_a']);
    assert.deepEqual(queued, [], 'no screencap on the queue');
    assert.equal(p.screencaps(), 0);
  });

  test('without a stream every use is a screencap, run where the caller says (its slot, or the queue)', async () => {
    const p = phone(108, 240);
    const sources = new ScreenSources();
    const queued: string[] = [];
    const thumb = await sources.of('dev_a').picture(
      'thumbnail',
      { maxSide: 60, quality: 70 },
      (capture) => {
        queued.push('thumbnail');
        return capture(new AbortController().signal);
      },
      { shell: p.shell, timeoutMs: 5_000 },
    );
    assert.equal(thumb.source, 'screencap');
    assert.deepEqual([thumb.width, thumb.height, thumb.screenWidth], [27, 60, 108]);
    assert.deepEqual(queued, ['thumbnail']);
    assert.equal(p.screencaps(), 1);
  });
});

describe('the encoder keeps nothing: each phone’s pictures are its own', () => {
  test('two phones whose streams hand over the very same bytes get each its own screen’s picture', async () => {
    // The same Buffer object from both streams: a cache keyed by the frame's bytes alone
    // would give the second phone the first one's screen size.
    const jpeg = await jpegOf(360, 800, '#208020');
    const tall = new ScreenSources({
      stream: fakeStream({ fresh: { jpeg, screen: { width: 720, height: 1600 } } }).stream,
    });
    const small = new ScreenSources({
      stream: fakeStream({ fresh: { jpeg, screen: { width: 360, height: 800 } } }).stream,
    });
    const a = (await tall.of('dev_a').screenshot(read(phone().shell), 800)).pixels;
    const b = (await small.of('dev_b').screenshot(read(phone().shell), 800)).pixels;
    assert.deepEqual([a.width, a.height], [720, 1600]);
    assert.deepEqual([b.width, b.height], [360, 800]);
    // One registry, two phones: each source decodes for itself.
    const both = new ScreenSources({
      stream: {
        ...fakeStream({}).stream,
        agentFrame: (deviceId) =>
          Promise.resolve({
            frame: { jpeg, index: 1 },
            screen: deviceId === 'dev_a' ? { width: 720, height: 1600 } : { width: 360, height: 800 },
          }),
      },
    });
    const sa = both.of('dev_a');
    const sb = both.of('dev_b');
    assert.notEqual(sa, sb);
    const pa = (await sa.screenshot(read(phone().shell), 800)).pixels;
    const pb = (await sb.screenshot(read(phone().shell), 800)).pixels;
    assert.notEqual(pa, pb);
    assert.deepEqual([pa.width, pb.width], [720, 360]);
  });

  test('a source lets its decoded frames go once no screenshot is in flight', async () => {
    const jpeg = await jpegOf(360, 800, '#208020');
    const sources = new ScreenSources({ stream: fakeStream({ fresh: { jpeg, screen: SCREEN } }).stream });
    const source = sources.of('dev_a');
    await source.screenshot(read(phone().shell), 800);
    assert.equal(source.keptPictures, 1);
    source.screenshotDone();
    assert.equal(source.keptPictures, 0);
    sources.forget('dev_a');
    assert.equal(sources.size, 0);
  });

  test('PNG, JPEG and WebP at the size asked; small JPEGs are never scaled up, and a stream picture that fits is kept as it came', async () => {
    const encoder = new ScreenEncoder();
    const pixels = encoder.fromRaw({ width: 100, height: 200, rgba: Buffer.alloc(100 * 200 * 4, 0x50) });
    const magic = { png: '89504e47', jpeg: 'ffd8ff', webp: '52494646' } as const;
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const out = await encoder.encode(pixels, 50, 100, format, 80);
      assert.ok(out.toString('hex').startsWith(magic[format]), format);
      const meta = await sharp(out).metadata();
      assert.deepEqual([meta.width, meta.height], [50, 100], format);
    }
    const jpeg = await jpegOf(100, 200, '#123456');
    const notUp = await encoder.jpeg({ jpeg }, { maxSide: 720, quality: 70 });
    assert.deepEqual([notUp.width, notUp.height], [100, 200]);
    const kept = await encoder.jpeg({ jpeg }, { maxSide: 720, quality: 70, keepWhenFits: true });
    assert.equal(kept.jpeg, jpeg);
  });

  test('annotation draws each labelled box over the picture', async () => {
    const encoder = new ScreenEncoder();
    const pixels = encoder.fromRaw({ width: 200, height: 200, rgba: Buffer.alloc(200 * 200 * 4, 0xff) });
    const png = await encoder.annotated(
      pixels,
      { width: 200, height: 200, scale: 1 },
      [{ bounds: [20, 60, 180, 120], label: '@a1' }],
      'png',
      80,
    );
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) =>
      data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3);
    assert.deepEqual([...at(100, 5)], [255, 255, 255], 'outside any box: the picture');
    const edge = at(100, 119);
    assert.ok(edge[0]! > 200 && edge[1]! < 80, `the box's edge is red, got ${[...edge].join(',')}`);
  });
});
