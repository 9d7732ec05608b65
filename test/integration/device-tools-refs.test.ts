/**
 * Element refs end to end (issue #28): xAgent client → bridge → real adb server → simulated
 * phone. A ref from android_ui_tree lands on its element's centre; any action since the read,
 * or a screen that changed under it, refuses it with ref_stale and the fix, and the phone's
 * argv log shows nothing was sent; a read of the same screen brings the refs back; refs work
 * in a batch's first step and as type_text's field; the safety gate judges the element a ref
 * names (a ref tap on "Pay" is held for a person).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { answerApproval, pendingApprovals, waitForApproval, reasonWords } from '../helpers/approvals';
import type { XAgentClient } from '../helpers/xagent-client';
import type { SimulatedPhone } from '../../main/sim/phone';

type Result = Record<string, any>;
interface ListedNode {
  ref?: string;
  index: number;
  text?: string;
  resource_id?: string;
  center: [number, number];
}

const REF = /^@[a-z]+\d+$/;
const FIX = 'read the screen again with android_ui_tree; refs expire with any control action';

/** Runs a command line on the simulated phone itself (not through the bridge). */
async function onPhone(phone: SimulatedPhone, line: string): Promise<void> {
  const out = await phone.exec(line, { signal: AbortSignal.timeout(10_000) });
  assert.equal(out.exitCode, 0, `${line}: ${out.stderr.toString()}`);
}

describe('element refs on a simulated phone', () => {
  let bound: BoundRig | undefined;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;

  before(async () => {
    bound = await startBoundRig({ lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 } });
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
  });
  after(() => bound?.stop());

  const call = (toolId: string, args: Record<string, unknown> = {}) => invoke(client, channel, toolId, args);
  const ok = async (toolId: string, args: Record<string, unknown> = {}): Promise<Result> => {
    const ack = await call(toolId, args);
    assert.equal(ack.error, undefined, `${toolId}: ${JSON.stringify(ack.error)}`);
    return ack.payload?.result as Result;
  };
  const tree = async (): Promise<ListedNode[]> => (await ok('android_ui_tree')).nodes as ListedNode[];
  const find = (nodes: ListedNode[], text: string): ListedNode => {
    const node = nodes.find((n) => n.text === text);
    assert.ok(node, `no ${text} among ${JSON.stringify(nodes.map((n) => n.text))}`);
    return node;
  };
  const inputs = (): string[][] => phone.argvLog.filter((argv) => argv[0] === 'input');

  test('a ref tap lands on the centre; after a swipe it is refused and nothing is sent; a re-read of the same screen brings it back', async () => {
    await ok('android_launch_app', { package: 'com.example.notes' });
    const nodes = await tree();
    assert.ok(
      nodes.length > 0 && nodes.every((n) => REF.test(String(n.ref))),
      `every actionable node has a ref: ${JSON.stringify(nodes)}`,
    );
    const save = find(nodes, 'Save');
    assert.match(String(save.ref), new RegExp(`${save.index}$`), 'the ref ends with the element’s number');

    await ok('android_swipe', { direction: 'up' });
    phone.clearArgvLog();
    const stale = await call('android_tap', { ref: save.ref });
    assert.equal(stale.error?.code, 'ref_stale');
    assert.equal(
      (stale.error as { fix?: string } | undefined)?.fix,
      FIX,
      'the fix rides as its own field of the wire error',
    );
    assert.match(String(stale.error?.message), /acted on since/);
    assert.deepEqual(phone.argvLog, [], 'nothing reached the phone, not even a screen read');

    // The swipe moved nothing on this screen: a new read finds it, and the same refs hold again.
    const again = find(await tree(), 'Save');
    assert.equal(again.ref, save.ref);
    phone.clearArgvLog();
    const tapped = await ok('android_tap', { ref: save.ref });
    assert.deepEqual([tapped.x, tapped.y], save.center);
    assert.equal(tapped.element?.text, 'Save');
    assert.deepEqual(inputs(), [['input', 'tap', String(save.center[0]), String(save.center[1])]]);

    // The tap itself was an action: the ref it used is spent, coordinates and selectors still work.
    const spent = await call('android_tap', { ref: save.ref });
    assert.equal(spent.error?.code, 'ref_stale');
    await ok('android_tap', { element: { resource_id: 'save_button' } });
    await ok('android_tap', { x: save.center[0], y: save.center[1] });
  });

  test('a screen changed under a read is refused when the gate reads it; the new read’s refs work, the old ones never again', async () => {
    await onPhone(phone, 'monkey -p com.example.list -c android.intent.category.LAUNCHER 1');
    const before = await tree();
    const item3 = find(before, 'Item 3');
    // The list scrolls on the phone itself, not through the bridge.
    await onPhone(phone, 'input swipe 540 1800 540 1000 300');
    phone.clearArgvLog();
    const moved = await call('android_tap', { ref: item3.ref });
    assert.equal(moved.error?.code, 'ref_stale', JSON.stringify(moved));
    assert.match(String(moved.error?.message), /screen changed/);
    assert.deepEqual(inputs(), [], 'no tap reached the phone');

    const after = await tree();
    const first = after.find((n) => n.text?.startsWith('Item '));
    assert.ok(first && first.ref !== item3.ref);
    assert.notEqual(first.ref?.replace(/\d+$/, ''), item3.ref?.replace(/\d+$/, ''), 'another screen, another tag');
    assert.equal((await call('android_tap', { ref: item3.ref })).error?.code, 'ref_stale');
    phone.clearArgvLog();
    await ok('android_tap', { ref: first.ref });
    assert.deepEqual(inputs(), [['input', 'tap', String(first.center[0]), String(first.center[1])]]);
    assert.equal(phone.screenState().activity, 'com.example.list.ItemActivity');
  });

  test('refs in a batch’s first step and as type_text’s field; a ref in a later step is refused before anything runs', async () => {
    await ok('android_launch_app', { package: 'com.example.notes' });
    const field = (await tree()).find((n) => n.resource_id === 'com.example.notes:id/note_text');
    assert.ok(field?.ref);
    phone.clearArgvLog();
    const batch = await ok('android_batch', {
      steps: [
        { tool: 'android_tap', arguments: { ref: field.ref } },
        { tool: 'android_type_text', arguments: { text: 'by ref', clear: true } },
      ],
    });
    assert.equal(batch.status, 'done', JSON.stringify(batch));
    assert.deepEqual(inputs()[0], ['input', 'tap', String(field.center[0]), String(field.center[1])]);
    assert.equal(phone.typedText('note_text'), 'by ref');

    const fresh = (await tree()).find((n) => n.resource_id === 'com.example.notes:id/note_text');
    phone.clearArgvLog();
    const later = await call('android_batch', {
      steps: [
        { tool: 'android_press_key', arguments: { key: 'back' } },
        { tool: 'android_tap', arguments: { ref: fresh?.ref } },
      ],
    });
    assert.equal(later.error?.code, 'invalid_arguments');
    assert.match(String(later.error?.message), /steps\.1\.arguments\.ref: a ref works only in the first step/);
    assert.deepEqual(phone.argvLog, [], 'a batch refused at the edge runs nothing');

    // A stale ref in the first step refuses the whole batch: no step runs.
    await ok('android_press_key', { key: 'tab' });
    phone.clearArgvLog();
    const staleBatch = await call('android_batch', {
      steps: [
        { tool: 'android_tap', arguments: { ref: fresh?.ref } },
        { tool: 'android_press_key', arguments: { key: 'back' } },
      ],
    });
    assert.equal(staleBatch.error?.code, 'ref_stale');
    assert.deepEqual(phone.argvLog, []);

    // type_text's field by ref: tapped first, then typed.
    const again = (await tree()).find((n) => n.resource_id === 'com.example.notes:id/note_text');
    phone.clearArgvLog();
    await ok('android_type_text', { ref: again?.ref, text: ' and more' });
    assert.deepEqual(inputs()[0], ['input', 'tap', String(again?.center[0]), String(again?.center[1])]);
    assert.equal(phone.typedText('note_text'), 'by ref and more');
  });

  test('the safety gate sees the element a ref names: a ref tap on "Pay" is held for a person, and runs once approved', async () => {
    // The wallet is opened on the phone itself (launching it through the bridge asks too).
    await onPhone(phone, 'monkey -p com.example.wallet -c android.intent.category.LAUNCHER 1');
    const pay = (await tree()).find((n) => n.resource_id === 'com.example.wallet:id/pay_button');
    assert.ok(pay?.ref);
    phone.clearArgvLog();
    const tapping = call('android_tap', { ref: pay.ref });
    const approval = await waitForApproval(rig.bridge, 'android_tap');
    assert.match(reasonWords(approval).join(' '), /taps “Pay \$25\.00”/);
    assert.equal((approval.arguments as Result).ref, pay.ref);
    assert.deepEqual(inputs(), [], 'nothing is tapped while the person decides');
    await answerApproval(rig.bridge, approval, 'approve');
    const ack = await tapping;
    assert.equal(ack.error, undefined, JSON.stringify(ack.error));
    // The screen was read again after the wait (unchanged), then the tap landed on Pay.
    assert.deepEqual(inputs(), [['input', 'tap', String(pay.center[0]), String(pay.center[1])]]);
    assert.equal(phone.screenState().activity, 'com.example.wallet.ConfirmPaymentActivity');
    assert.deepEqual(await pendingApprovals(rig.bridge), []);
    await onPhone(phone, 'input keyevent KEYCODE_BACK');
    await onPhone(phone, 'input keyevent KEYCODE_HOME');
  });
});
