/**
 * The agent loop at the speed of the screen: the screen read after an action stands in for the
 * next call's window read and dump only while the phone's screen stream shows no change since
 * (ScreenHistory.stillShowing), and the stream's own rule (a frame within its latency bound of
 * the read's end counts as a change the read may have missed).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ScreenHistory } from '../../main/core/safety/screen-history';
import type { WindowFacts } from '../../main/core/android/screen-probe';
import type { UiNode } from '../../main/core/android/ui-tree';
import type { ScreenRead, ToolCall } from '../../main/core/tools/tool-call';
import { fakeToolCall } from '../helpers/tool-calls';

const WINDOW: WindowFacts = {
  token: 'Window{a1 u0 com.example.notes/.Main}',
  package: 'com.example.notes',
  activity: '.Main',
  secure: false,
};
const NODES = [{ text: 'Save' }] as unknown as UiNode[];

/** A tap the gate allowed, whose fast lane reads the screen after it with `read`. */
function allowedTap(read: () => Promise<ScreenRead | null>): ToolCall {
  const call = fakeToolCall({ toolId: 'android_tap', args: { x: 10, y: 10 } });
  call.verdict = {
    decision: 'allow',
    decidedBy: 'policy',
    reasons: [],
    risk: 'low',
    riskClasses: [],
    redactedArgs: {},
    approvalId: null,
    screenshotRef: null,
    windowBefore: WINDOW.token,
    treeRead: null,
  } as unknown as ToolCall['verdict'];
  call.lanesAtSlot = { readTree: () => Promise.resolve(NODES), cheapTree: true, screenAfter: read };
  return call;
}

function history(unchanged: (read: { startedAt: number; endedAt: number }) => boolean, running = true): ScreenHistory {
  return new ScreenHistory({
    clock: Date.now,
    probeTimeoutMs: 5_000,
    screenUnchanged: (_device, read) => unchanged(read),
    streamRunning: () => running,
  });
}

async function afterTap(h: ScreenHistory, window: WindowFacts = WINDOW): Promise<ToolCall> {
  const span = { startedAt: 100, endedAt: 180 };
  const tap = allowedTap(() => Promise.resolve({ window, nodes: NODES, span }));
  h.controlJudged('phone-1');
  h.callFinished(tap, 'ok');
  // The pipeline starts the read once the tap's ack is on its way (call-pipeline.ts `acked`).
  h.readScreenAfter(tap, 'ok');
  const next = fakeToolCall({ toolId: 'android_tap', args: { ref: '@x' } });
  await h.awaitScreenAfter(next);
  return next;
}

describe('the screen stream vouches for the read after an action', () => {
  test('no change since: the read stands in, window and tree, for the read it spans', async () => {
    const asked: Array<{ startedAt: number; endedAt: number }> = [];
    const h = history((read) => {
      asked.push(read);
      return true;
    });
    const next = await afterTap(h);
    assert.equal(h.mayVouch('phone-1'), true);
    const still = h.stillShowing(next);
    assert.deepEqual(still, { window: WINDOW, nodes: NODES });
    assert.deepEqual(asked, [{ startedAt: 100, endedAt: 180 }]);
  });

  test('a frame since the read: the phone is read again', async () => {
    const h = history(() => false);
    const next = await afterTap(h);
    assert.equal(h.stillShowing(next), null);
  });

  test('a window that keeps its pictures out of screenshots (or unknown flags) is never vouched for', async () => {
    for (const secure of [true, null]) {
      const h = history(() => true);
      const next = await afterTap(h, { ...WINDOW, secure });
      assert.equal(h.stillShowing(next), null, `secure: ${String(secure)}`);
    }
  });

  test('another control call judged since the read voids it', async () => {
    const h = history(() => true);
    const next = await afterTap(h);
    h.controlJudged('phone-1');
    assert.equal(h.stillShowing(next), null);
  });

  test('another channel never gets this channel’s read', async () => {
    const h = history(() => true);
    await afterTap(h);
    const other = fakeToolCall({ toolId: 'android_tap', args: { x: 1, y: 1 }, channelId: 'chan-2' });
    assert.equal(h.stillShowing(other), null);
  });

  test('without a running stream nothing is vouched for', async () => {
    const h = history(() => true, false);
    await afterTap(h);
    assert.equal(h.mayVouch('phone-1'), false);
  });

  test('actions back to back: one read at a time, and only the last action’s screen is read after it', async () => {
    const h = history(() => true);
    const span = { startedAt: 100, endedAt: 180 };
    const started: string[] = [];
    const finishFirst: Array<() => void> = [];
    const tapReading = (name: string, gate?: Promise<void>): ToolCall =>
      allowedTap(async () => {
        started.push(name);
        await gate;
        return { window: { ...WINDOW, token: `Window{${name}}` }, nodes: NODES, span };
      });
    const first = tapReading('first', new Promise((resolve) => finishFirst.push(resolve)));
    h.controlJudged('phone-1');
    h.callFinished(first, 'ok');
    h.readScreenAfter(first, 'ok');
    // Two more taps while the first read runs: neither starts a read beside it.
    const taps = [tapReading('second'), tapReading('third')];
    for (const tap of taps) {
      h.controlJudged('phone-1');
      h.callFinished(tap, 'ok');
      h.readScreenAfter(tap, 'ok');
    }
    assert.deepEqual(started, ['first']);
    finishFirst[0]!();
    const next = fakeToolCall({ toolId: 'android_tap', args: { ref: '@x' } });
    await h.awaitScreenAfter(next);
    // The second tap's screen was gone before its turn came: only the third's was read.
    assert.deepEqual(started, ['first', 'third']);
    assert.equal(h.stillShowing(next)?.window.token, 'Window{third}');
  });
});
