/**
 * Element refs without a phone: their form, the tags reads get (the same screen keeps its tag,
 * another gets a new one), when a ref holds (the channel's last read, no action since, the
 * same screen when it was checked), how a tool resolves one through targets.ts against a
 * scripted shell, and the argument schemas that accept or refuse one.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compactTree, parseUiXml, type UiNode } from '../../main/core/android/ui-tree';
import { BridgeError } from '../../main/core/errors';
import { formatRef, parseRef, REF_STALE_FIX, RefTags, type RememberedTree } from '../../main/core/tools/element-refs';
import { PhoneMemory } from '../../main/core/tools/phone-memory';
import { freshTree, observeAfter, refsIn, refTarget, resolvePoint } from '../../main/core/tools/targets';
import { TOOLS } from '../../main/core/tools/catalogue';
import type { ToolContext, ToolServices } from '../../main/core/tools/tool-definition';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import { FakeDeviceShell } from '../helpers/fake-device-shell';
import { uiNodeXml } from '../helpers/uiautomator-xml';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

function nodeXml(attrs: Record<string, string>): string {
  return uiNodeXml({ class: 'android.widget.TextView', package: 'com.shop', ...attrs });
}

/** A screen: a title (nothing to act on), a "Pay" button and a "Cancel" button at `payTop`. */
function screenXml(payTop = 800, title = 'Checkout'): string {
  const body = [
    nodeXml({ text: title, bounds: '[40,200][1040,300]' }),
    nodeXml({
      text: 'Pay $25.00',
      'resource-id': 'com.shop:id/pay',
      class: 'android.widget.Button',
      clickable: 'true',
      focusable: 'true',
      bounds: `[40,${payTop}][1040,${payTop + 100}]`,
    }),
    nodeXml({ text: 'Cancel', class: 'android.widget.Button', clickable: 'true', bounds: '[40,1200][1040,1300]' }),
  ].join('');
  const root = `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.shop" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">${body}</node>`;
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${root}</hierarchy>`;
}

function compact(xml: string): UiNode[] {
  return compactTree(parseUiXml(xml), { maxNodes: 3000 }).nodes;
}

/** What the safety gate tells the tool about the call (CallVerdict, as contextFor reads it). */
interface GateView {
  treeRead?: readonly UiNode[] | null;
  held?: boolean;
}

/** A tool's context on one phone over a scripted shell, with the real PhoneMemory behind it (as tool-services.ts wires it). */
function contextOn(
  memory: PhoneMemory,
  shell: FakeDeviceShell,
  gate: GateView = {},
  channelId = 'chan-1',
  deviceId = 'phone-1',
): ToolContext {
  return {
    channelId,
    device: { deviceId } as DeviceRecord,
    shell,
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    progress: () => undefined,
    screenSize: async () => ({ width: 1080, height: 2400 }),
    lastTree: () => memory.lastTree(channelId),
    rememberTree: (nodes, signature, actions) => memory.rememberTree(channelId, deviceId, nodes, signature, actions),
    refs: {
      actions: () => memory.actions(deviceId),
      acted: () => memory.acted(deviceId),
      checkedTree: () => gate.treeRead ?? null,
      heldForApproval: () => gate.held === true,
    },
    services: {} as ToolServices,
  };
}

/** A shell whose screen dump is `xml` (changeable), counting the dumps. */
function phoneShowing(xml: string): { shell: FakeDeviceShell; show(next: string): void } {
  let current = xml;
  const shell = new FakeDeviceShell();
  // A list of answers repeats its last one; a getter keeps the answer current.
  shell.on(['uiautomator', 'dump', '/dev/tty'], {
    get stdout() {
      return `${current}\nUI hierchary dumped to: /dev/tty\n`;
    },
  });
  return { shell, show: (next) => (current = next) };
}

const dumps = (shell: FakeDeviceShell): number => shell.argvs().filter((argv) => argv[0] === 'uiautomator').length;

describe('the form of a ref and the tags of reads', () => {
  test('a ref is @, the read’s tag, the element’s number; anything else is no ref', () => {
    assert.equal(formatRef('kq', 12), '@kq12');
    assert.deepEqual(parseRef('@kq12'), { tag: 'kq', index: 12 });
    assert.deepEqual(parseRef('@a0'), { tag: 'a', index: 0 });
    for (const bad of ['kq12', '@12', '@kq', '@KQ12', '@kq-1', '@kq12 ', 'e12', '@kq123456'])
      assert.equal(parseRef(bad), null, bad);
  });

  test('tags start at a random two-letter tag and never repeat (aa…zz, then three letters)', () => {
    const first = new RefTags(() => 0);
    assert.equal(first.take(), 'aa');
    assert.equal(first.take(), 'ab');
    const last = new RefTags(() => 0.9999);
    assert.equal(last.take(), 'zz');
    assert.equal(last.take(), 'aaa');
    const tags = new RefTags();
    const many = Array.from({ length: 2_000 }, () => tags.take());
    assert.equal(new Set(many).size, many.length);
    assert.ok(many.every((t) => /^[a-z]{2,3}$/.test(t)));
  });

  test('a read of the same screen keeps the tag; another screen, phone or a forgotten channel gets a new one', () => {
    const memory = new PhoneMemory(Date.now);
    const a = memory.rememberTree('chan-1', 'phone-1', compact(screenXml()), 'sig-a', 0);
    const again = memory.rememberTree('chan-1', 'phone-1', compact(screenXml()), 'sig-a', 3);
    assert.equal(again.refs.tag, a.refs.tag, 'same screen, same numbering, same refs');
    assert.equal(again.refs.actions, 3, 'and they hold from this read on');
    const moved = memory.rememberTree('chan-1', 'phone-1', compact(screenXml(900)), 'sig-b', 3);
    assert.notEqual(moved.refs.tag, a.refs.tag);
    const back = memory.rememberTree('chan-1', 'phone-1', compact(screenXml()), 'sig-a', 3);
    assert.notEqual(back.refs.tag, a.refs.tag, 'a tag handed out once is never handed out again');
    assert.notEqual(back.refs.tag, moved.refs.tag);
    const otherPhone = memory.rememberTree('chan-1', 'phone-2', compact(screenXml()), 'sig-a', 0);
    assert.notEqual(otherPhone.refs.tag, back.refs.tag);
    memory.forgetChannel('chan-1');
    assert.equal(memory.lastTree('chan-1'), undefined);
    assert.notEqual(
      memory.rememberTree('chan-1', 'phone-2', compact(screenXml()), 'sig-a', 0).refs.tag,
      otherPhone.refs.tag,
    );
  });
});

describe('when a ref holds (refTarget)', () => {
  const nodes = compact(screenXml());
  const payIndex = nodes.findIndex((n) => n.text === 'Pay $25.00');
  const titleIndex = nodes.findIndex((n) => n.text === 'Checkout');
  const memory = new PhoneMemory(Date.now);
  const tree: RememberedTree = memory.rememberTree('chan-1', 'phone-1', nodes, 'sig', 4);
  const pay = formatRef(tree.refs.tag, payIndex);
  const now = { deviceId: 'phone-1', actions: 4 };

  test('from the channel’s last read with no action since: the element it names', () => {
    assert.equal(refTarget(pay, tree, now).text, 'Pay $25.00');
    assert.equal(
      refTarget(pay, tree, { ...now, checkedKey: tree.refs.key }).text,
      'Pay $25.00',
      'a check that found the same screen',
    );
  });

  test('stale, with the fix: another read’s tag, no read, another phone, an action since, a changed screen', () => {
    const stale =
      (pattern: RegExp) =>
      (e: unknown): boolean =>
        isCode('ref_stale', pattern)(e) && (e as BridgeError).details?.fix === REF_STALE_FIX;
    assert.throws(() => refTarget(formatRef('zzzzz', payIndex), tree, now), stale(/not from this channel's last read/));
    assert.throws(() => refTarget(pay, undefined, now), stale(/not from this channel's last read/));
    assert.throws(
      () => refTarget(pay, tree, { ...now, deviceId: 'phone-2' }),
      stale(/not from this channel's last read/),
    );
    assert.throws(() => refTarget(pay, tree, { ...now, actions: 5 }), stale(/acted on since/));
    assert.throws(() => refTarget(pay, tree, { ...now, checkedKey: 'another-screen' }), stale(/screen changed/));
    assert.throws(
      () => refTarget(pay, tree, { ...now, actions: 5 }),
      /Fix: read the screen again with android_ui_tree; refs expire with any control action/,
    );
  });

  test('a ref of that read naming nothing to act on is element_not_found; a malformed one invalid', () => {
    assert.throws(() => refTarget(formatRef(tree.refs.tag, titleIndex), tree, now), isCode('element_not_found'));
    assert.throws(() => refTarget(formatRef(tree.refs.tag, 999), tree, now), isCode('element_not_found'));
    assert.throws(() => refTarget('pay', tree, now), isCode('invalid_arguments'));
  });

  test('the refs a call names: its own, and its batch steps’', () => {
    assert.deepEqual(refsIn({ ref: '@ab1' }), ['@ab1']);
    assert.deepEqual(refsIn({ x: 1, y: 2 }), []);
    assert.deepEqual(
      refsIn({
        steps: [
          { tool: 'android_tap', arguments: { ref: '@ab1' } },
          { tool: 'android_press_key', arguments: { key: 'back' } },
        ],
      }),
      ['@ab1'],
    );
  });
});

describe('a tool resolving a ref (targets.ts over a scripted shell)', () => {
  test('a read hands out refs; the ref resolves to the element’s centre without reading again', async () => {
    const memory = new PhoneMemory(Date.now);
    const { shell } = phoneShowing(screenXml());
    const ctx = contextOn(memory, shell);
    const read = await freshTree(ctx);
    const pay = read.nodes.find((n) => n.text === 'Pay $25.00')!;
    const point = await resolvePoint(ctx, { ref: formatRef(read.refTag, pay.index) });
    assert.deepEqual([point.x, point.y], pay.center);
    assert.equal(point.element?.resourceId, 'com.shop:id/pay');
    assert.equal(dumps(shell), 1, 'the ref needed no second dump');
  });

  test('after an action the ref is stale; a read of the unchanged screen brings it back, a changed screen does not', async () => {
    const memory = new PhoneMemory(Date.now);
    const phone = phoneShowing(screenXml());
    const ctx = contextOn(memory, phone.shell);
    const read = await freshTree(ctx);
    const ref = formatRef(
      read.refTag,
      read.nodes.findIndex((n) => n.text === 'Pay $25.00'),
    );
    memory.acted('phone-1');
    await assert.rejects(resolvePoint(ctx, { ref }), isCode('ref_stale', /acted on since/));
    const same = await freshTree(ctx);
    assert.equal(same.refTag, read.refTag);
    assert.equal((await resolvePoint(ctx, { ref })).y, 850);
    memory.acted('phone-1');
    phone.show(screenXml(900));
    const changed = await freshTree(ctx);
    assert.notEqual(changed.refTag, read.refTag);
    await assert.rejects(resolvePoint(ctx, { ref }), isCode('ref_stale', /not from this channel's last read/));
  });

  test('an action on the phone from another channel expires this channel’s refs too', async () => {
    const memory = new PhoneMemory(Date.now);
    const { shell } = phoneShowing(screenXml());
    const mine = contextOn(memory, shell, {}, 'chan-1');
    const read = await freshTree(mine);
    const ref = formatRef(read.refTag, 1);
    contextOn(memory, shell, {}, 'chan-2').refs.acted();
    await assert.rejects(resolvePoint(mine, { ref }), isCode('ref_stale'));
  });

  test('a read that started before an action ended never validates a ref', async () => {
    const memory = new PhoneMemory(Date.now);
    const { shell } = phoneShowing(screenXml());
    const ctx = contextOn(memory, shell);
    const reading = freshTree(ctx);
    // The action ends while the tree is being read.
    memory.acted('phone-1');
    const read = await reading;
    await assert.rejects(resolvePoint(ctx, { ref: formatRef(read.refTag, 1) }), isCode('ref_stale', /acted on since/));
  });

  test('the screen after the call’s own action (observe) holds once the pipeline counts that action', async () => {
    const memory = new PhoneMemory(Date.now);
    const { shell } = phoneShowing(screenXml());
    const ctx = contextOn(memory, shell);
    const observed = await observeAfter(ctx, undefined);
    const ui = observed.ui as Array<{ ref?: string; text?: string }>;
    const ref = ui.find((n) => n.text === 'Pay $25.00')?.ref;
    assert.match(String(ref), /^@[a-z]+\d+$/);
    assert.ok(
      ui.every((n) => n.ref !== undefined),
      'every listed element has a ref',
    );
    // The pipeline notes the call's action once it ends.
    memory.acted('phone-1');
    assert.equal((await resolvePoint(ctx, { ref: String(ref) })).y, 850);
  });

  test('checked against the gate’s read: the same screen passes, another is stale and nothing is read again', async () => {
    const memory = new PhoneMemory(Date.now);
    const { shell } = phoneShowing(screenXml());
    const read = await freshTree(contextOn(memory, shell));
    const ref = formatRef(
      read.refTag,
      read.nodes.findIndex((n) => n.text === 'Pay $25.00'),
    );
    const same = contextOn(memory, shell, { treeRead: parseUiXml(screenXml()) });
    assert.equal((await resolvePoint(same, { ref })).y, 850);
    const moved = contextOn(memory, shell, { treeRead: parseUiXml(screenXml(900)) });
    await assert.rejects(resolvePoint(moved, { ref }), isCode('ref_stale', /screen changed/));
    assert.equal(dumps(shell), 1);
  });

  test('after waiting for approval the screen is read again: unchanged keeps the ref, changed refuses it', async () => {
    const memory = new PhoneMemory(Date.now);
    const phone = phoneShowing(screenXml());
    const read = await freshTree(contextOn(memory, phone.shell));
    const ref = formatRef(
      read.refTag,
      read.nodes.findIndex((n) => n.text === 'Pay $25.00'),
    );
    const held = contextOn(memory, phone.shell, { treeRead: parseUiXml(screenXml()), held: true });
    assert.equal((await resolvePoint(held, { ref })).y, 850);
    assert.equal(dumps(phone.shell), 2);
    phone.show(screenXml(900));
    await assert.rejects(resolvePoint(held, { ref }), isCode('ref_stale', /screen changed/));
  });
});

describe('the argument schemas', () => {
  const args = (id: string) => TOOLS.find((t) => t.id === id)!.args;

  test('tap, long press and type_text take a ref; alone, and only in its form', () => {
    assert.ok(args('android_tap').safeParse({ ref: '@kq12' }).success);
    assert.ok(args('android_long_press').safeParse({ ref: '@kq12', duration_ms: 900 }).success);
    assert.ok(args('android_type_text').safeParse({ text: 'hi', ref: '@kq12' }).success);
    assert.ok(!args('android_tap').safeParse({ ref: '@kq12', x: 1, y: 2 }).success, 'a ref with coordinates');
    assert.ok(
      !args('android_long_press').safeParse({ ref: '@kq12', element: { text: 'Pay' } }).success,
      'a ref with a selector',
    );
    assert.ok(!args('android_type_text').safeParse({ text: 'hi', ref: '@kq12', element: { text: 'Name' } }).success);
    assert.ok(!args('android_tap').safeParse({ ref: 'kq12' }).success);
    assert.ok(!args('android_tap').safeParse({ ref: 12 }).success);
    assert.ok(args('android_tap').safeParse({ x: 1, y: 2 }).success, 'coordinates as before');
  });

  test('a batch takes a ref in its first step only (every step acts, and refs expire with any action)', () => {
    const batch = args('android_batch');
    assert.ok(
      batch.safeParse({
        steps: [
          { tool: 'android_tap', arguments: { ref: '@kq12' } },
          { tool: 'android_press_key', arguments: { key: 'back' } },
        ],
      }).success,
    );
    const later = batch.safeParse({
      steps: [
        { tool: 'android_press_key', arguments: { key: 'back' } },
        { tool: 'android_tap', arguments: { ref: '@kq12' } },
      ],
    });
    assert.ok(!later.success);
    assert.match(
      later.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n'),
      /steps\.1\.arguments\.ref: a ref works only in the first step/,
    );
    assert.ok(
      !batch.safeParse({ steps: [{ tool: 'android_tap', arguments: { ref: '@kq12', x: 3, y: 4 } }] }).success,
      'a step’s own schema applies',
    );
  });
});
