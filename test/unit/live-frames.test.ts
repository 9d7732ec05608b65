/**
 * LiveFrames (main/core/phone-view/live-frames.ts) with a fake phone: viewers share captures,
 * a viewer gets the frame after the one it shows, the last frame comes back without a capture
 * while the agent works, and capturing stops once nobody asks.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveFrames, ACTIVE_FOR_MS } from '../../main/core/phone-view/live-frames';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import type { DeviceShell } from '../../main/core/devices/device-shell';

const W = 40;
const H = 80;

function rawScreencap(): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(W, 0);
  header.writeUInt32LE(H, 4);
  header.writeUInt32LE(1, 8);
  return Buffer.concat([header, Buffer.alloc(W * H * 4, 0x7f)]);
}

function rig(options: { busy?: () => boolean } = {}) {
  let now = 1_000;
  let captures = 0;
  const shell = {
    execOut: async () => {
      captures += 1;
      await new Promise((r) => setImmediate(r));
      return rawScreencap();
    },
  } as unknown as DeviceShell;
  const device = { deviceId: 'dev_1', state: 'device' } as DeviceRecord;
  const frames = new LiveFrames({
    device: (id) => (id === 'dev_1' ? device : undefined),
    shellFor: () => shell,
    observe: (_id, run) => run(new AbortController().signal),
    agentBusy: options.busy ?? (() => false),
    clock: () => now,
    captureTimeoutMs: 1_000,
  });
  return { frames, captures: () => captures, advance: (ms: number) => (now += ms) };
}

/**
 * Resolves once every capture taken has become a kept frame. A capture loop checks whether to
 * go on right after it starts encoding a picture, and starts the next capture at once when it
 * does, so a loop that goes on is always a capture ahead of its kept frames; one that stopped
 * catches up. The encoding runs off the event loop, hence the turns of the loop in between.
 */
async function allKept(r: ReturnType<typeof rig>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((r.frames.latest('dev_1')?.seq ?? 0) !== r.captures()) {
    if (Date.now() > deadline)
      throw new Error(
        `${r.captures()} captures taken, the newest kept frame is #${r.frames.latest('dev_1')?.seq ?? 0}: still capturing`,
      );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

void describe('live frames', () => {
  void test('two viewers asking at once share one frame; the phone’s size rides along', async () => {
    const r = rig();
    const [a, b] = await Promise.all([r.frames.frame('dev_1'), r.frames.frame('dev_1')]);
    assert.equal(a.frame.seq, b.frame.seq);
    assert.deepEqual([a.frame.screenWidth, a.frame.screenHeight], [W, H]);
    assert.ok(a.fresh);
    r.advance(ACTIVE_FOR_MS + 1);
  });

  void test('a viewer showing frame n gets a later one; capturing stops once nobody asks', async () => {
    const r = rig();
    const first = await r.frames.frame('dev_1');
    const second = await r.frames.frame('dev_1', first.frame.seq);
    assert.ok(second.frame.seq > first.frame.seq);
    r.advance(ACTIVE_FOR_MS + 1);
    // The loop ends after the capture in hand; then nothing more is taken.
    const inHand = r.captures();
    await allKept(r);
    assert.equal(r.captures(), inHand, 'no capture after the one in hand');
  });

  void test('while the agent works the last frame comes back at once, marked not fresh, with no capture', async () => {
    let busy = false;
    const r = rig({ busy: () => busy });
    const first = await r.frames.frame('dev_1');
    r.advance(ACTIVE_FOR_MS + 1);
    await allKept(r);
    busy = true;
    const before = r.captures();
    const again = await r.frames.frame('dev_1', first.frame.seq + 1_000);
    assert.equal(again.fresh, false);
    assert.equal(r.captures(), before, 'nothing captured while the agent works');
    r.advance(ACTIVE_FOR_MS + 1);
  });

  void test('an unknown phone is refused', async () => {
    await assert.rejects(rig().frames.frame('nope'), /not online/);
  });
});
