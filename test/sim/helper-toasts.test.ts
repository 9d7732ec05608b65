// Toasts on a simulated phone and how its helper reports them, as on a real phone: the
// notification service shows one toast at a time for its duration (2 s short, 3.5 s long);
// appium-uiautomator2-server's NotificationListener hears them only while a session is open
// (or the enableNotificationListener setting says so), keeps the last one's text and forgets
// it 3.5 s after it came; the page source carries it after the window root as
// <android.widget.Toast index package="com.android.settings" class text displayed>. Through
// the real adb server: a tap on Notes' Save shows "Note saved" in the next page source.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SimNotificationListener } from '../../main/sim/helper/notification-listener';
import { NOTE_SAVED_TOAST, NOTES_PKG } from '../../main/sim/screen/app-notes';
import { TOAST_LONG_MS, TOAST_SHORT_MS, ToastQueue } from '../../main/sim/screen/toasts';
import { parseAppiumSource } from '../../main/core/helper/helper-protocol';
import { splitToasts } from '../../main/core/helper/toast-log';
import { centreOf, sourceNodes, startHelperRig, tapActions, type HelperRig, type Instrumentation } from './helper-kit';

void describe('toasts: the queue and the helper’s listener', () => {
  void test('one toast at a time, each for its duration; the listener keeps the last for 3.5 s, only while it listens', () => {
    let now = 1_000_000;
    const clock = (): number => now;
    const queue = new ToastQueue(clock);
    const listener = new SimNotificationListener(queue, clock);
    queue.enqueue({ pkg: 'com.example.notes', text: 'before the session' });
    assert.deepEqual(listener.toastMessage(), [], 'nothing heard while not listening');
    now += TOAST_SHORT_MS;
    listener.start();
    const first = queue.enqueue({ pkg: 'com.example.notes', text: 'Note saved' });
    const second = queue.enqueue({ pkg: 'com.example.notes', text: 'Synced', durationMs: TOAST_LONG_MS });
    assert.equal(second.shownAt, first.hiddenAt, 'the second waits for the first to go');
    assert.deepEqual(listener.toastMessage(), ['Note saved']);
    assert.equal(queue.showing()?.text, 'Note saved');
    now = second.shownAt;
    assert.deepEqual(listener.toastMessage(), ['Synced'], 'the last one replaces what it keeps');
    now = second.shownAt + 3_500;
    assert.deepEqual(listener.toastMessage(), ['Synced'], 'kept 3.5 s');
    now += 1;
    assert.deepEqual(listener.toastMessage(), [], 'forgotten after 3.5 s');
    const late = queue.enqueue({ pkg: 'com.example.notes', text: 'Done', delayMs: 2_000 });
    assert.deepEqual(listener.toastMessage(), [], 'not yet shown');
    now = late.shownAt;
    assert.deepEqual(listener.toastMessage(), ['Done']);
    listener.stop();
    assert.deepEqual(listener.toastMessage(), ['Done'], 'stopping keeps what it heard (until its 3.5 s are over)');
    queue.enqueue({ pkg: 'com.example.notes', text: 'Unheard' });
    now += 2_001;
    assert.deepEqual(listener.toastMessage(), ['Done'], 'a toast shown while stopped is not heard');
    now += 1_500;
    assert.deepEqual(listener.toastMessage(), []);
    assert.throws(
      () => queue.enqueue({ pkg: 'x', text: 'y', durationMs: 0 }),
      /toast duration must be a positive whole number/,
    );
  });
});

void describe('toasts through the helper on a simulated phone and the real adb server', () => {
  let h: HelperRig;
  let instrumentation: Instrumentation | undefined;
  let port: number;
  let id: string;
  const source = async (): Promise<string> => {
    const r = await h.http(port, 'GET', `/session/${id}/source`);
    assert.equal(r.status, 200);
    return r.json.value as string;
  };

  before(async () => {
    h = await startHelperRig();
    await h.installHelper();
    instrumentation = await h.startInstrumentation();
    port = await h.forward();
    await h.waitReady(port);
    const launched = await h.adb('shell', 'monkey', '-p', NOTES_PKG, '-c', 'android.intent.category.LAUNCHER', '1');
    assert.equal(launched.code, 0, launched.stderr);
  });
  after(async () => {
    instrumentation?.child.kill('SIGKILL');
    await h?.close();
  });

  void test('a toast shown before the session is not heard; after it, tapping Save puts "Note saved" in the page source', async () => {
    // 1 ms on screen: the toasts after it are not queued behind it.
    h.phone.showToast('Shown before any session', { durationMs: 1 });
    id = await h.newSession(port);
    assert.ok(!(await source()).includes('android.widget.Toast'), 'not heard before the session');

    const save = sourceNodes(await source()).find((n) => n['resource-id'] === `${NOTES_PKG}:id/save_button`);
    assert.ok(save?.bounds, 'the Save button');
    const at = centreOf(save.bounds);
    const tapped = await h.http(port, 'POST', `/session/${id}/actions`, tapActions(at.x, at.y));
    assert.equal(tapped.status, 200);
    const xml = await source();
    // addToastMsg: after the window root, index = its place among <hierarchy>'s children, only these attributes.
    assert.ok(
      xml.endsWith(
        `\r\n  <android.widget.Toast index="1" package="com.android.settings" class="android.widget.Toast" text="${NOTE_SAVED_TOAST}" displayed="true" />\r\n</hierarchy>`,
      ),
      xml.slice(-300),
    );
    const { nodes, toasts } = splitToasts(parseAppiumSource(xml));
    assert.deepEqual(toasts, [NOTE_SAVED_TOAST]);
    assert.ok(nodes.every((n) => n.className !== 'android.widget.Toast'));
  });

  void test('the enableNotificationListener setting stops and starts the listener, and GetSettings says which', async () => {
    const off = await h.http(port, 'POST', `/session/${id}/appium/settings`, {
      settings: { enableNotificationListener: false },
    });
    assert.equal(off.status, 200);
    const settings = await h.http(port, 'GET', `/session/${id}/appium/settings`);
    assert.equal((settings.json.value as Record<string, unknown>).enableNotificationListener, false);
    h.phone.showToast('Unheard', { durationMs: 1 });
    assert.ok(!(await source()).includes('Unheard'));
    await h.http(port, 'POST', `/session/${id}/appium/settings`, { settings: { enableNotificationListener: true } });
    h.phone.showToast('Heard again', { durationMs: TOAST_LONG_MS });
    await waitForSource((xml) => xml.includes('text="Heard again"'));
  });

  /** The next page sources until one matches (a toast queued behind another shows when that one goes). */
  async function waitForSource(match: (xml: string) => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (match(await source())) return;
      if (Date.now() > deadline) throw new Error('the page source never matched');
    }
  }
});
