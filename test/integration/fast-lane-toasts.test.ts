/**
 * Toasts (#28) through a real adb server and a simulated phone whose helper hears them
 * (appium-uiautomator2-server's NotificationListener, as the sim models it): a toast shown
 * for 2 s after a tap that observes the screen is in that tap's result and android_wait_for
 * finds it; a tap that does not observe carries no toast fields (nothing waits for them); one
 * that comes after the observe read is not in the result but android_wait_for finds it; the
 * journal keeps no toast's text; without the fast lane the results say toasts were not watched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { helperOf, setHelper, waitForHelper } from '../helpers/fast-lane';
import { NOTE_SAVED_TOAST, NOTES_PKG } from '../../main/sim/screen/app-notes';
import type { SimulatedPhone } from '../../main/sim/phone';

const isHelperSource = (a: string[]): boolean => a[0] === 'helper' && a[1] === 'GET' && a[2] === '/source';

describe('fast lane: toasts in results and android_wait_for', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_toast_${name}_${process.pid}_${++n}`;
  const call = async (tool: string, args: Json, name: string): Promise<Json> =>
    result(await invoke(bound.client, bound.channel, tool, args, callId(name)));

  before(async () => {
    bound = await startBoundRig({ fastLane: { pauseMs: 50 } }, { withAdbKeyboard: false });
    phone = bound.rig.phones[0]!;
    await setHelper(bound.rig, 'enable');
    await waitForHelper(bound.rig, 'idle');
    await call('android_launch_app', { package: NOTES_PKG }, 'notes');
    await waitUntil(() => phone.foregroundPackage() === NOTES_PKG, 5_000, 'notes in front');
    assert.equal((await call('android_ui_tree', {}, 'start')).lane, 'helper');
  });
  after(() => bound?.stop());

  test('a toast shown for 2 s after a tap on Save is in the tap’s result when it observes, and android_wait_for finds it', async () => {
    const tapped = await call('android_tap', { element: { resource_id: 'save_button' }, observe: true }, 'save');
    assert.equal(tapped.lane, 'helper');
    assert.equal(tapped.toasts_watched, true, JSON.stringify(tapped));
    assert.deepEqual(
      (tapped.toasts as Json[]).map((t) => t.text),
      [NOTE_SAVED_TOAST],
    );
    assert.match(String((tapped.toasts as Json[])[0]!.at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const waited = await call('android_wait_for', { toast: 'note SAVED', timeout_ms: 5_000 }, 'wait-saved');
    assert.equal(waited.met, true, JSON.stringify(waited));
    assert.equal(waited.condition, 'toast');
    assert.equal((waited.toast as Json).text, NOTE_SAVED_TOAST);
    assert.equal(waited.polls, 1, 'the helper still keeps it (3.5 s)');
  });

  test('the journal keeps no toast’s text, only that toasts were watched', async () => {
    const journal = readFileSync(join(bound.rig.bridge.dataDir, 'tool-calls.jsonl'), 'utf8');
    assert.ok(journal.includes('"toasts_watched":true'), 'the tap is journaled');
    assert.ok(!journal.includes(NOTE_SAVED_TOAST), 'no toast text at rest');
  });

  test('a toast that echoes a lab secret is scrubbed in every answer that shows it, and the journal never holds it', async () => {
    const value = 'Sesame toast 7731';
    const put = await bound.rig.bridge.admin('PUT', '/admin/api/secrets/toast-check', { value });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    try {
      // The app shows what it was given (a login greeting, say), once Save's toast has gone.
      phone.showToast(`Welcome, ${value}`, { durationMs: 3_500 });
      const waited = await call('android_wait_for', { toast: 'welcome', timeout_ms: 10_000 }, 'wait-secret');
      assert.equal((waited.toast as Json).text, 'Welcome, [secret: toast-check]');
      const tapped = await call('android_tap', { element: { resource_id: 'note_text' }, observe: true }, 'secret-echo');
      const shown = JSON.stringify(tapped.toasts);
      assert.ok(!shown.includes(value), shown);
      assert.match(shown, /Welcome, \[secret: toast-check\]/);
      assert.ok(!readFileSync(join(bound.rig.bridge.dataDir, 'tool-calls.jsonl'), 'utf8').includes(value));
    } finally {
      await bound.rig.bridge.admin('DELETE', '/admin/api/secrets/toast-check');
    }
  });

  test('a tap that does not observe carries no toast fields and waits for no read after its action', async () => {
    const tapped = await call('android_tap', { element: { resource_id: 'save_button' } }, 'save-quiet');
    assert.equal(tapped.status, 'tapped', JSON.stringify(tapped));
    assert.deepEqual([tapped.toasts, tapped.toasts_watched, tapped.toasts_note], [undefined, undefined, undefined]);
    // The toast is still there to find.
    const waited = await call('android_wait_for', { toast: NOTE_SAVED_TOAST, timeout_ms: 5_000 }, 'wait-quiet');
    assert.equal(waited.met, true, JSON.stringify(waited));
  });

  test('a toast that comes after the observe read is not in the result; android_wait_for finds it when it shows', async () => {
    // The app shows it when its work is done, after the tap's result has been answered.
    phone.showToast('Upload finished', { delayMs: 2_000 });
    const from = phone.argvLog.length;
    const tapped = await call('android_tap', { element: { resource_id: 'note_text' }, observe: true }, 'field');
    assert.equal(tapped.toasts_watched, true);
    // Toasts the helper still keeps from earlier tests may be listed, marked as seen before this tap.
    assert.ok(
      (tapped.toasts as Json[]).every((t) => t.text !== 'Upload finished' && t.seen_before === true),
      JSON.stringify(tapped.toasts),
    );
    assert.ok(phone.argvLog.slice(from).some(isHelperSource));

    const waited = await call('android_wait_for', { toast: 'upload finished', timeout_ms: 15_000 }, 'wait-upload');
    assert.equal(waited.met, true, JSON.stringify(waited));
    assert.ok((waited.polls as number) > 1, 'it waited for the toast to show');
    assert.equal((waited.toast as Json).text, 'Upload finished');
  });

  test('without the fast lane, results say toasts were not watched, and android_wait_for says so at once', async () => {
    await setHelper(bound.rig, 'disable');
    try {
      assert.equal((await helperOf(bound.rig)).state, 'off');
      const tapped = await call(
        'android_tap',
        { element: { resource_id: 'save_button' }, observe: true },
        'save-stock',
      );
      assert.equal(tapped.lane, 'adb');
      assert.equal(tapped.toasts_watched, false);
      assert.equal(tapped.toasts, undefined);
      assert.match(String(tapped.toasts_note), /appium-uiautomator2-server \(open ports\), which is not running/);
      const waited = await call('android_wait_for', { toast: NOTE_SAVED_TOAST, timeout_ms: 30_000 }, 'wait-stock');
      assert.equal(waited.met, false);
      assert.equal(waited.toasts_watched, false);
      assert.equal(waited.polls, 1, 'not waiting out its timeout');
      const launched = await call('android_launch_app', { package: NOTES_PKG, observe: true }, 'launch-stock');
      assert.equal(launched.toasts_watched, false);
    } finally {
      await setHelper(bound.rig, 'enable');
      await waitForHelper(bound.rig, 'idle');
    }
  });
});
