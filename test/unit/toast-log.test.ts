/**
 * Toasts out of the helper's page source (main/core/helper/toast-log.ts): its toast elements
 * are taken out of the tree (they have no bounds and are not on-screen elements one could
 * tap), and the log answers which toasts reads begun since an action reported that the last
 * read before it did not already show — the helper keeps only the last toast, for 3.5 s, and
 * never says when it came.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAppiumSource } from '../../main/core/helper/helper-protocol';
import { HELPER_TOAST_RETENTION_MS, splitToasts, ToastLog } from '../../main/core/helper/toast-log';

/** A page source in the helper's wire form: one window root, then the toast elements addToastMsg adds. */
const SOURCE = [
  "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
  '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">',
  '  <android.widget.FrameLayout index="0" package="com.example.notes" class="android.widget.FrameLayout" text="" bounds="[0,0][1080,2400]" displayed="true">',
  '    <android.widget.Button index="0" package="com.example.notes" class="android.widget.Button" text="Save" clickable="true" bounds="[700,900][1040,1030]" displayed="true" />',
  '    <android.widget.Toast index="1" package="com.example.notes" class="android.widget.Toast" text="a view of that class inside the app" bounds="[0,0][10,10]" displayed="true" />',
  '  </android.widget.FrameLayout>',
  '  <android.widget.Toast index="1" package="com.android.settings" class="android.widget.Toast" text="Note saved" displayed="true" />',
  '</hierarchy>',
].join('\r\n');

test('toast elements under <hierarchy> leave the tree and become toasts; the rest is numbered again', () => {
  const parsed = parseAppiumSource(SOURCE);
  assert.equal(parsed.length, 4);
  const { nodes, toasts } = splitToasts(parsed);
  assert.deepEqual(toasts, ['Note saved']);
  assert.deepEqual(
    nodes.map((n) => [n.index, n.text]),
    [
      [0, ''],
      [1, 'Save'],
      [2, 'a view of that class inside the app'],
    ],
    'a view named Toast inside a window stays an element',
  );
});

/** A log with a clock the test moves. */
function log(): { toasts: ToastLog; at: (ms: number) => void; read: (texts: string[]) => void } {
  let now = 1_000_000;
  const toasts = new ToastLog(() => now);
  return {
    toasts,
    at: (ms) => {
      now = 1_000_000 + ms;
    },
    read: (texts) => {
      toasts.record('p', toasts.begin('p'), texts);
    },
  };
}

test('a toast first seen after the action is the action’s; one the read before it showed is marked seen before', () => {
  const { toasts, at, read } = log();
  at(0);
  read(['Welcome back']);
  const from = toasts.mark('p');
  at(1_000);
  const after = toasts.mark('p');
  at(1_150);
  read(['Welcome back']);
  assert.deepEqual(
    toasts.since('p', from, after),
    { watched: true, toasts: [{ text: 'Welcome back', at: 1_001_150, seenBefore: true }] },
    'maybe still the toast from before the action',
  );

  const { toasts: t2, at: at2, read: read2 } = log();
  at2(0);
  read2([]);
  const from2 = t2.mark('p');
  at2(1_150);
  read2(['Note saved']);
  assert.deepEqual(t2.since('p', from2, from2), { watched: true, toasts: [{ text: 'Note saved', at: 1_001_150 }] });
});

test('the same text again after the helper must have forgotten the first is a new toast', () => {
  const { toasts, at, read } = log();
  at(0);
  read(['Saved']);
  const from = toasts.mark('p');
  at(HELPER_TOAST_RETENTION_MS + 1_000);
  read(['Saved']);
  assert.deepEqual(toasts.since('p', from, from).toasts, [
    { text: 'Saved', at: 1_000_000 + HELPER_TOAST_RETENTION_MS + 1_000 },
  ]);
});

test('a read in between that no longer showed it: the text again is a new toast', () => {
  const { toasts, at, read } = log();
  at(0);
  read(['Saved']);
  at(500);
  read(['Deleted']); // the helper keeps only the last toast
  const from = toasts.mark('p');
  at(900);
  read(['Saved']);
  assert.deepEqual(toasts.since('p', from, from).toasts, [{ text: 'Saved', at: 1_000_900 }]);
});

test('a doubtful first sighting gives way to a later read that proves the text came again', () => {
  const { toasts, at, read } = log();
  at(0);
  read(['Added to cart']);
  const from = toasts.mark('p');
  at(1_000);
  read(['Added to cart']);
  assert.equal(toasts.since('p', from, from).toasts[0]?.seenBefore, true);
  at(HELPER_TOAST_RETENTION_MS + 500);
  read(['Added to cart']);
  assert.deepEqual(toasts.since('p', from, from).toasts, [
    { text: 'Added to cart', at: 1_000_000 + HELPER_TOAST_RETENTION_MS + 500 },
  ]);
});

test('watched only once a read begun after the action came back; reads coming back out of order keep their places', () => {
  const { toasts, at } = log();
  const from = toasts.mark('p');
  at(10);
  const early = toasts.begin('p'); // begun during the action
  const readAfter = toasts.mark('p');
  assert.equal(toasts.since('p', from, readAfter).watched, false, 'nothing came back yet');
  at(200);
  const late = toasts.begin('p');
  at(1_100);
  toasts.record('p', late, ['B']);
  toasts.record('p', early, ['A']);
  const report = toasts.since('p', from, readAfter);
  assert.equal(report.watched, true);
  assert.deepEqual(
    report.toasts.map((t) => [t.text, t.at]),
    [
      ['A', 1_000_010],
      ['B', 1_000_200],
    ],
  );
  assert.equal(toasts.since('p', from, toasts.mark('p')).watched, false, 'no read begun after the last mark');
  assert.deepEqual(toasts.since('other', 0, 0), { watched: false, toasts: [] }, 'per phone');
});
