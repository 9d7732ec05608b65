/**
 * ActionTimeline (main/core/phone-view/action-timeline.ts) with fake frames: a ring per phone
 * whose pictures leave with their calls, points read from results (batch steps too), states
 * from queued to done, and pictures only while the phone is watched.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { ActionTimeline, pointsOf } from '../../main/core/phone-view/action-timeline';
import type { LiveFrame } from '../../main/core/phone-view/live-frames';
import type { DeviceShell } from '../../main/core/devices/device-shell';
import { fakeToolCall } from '../helpers/tool-calls';
import { REDACTED, liveTyping } from '../../main/core/safety/redact';
import type { CallVerdict } from '../../main/core/tools/tool-call';

/** The gate's verdict on a call, as far as the timeline reads it (the arguments it redacted). */
function verdict(redactedArgs: Record<string, unknown>): CallVerdict {
  return {
    decision: 'allow',
    decidedBy: 'policy',
    reasons: [],
    risk: 'low',
    riskClasses: [],
    redactedArgs,
    approvalId: null,
    screenshotRef: null,
    windowBefore: null,
    treeRead: null,
  };
}

async function frameOf(seq: number): Promise<LiveFrame> {
  const jpeg = await sharp({
    create: { width: 324, height: 720, channels: 3, background: { r: seq % 255, g: 40, b: 90 } },
  })
    .jpeg()
    .toBuffer();
  return { jpeg, jpegWidth: 324, jpegHeight: 720, screenWidth: 1080, screenHeight: 2400, at: 0, seq, lane: 'adb' };
}

function timeline(options: { watched: boolean; capacity?: number; typing?: boolean }) {
  let now = 1_000;
  let captures = 0;
  const changes: string[] = [];
  const onChange = new Set<() => void>();
  const t = new ActionTimeline({
    clock: () => now,
    redact: ({ args }) => ({ ...args, ...(typeof args.text === 'string' ? { text: '[redacted]' } : {}) }),
    ...(options.typing ? { typing: liveTyping } : {}),
    changed: (deviceId) => {
      changes.push(deviceId);
      for (const listener of [...onChange]) listener();
    },
    frames: {
      watched: () => options.watched,
      latest: () => undefined,
      captureIn: async () => {
        captures += 1;
        return frameOf(captures);
      },
    },
    logger: { warn: () => undefined },
    ...(options.capacity ? { capacity: options.capacity } : {}),
  });
  /**
   * Resolves once every pointing action listed for the phone has its picture. Pictures are
   * shrunk off the event loop; the timeline announces each one with changed(), so this
   * checks again on each announcement.
   */
  const pictured = (deviceId: string, timeoutMs = 5_000): Promise<void> => {
    const done = (): boolean => !t.list(deviceId).some((a) => a.points.length > 0 && a.screen === null);
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        onChange.delete(check);
        reject(new Error(`actions still without a picture after ${timeoutMs} ms: ${JSON.stringify(t.list(deviceId))}`));
      }, timeoutMs);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        onChange.delete(check);
        resolve();
      };
      onChange.add(check);
    });
  };
  return { t, changes, pictured, captures: () => captures, tick: (ms: number) => (now += ms) };
}

const shell = {} as DeviceShell;

void describe('action timeline', () => {
  void test('a tap goes queued → running → done with its point, picture and redacted arguments', async () => {
    const { t, changes, pictured } = timeline({ watched: true });
    const call = t.queued(
      fakeToolCall({ deviceId: 'dev_1', channelId: 'cch_1', toolId: 'android_tap', args: { element: { text: 'OK' } } }),
    );
    assert.equal(t.list('dev_1')[0]?.state, 'queued');
    call.running();
    assert.equal(t.list('dev_1')[0]?.state, 'running');
    call.held();
    assert.equal(t.list('dev_1')[0]?.state, 'held');
    await call.beforeAction(shell, new AbortController().signal);
    call.finished({ result: { status: 'tapped', x: 540, y: 1200, lane: 'helper' } }, 42);
    await pictured('dev_1');
    const [tap] = t.list('dev_1');
    assert.ok(tap);
    assert.equal(tap.state, 'done');
    assert.equal(tap.outcome, 'ok');
    assert.equal(tap.lane, 'helper');
    assert.equal(tap.duration_ms, 42);
    assert.deepEqual(tap.points, [{ kind: 'tap', x: 540, y: 1200, to_x: null, to_y: null }]);
    assert.deepEqual(tap.arguments, { element: { text: 'OK' } });
    assert.deepEqual([tap.screen?.width, tap.screen?.height, tap.screen?.thumb_height], [1080, 2400, 240]);
    assert.ok(t.screen('dev_1', tap.action_id)?.length);
    assert.ok(changes.length >= 4);
  });

  void test('typed text is what the redaction gives, never the text', () => {
    const { t } = timeline({ watched: false });
    const call = t.queued(
      fakeToolCall({ deviceId: 'dev_1', channelId: 'cch_1', toolId: 'android_type_text', args: { text: 'hunter2' } }),
    );
    assert.ok(!JSON.stringify(t.list('dev_1')).includes('hunter2'));
    call.finished({ result: { status: 'typed' } }, 5);
    assert.ok(!JSON.stringify(t.list('dev_1')).includes('hunter2'));
  });

  void test('typed text in plain words only when asked for (the local console), dots for a secret, until the entry leaves', () => {
    const { t } = timeline({ watched: false, typing: true, capacity: 3 });
    const plain = fakeToolCall({ deviceId: 'dev_1', toolId: 'android_type_text', args: { text: 'lunch at 1' } });
    const observed = t.queued(plain);
    // Before the gate judged the call, nothing is plain.
    assert.deepEqual(t.list('dev_1', { typedText: true })[0]?.typing, [null]);
    plain.verdict = verdict({ text: 'lunch at 1' });
    observed.running();
    assert.deepEqual(t.list('dev_1', { typedText: true })[0]?.typing, ['lunch at 1']);
    assert.ok(!JSON.stringify(t.list('dev_1')).includes('lunch at 1'), 'not for a remote console');
    observed.finished({ result: { status: 'typed' } }, 5);
    assert.deepEqual(t.list('dev_1', { typedText: true })[0]?.typing, ['lunch at 1'], 'kept with the entry');
    assert.ok(!JSON.stringify(t.list('dev_1')).includes('lunch at 1'));

    const password = fakeToolCall({ deviceId: 'dev_1', toolId: 'android_type_text', args: { text: 'hunter2' } });
    const pw = t.queued(password);
    password.verdict = verdict({ text: REDACTED });
    pw.finished({ result: { status: 'typed' } }, 5);
    const byName = t.queued(fakeToolCall({ deviceId: 'dev_1', toolId: 'android_type_text', args: { secret: 'wifi' } }));
    byName.finished({ result: { status: 'typed' } }, 5);
    const listed = t.list('dev_1', { typedText: true });
    assert.deepEqual(
      listed.map((a) => a.typing),
      [[null], [null], ['lunch at 1']],
    );
    assert.ok(!JSON.stringify(listed).includes('hunter2'));

    // The ring moves on: the plain text leaves with its entry.
    const tap = t.queued(fakeToolCall({ deviceId: 'dev_1', toolId: 'android_tap', args: { x: 1, y: 2 } }));
    tap.finished({ result: { x: 1, y: 2 } }, 1);
    assert.ok(!JSON.stringify(t.list('dev_1', { typedText: true })).includes('lunch at 1'));
  });

  void test('a running call carries its last progress; watchers hear of a new status at once, of the seconds at most once a second', () => {
    const { t, changes, tick } = timeline({ watched: false });
    const call = t.queued(
      fakeToolCall({ deviceId: 'dev_1', toolId: 'android_wait_for', args: { timeout_ms: 20_000 } }),
    );
    call.running();
    const before = changes.length;
    call.progress('waiting', 'waiting for the screen (settled), 0 s', 0.01);
    assert.equal(changes.length, before + 1, 'a new status is told');
    for (let i = 0; i < 3; i++) {
      tick(250);
      call.progress('waiting', 'waiting for the screen (settled), 0 s', 0.02 + i / 100);
    }
    assert.equal(changes.length, before + 1, 'the 250 ms pushes in between are not');
    tick(250);
    call.progress('waiting', 'waiting for the screen (settled), 1 s', 0.05);
    assert.equal(changes.length, before + 2, 'once a second they are');
    const running = t.list('dev_1')[0];
    assert.deepEqual(running?.progress, {
      status: 'waiting',
      message: 'waiting for the screen (settled), 1 s',
      fraction: 0.05,
      at: running?.progress?.at,
    });
    call.finished({ errorCode: 'canceled', errorMessage: 'the wait was canceled' }, 1_000);
    const done = t.list('dev_1')[0];
    assert.equal(done?.progress, null, 'an ended call waits for nothing');
    assert.equal(done?.error_message, 'the wait was canceled', 'what the agent was told');
    call.progress('waiting', 'late', 0.9);
    assert.equal(t.list('dev_1')[0]?.progress, null, 'a late push after the end changes nothing');
  });

  void test('not watched: no picture is taken', async () => {
    const { t, captures } = timeline({ watched: false });
    const call = t.queued(
      fakeToolCall({ deviceId: 'dev_1', channelId: 'cch_1', toolId: 'android_tap', args: { x: 1, y: 2 } }),
    );
    await call.beforeAction(shell, new AbortController().signal);
    call.finished({ result: { x: 1, y: 2 } }, 1);
    assert.equal(captures(), 0);
    assert.equal(t.list('dev_1')[0]?.screen, null);
  });

  void test('the ring keeps the newest calls; pictures leave with their calls', async () => {
    const { t, pictured } = timeline({ watched: true, capacity: 10 });
    for (let i = 0; i < 40; i++) {
      const call = t.queued(
        fakeToolCall({ deviceId: 'dev_1', channelId: 'cch_1', toolId: 'android_tap', args: { x: i, y: i } }),
      );
      await call.beforeAction(shell, new AbortController().signal);
      call.finished({ result: { x: i, y: i } }, 1);
    }
    await pictured('dev_1');
    const list = t.list('dev_1');
    assert.equal(list.length, 10);
    assert.deepEqual(
      list.map((a) => a.points[0]?.x),
      [39, 38, 37, 36, 35, 34, 33, 32, 31, 30],
    );
    const stats = t.stats();
    assert.equal(stats.entries, 10);
    assert.ok(stats.thumbBytes < 10 * 20_000, `${stats.thumbBytes} bytes of pictures`);
  });

  void test('points of swipes and batch steps', () => {
    assert.deepEqual(pointsOf('android_swipe', { from: [1, 2], to: [3, 4] }), [
      { kind: 'swipe', x: 1, y: 2, to_x: 3, to_y: 4 },
    ]);
    assert.deepEqual(pointsOf('android_long_press', { x: 5, y: 6 }), [
      { kind: 'long_press', x: 5, y: 6, to_x: null, to_y: null },
    ]);
    assert.deepEqual(
      pointsOf('android_batch', {
        steps: [
          { tool: 'android_tap', ok: true, result: { x: 7, y: 8 } },
          { tool: 'android_press_key', ok: true, result: { key: 'back' } },
          { tool: 'android_swipe', ok: true, result: { from: [1, 1], to: [2, 2] } },
        ],
      }),
      [
        { kind: 'tap', x: 7, y: 8, to_x: null, to_y: null },
        { kind: 'swipe', x: 1, y: 1, to_x: 2, to_y: 2 },
      ],
    );
    assert.deepEqual(pointsOf('android_device_status', { battery: 80 }), []);
  });
});
