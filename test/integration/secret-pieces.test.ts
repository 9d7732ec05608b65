/**
 * A lab secret read back letter by letter (issue #36 point 2), over the real adb server with
 * the simulated Login app: a secret is typed only into a field the phone masks, and where a
 * field shows the value anyway (a person typed it, an app echoes it), what comes back after a
 * Backspace or a character put inside it names the secret instead of all but a letter of it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { pendingApprovals } from '../helpers/approvals';
import { result } from '../helpers/acks';
import { redactLogText } from '../../main/core/tools/log-redaction';

const VALUE = 'Zebra!Quartz-7781';

describe('secrets in pieces', () => {
  let bound: BoundRig;
  let callN = 0;
  const callId = (name: string): string => `call_${name}_${process.pid}_${++callN}`;
  const call = (toolId: string, args: Record<string, unknown>) =>
    invoke(bound.client, bound.channel, toolId, args, callId(toolId));

  before(async () => {
    bound = await startBoundRig();
    const put = await bound.rig.bridge.admin('PUT', '/admin/api/secrets/lab-pass', { value: VALUE });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    result(await call('android_launch_app', { package: 'com.example.login' }));
    await waitUntil(() => bound.rig.phones[0]!.foregroundPackage() === 'com.example.login', 5_000, 'login app');
  });
  after(async () => {
    await bound?.stop();
  });

  test('a secret aimed at a field that shows it is refused with the fix, before anyone is asked', async () => {
    const from = bound.rig.phones[0]!.argvLog.length;
    const ack = await call('android_type_text', { element: { resource_id: 'username' }, secret: 'lab-pass' });
    assert.equal(ack.error?.code, 'secret_field_not_masked', JSON.stringify(ack));
    assert.match(String(ack.error?.message), /Fix: type a secret only into a password field/);
    assert.deepEqual(await pendingApprovals(bound.rig.bridge), [], 'no card was shown for it');
    const inputs = bound.rig.phones[0]!.argvLog.slice(from).filter((a) => a[0] === 'input' || a[0] === 'am');
    assert.deepEqual(inputs, [], 'not even a tap on the field');
    assert.equal(bound.rig.phones[0]!.typedText('username'), '');
  });

  test('after a Backspace, or a character typed inside it, the tree names the secret', async () => {
    // The field holds the value as if a person had typed it.
    result(await call('android_type_text', { element: { resource_id: 'username' }, text: VALUE, clear: true }));
    result(await call('android_press_key', { key: 'delete' }));
    assert.equal(bound.rig.phones[0]!.typedText('username'), VALUE.slice(0, -1));
    const shortened = JSON.stringify(result(await call('android_ui_tree', {})));
    assert.ok(!shortened.includes(VALUE.slice(0, -1)), `all but its last letter came back: ${shortened}`);
    assert.match(shortened, /\[secret: lab-pass\]/);

    result(await call('android_type_text', { element: { resource_id: 'username' }, text: VALUE, clear: true }));
    result(await call('android_press_key', { key: 'dpad_left' }));
    result(await call('android_type_text', { text: '|' }));
    assert.equal(bound.rig.phones[0]!.typedText('username'), `${VALUE.slice(0, -1)}|${VALUE.slice(-1)}`);
    const split = JSON.stringify(result(await call('android_ui_tree', {})));
    assert.ok(!split.includes(VALUE.slice(0, -1)), `the secret came back around a "|": ${split}`);
  });

  test('a keystroke log of every prefix keeps none of its long ones, in any form', () => {
    const secrets = [{ name: 'lab-pass', value: VALUE }];
    const lines = [...VALUE].map((_, i) => `afterTextChanged: ${VALUE.slice(0, i + 1)}`);
    const base64 = Buffer.from(VALUE.slice(3)).toString('base64');
    const out = redactLogText([...lines, `ime commit ${base64}`].join('\n'), { secrets, typed: [] });
    const half = Math.ceil(VALUE.length / 2);
    for (let n = half; n <= VALUE.length; n += 1)
      assert.ok(!out.includes(`: ${VALUE.slice(0, n)}\n`) && !out.endsWith(`: ${VALUE.slice(0, n)}`), out);
    assert.ok(!out.includes(base64), 'a suffix in base64');
  });
});
