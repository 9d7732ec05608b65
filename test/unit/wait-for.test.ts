/**
 * android_wait_for (main/core/tools/observation-tools.ts) with scripted lanes: it leaves no
 * abort listener behind on the call's signal between polls (issue #29: one leaked per poll
 * gave a MaxListenersExceededWarning within one wait), it waits for a toast's text through
 * the fast lane's helper, and without the helper it says at once that toasts could not be
 * watched instead of waiting out its timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import type { UiNode } from '../../main/core/android/ui-tree';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import type { DeviceShell } from '../../main/core/devices/device-shell';
import { TOOLS } from '../../main/core/tools/catalogue';
import { PhoneMemory } from '../../main/core/tools/phone-memory';
import type { Lane, SeenToast, ToolContext, ToolLanes } from '../../main/core/tools/tool-definition';

const waitFor = TOOLS.find((t) => t.id === 'android_wait_for')!;

const BUTTON: UiNode = {
  index: 0,
  text: 'Save',
  resourceId: 'com.example.notes:id/save_button',
  contentDesc: '',
  className: 'android.widget.Button',
  package: 'com.example.notes',
  bounds: [700, 900, 1040, 1030],
  center: [870, 965],
  clickable: true,
  longClickable: false,
  scrollable: false,
  focusable: true,
  focused: false,
  checked: false,
  enabled: true,
  password: false,
  selected: false,
  depth: 0,
};

/** Lanes whose tree reads answer from a script (the last answer repeats); input is refused. */
function scriptedLanes(reads: Array<{ lane: Lane; toasts?: SeenToast[] }>): ToolLanes & { reads: number } {
  const refuse = (): never => {
    throw new Error('a wait sends no input');
  };
  const lanes = {
    reads: 0,
    tree: async () => {
      const read = reads[Math.min(lanes.reads, reads.length - 1)]!;
      lanes.reads += 1;
      return { nodes: [BUTTON], lane: read.lane, ...(read.toasts ? { toasts: read.toasts } : {}) };
    },
    tap: refuse,
    longPress: refuse,
    swipe: refuse,
    pressKey: refuse,
    typeText: refuse,
    helperRunning: () => true,
    fastTreeReady: () => true,
    fastTree: async () => null,
    toastMark: () => 0,
    actionMark: () => undefined,
    toastsSince: () => ({ watched: false, toasts: [] }),
    clipboard: async () => null,
  };
  return lanes;
}

function context(
  signal: AbortSignal,
  lanes: ToolLanes | undefined,
  onProgress: () => void = () => undefined,
): ToolContext {
  const memory = new PhoneMemory(Date.now);
  return {
    channelId: 'chan-1',
    device: { deviceId: 'phone-1' } as DeviceRecord,
    shell: {} as DeviceShell,
    signal,
    timeoutMs: 5_000,
    progress: onProgress,
    screenSize: async () => ({ width: 1080, height: 2400 }),
    lastTree: () => memory.lastTree('chan-1'),
    rememberTree: (nodes, signature, actions) => memory.rememberTree('chan-1', 'phone-1', nodes, signature, actions),
    refs: {
      actions: () => memory.actions('phone-1'),
      acted: () => memory.acted('phone-1'),
      checkedTree: () => null,
      heldForApproval: () => false,
    },
    services: {} as ToolContext['services'],
    ...(lanes ? { lanes } : {}),
  };
}

test('a wait leaves no abort listener on the call’s signal between polls, and none after it', async () => {
  const controller = new AbortController();
  const attached: number[] = [];
  const ctx = context(controller.signal, scriptedLanes([{ lane: 'helper' }]), () =>
    attached.push(getEventListeners(controller.signal, 'abort').length),
  );
  const result = await waitFor.run(ctx, waitFor.args.parse({ element: { text: 'Never shown' }, timeout_ms: 800 }));
  assert.equal(result.met, false);
  assert.ok(attached.length >= 3, `polled several times (${attached.length})`);
  assert.deepEqual(
    attached,
    attached.map(() => 0),
    'before each pause, nothing from the earlier pauses is still attached',
  );
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('a Stop during the pause ends the wait at once: canceled', async () => {
  const controller = new AbortController();
  const ctx = context(controller.signal, scriptedLanes([{ lane: 'helper' }]), () => controller.abort());
  const started = Date.now();
  await assert.rejects(
    waitFor.run(ctx, waitFor.args.parse({ element: { text: 'Never shown' }, timeout_ms: 60_000 })),
    (e: unknown) => (e as { code?: string }).code === 'canceled',
  );
  assert.ok(Date.now() - started < 5_000);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('toast: met once a helper read shows a toast containing the text (case-insensitive)', async () => {
  const controller = new AbortController();
  const at = Date.parse('2026-12-05T10:00:00.000Z');
  const lanes = scriptedLanes([
    { lane: 'helper', toasts: [] },
    { lane: 'helper', toasts: [{ text: 'Note saved', at }] },
  ]);
  const result = await waitFor.run(
    context(controller.signal, lanes),
    waitFor.args.parse({ toast: 'note SAVED', timeout_ms: 10_000 }),
  );
  assert.deepEqual(result, {
    met: true,
    condition: 'toast',
    elapsed_ms: result.elapsed_ms,
    polls: 2,
    toast: { text: 'Note saved', at: '2026-12-05T10:00:00.000Z' },
    toasts_watched: true,
  });
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('toast without the helper: not watched, said at once (no waiting out the timeout)', async () => {
  const controller = new AbortController();
  const stock = scriptedLanes([{ lane: 'adb' }]);
  const result = await waitFor.run(
    context(controller.signal, stock),
    waitFor.args.parse({ toast: 'Saved', timeout_ms: 60_000 }),
  );
  assert.equal(result.met, false);
  assert.equal(result.toasts_watched, false);
  assert.match(String(result.toasts_note), /appium-uiautomator2-server \(open ports\), which is not running/);
  assert.equal(stock.reads, 1);
  const noLanes = await waitFor.run(
    context(controller.signal, undefined),
    waitFor.args.parse({ toast: 'Saved', timeout_ms: 60_000 }),
  );
  assert.equal(noLanes.toasts_watched, false);
  assert.equal(noLanes.polls, 0);
});

test('toast is given alone', () => {
  assert.equal(waitFor.args.safeParse({ toast: 'Saved', element: { text: 'Save' } }).success, false);
  assert.equal(waitFor.args.safeParse({ toast: 'Saved', condition: 'settled' }).success, false);
  assert.equal(waitFor.args.safeParse({ toast: '' }).success, false);
  assert.equal(waitFor.args.safeParse({ toast: 'Saved', timeout_ms: 2_000 }).success, true);
});
