/**
 * Typing that never lies (#29): `input text` and the helper's typing exit happily when no
 * field has focus, and the text goes nowhere. Through a real adb server and a simulated phone:
 * with no focused text field, android_type_text answers no_focused_field with its fix, for
 * ASCII and Chinese, on the stock lane and the fast lane, and nothing is typed; once a field
 * has focus the same calls type (or, for Chinese without the ADB Keyboard on the stock lane,
 * say what is missing); a type_text with the field as its element needs no focus beforehand.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { setHelper, waitForHelper } from '../helpers/fast-lane';
import { NOTES_PKG } from '../../main/sim/screen/app-notes';
import type { SimulatedPhone } from '../../main/sim/phone';

const NO_FOCUS_FIX = 'tap a text field first (android_tap), or pass the field to android_type_text as element or ref';
/** Whatever would put text on the phone: `input text`, ADB Keyboard's broadcast, the helper's keys or value. */
const typingArgv = (a: string[]): boolean =>
  (a[0] === 'input' && a[1] === 'text') ||
  (a[0] === 'am' && a.includes('ADB_INPUT_TEXT')) ||
  (a[0] === 'am' && a.includes('ADB_INPUT_B64')) ||
  (a[0] === 'helper' && a[1] === 'POST' && (a[2] === '/keys' || /\/value$/.test(a[2] ?? '')));

for (const lane of ['stock', 'fast lane'] as const) {
  describe(`typing with no focused field (${lane})`, () => {
    let bound: BoundRig;
    let phone: SimulatedPhone;
    const call = (tool: string, args: Json) => invoke(bound.client, bound.channel, tool, args);

    before(async () => {
      bound = await startBoundRig(lane === 'fast lane' ? { fastLane: { pauseMs: 50 } } : {}, {
        withAdbKeyboard: false,
      });
      phone = bound.rig.phones[0]!;
      if (lane === 'fast lane') {
        await setHelper(bound.rig, 'enable');
        await waitForHelper(bound.rig, 'idle');
      }
      result(await call('android_launch_app', { package: NOTES_PKG }));
      await waitUntil(() => phone.foregroundPackage() === NOTES_PKG, 5_000, 'notes in front');
      if (lane === 'fast lane') assert.equal(result(await call('android_ui_tree', {})).lane, 'helper');
    });
    after(() => bound?.stop());

    test('ASCII and Chinese: no_focused_field with the fix, nothing typed, the field unchanged', async () => {
      for (const text of ['hello', '你好']) {
        const from = phone.argvLog.length;
        const ack = await call('android_type_text', { text });
        assert.equal(ack.error?.code, 'no_focused_field', `${text}: ${JSON.stringify(ack.error ?? ack.payload)}`);
        assert.equal((ack.error as { fix?: string }).fix, NO_FOCUS_FIX);
        assert.match(String(ack.error?.message), /^not typed: no text field on the screen has focus/);
        assert.deepEqual(phone.argvLog.slice(from).filter(typingArgv), [], `${text}: nothing typed`);
        assert.equal(phone.typedText('note_text') ?? '', '');
      }
    });

    test('after a tap on the field, the same text is typed into it', async () => {
      result(await call('android_tap', { element: { resource_id: 'note_text' } }));
      const from = phone.argvLog.length;
      const typed = result(await call('android_type_text', { text: 'hello' }));
      // The filter above sees typing on this lane (so its silence there means something).
      assert.ok(phone.argvLog.slice(from).some(typingArgv), JSON.stringify(phone.argvLog.slice(from)));
      assert.equal(typed.status, 'typed');
      assert.equal(typed.focus_checked, undefined, 'the focus was checked');
      assert.equal(phone.typedText('note_text'), 'hello');
      const chinese = await call('android_type_text', { text: '你好' });
      if (lane === 'fast lane') {
        assert.equal(result(chinese).lane, 'helper');
        assert.equal(phone.typedText('note_text'), 'hello你好');
      } else {
        // The stock lane needs the ADB Keyboard for it; that, not focus, is what it says.
        assert.equal(chinese.error?.code, 'unicode_input_unavailable', JSON.stringify(chinese.error));
      }
    });

    test('a field given as the element is tapped first: no focus is needed beforehand', async () => {
      result(await call('android_press_key', { key: 'back' }));
      result(await call('android_launch_app', { package: NOTES_PKG }));
      const typed = result(await call('android_type_text', { text: ' again', element: { resource_id: 'note_text' } }));
      assert.equal(typed.status, 'typed');
      assert.match(phone.typedText('note_text') ?? '', / again$/);
    });
  });
}
