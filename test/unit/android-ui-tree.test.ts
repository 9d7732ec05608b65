import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compactTree,
  decodeXmlEntities,
  dumpUiXml,
  extractHierarchyXml,
  findElement,
  findElements,
  parseUiXml,
  screenSignature,
} from '../../main/core/android/ui-tree';
import { BridgeError } from '../../main/core/errors';
import { androidFixture, FakeDeviceShell } from '../helpers/fake-device-shell';
import { uiNodeXml } from '../helpers/uiautomator-xml';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

const dumpOutput = androidFixture('uiautomator-login-android14.txt');
const loginXml = extractHierarchyXml(dumpOutput) ?? '';

const nodeXml = uiNodeXml;

function hierarchy(body: string): string {
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${body}</hierarchy>`;
}

void describe('extractHierarchyXml', () => {
  void test('strips the trailing "UI hierchary dumped to" line and leading noise', () => {
    assert.ok(loginXml.startsWith("<?xml version='1.0'"));
    assert.ok(loginXml.endsWith('</hierarchy>'));
    assert.ok(!loginXml.includes('dumped to'));
    assert.equal(
      extractHierarchyXml(`WARNING: linker: noise\n${hierarchy('')}\nUI hierchary dumped to: /dev/tty\n`),
      hierarchy(''),
    );
    assert.equal(extractHierarchyXml('ERROR: could not get idle state.\n'), null);
    assert.equal(extractHierarchyXml(`<?xml version='1.0' ?><hierarchy rotation="0"><node`), null);
  });
});

void describe('parseUiXml', () => {
  const nodes = parseUiXml(loginXml);

  void test('reads every node in document order with depth, bounds and center', () => {
    assert.equal(nodes.length, 16);
    assert.deepEqual(
      nodes.map((n) => n.depth),
      [0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6, 1],
    );
    const email = nodes.find((n) => n.resourceId === 'com.example.shop:id/email');
    assert.ok(email);
    assert.deepEqual(email.bounds, [63, 380, 1017, 506]);
    assert.deepEqual(email.center, [540, 443]);
    assert.equal(email.text, 'alice@example.com');
    assert.equal(email.className, 'android.widget.EditText');
    assert.equal(email.package, 'com.example.shop');
    assert.deepEqual(
      [
        email.clickable,
        email.longClickable,
        email.focusable,
        email.focused,
        email.scrollable,
        email.enabled,
        email.selected,
        email.checked,
      ],
      [true, true, true, true, false, true, false, false],
    );
    assert.equal(nodes.find((n) => n.resourceId.endsWith('remember'))?.checked, true);
  });

  void test('decodes entities in attributes', () => {
    assert.equal(nodes.find((n) => n.resourceId.endsWith('title'))?.text, "Sign in to Tom & Jerry's Shop");
    assert.equal(nodes.find((n) => n.resourceId.endsWith('notice'))?.text, 'Line one\nLine two 😀');
    assert.ok(nodes.some((n) => n.contentDesc === 'Help <beta>'));
    assert.equal(
      decodeXmlEntities('&quot;a&quot; &amp;amp; &#65;&#x42; &bogus; &#x110000;'),
      '"a" &amp; AB &bogus; &#x110000;',
    );
    assert.equal(
      decodeXmlEntities('&constructor; &toString; &__proto__; & x; a&b'),
      '&constructor; &toString; &__proto__; & x; a&b',
    );
    assert.equal(decodeXmlEntities('&#55357;&#56832;'), '😀', 'surrogate halves written separately');
  });

  void test('password fields never expose their text', () => {
    const password = nodes.find((n) => n.resourceId.endsWith('password'));
    assert.equal(password?.password, true);
    assert.equal(password?.text, '');
    assert.ok(!nodes.some((n) => n.text.includes('hunter2')));
  });

  void test('malformed or truncated dumps are command_failed', () => {
    for (const bad of [
      '',
      'ERROR: could not get idle state.',
      loginXml.slice(0, Math.floor(loginXml.length / 2)),
      hierarchy(nodeXml({}) + '</node>'),
      hierarchy(`<node text="unterminated />`),
      hierarchy('<node text=unquoted />'),
      hierarchy('<foo />'),
      `<node ${'a="b"'} />`,
    ]) {
      assert.throws(() => parseUiXml(bad), isCode('command_failed'), JSON.stringify(bad.slice(0, 60)));
    }
  });

  void test('property: any truncation either parses or fails with command_failed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: loginXml.length }), (cut) => {
        try {
          parseUiXml(loginXml.slice(0, cut));
        } catch (e) {
          assert.ok(e instanceof BridgeError && e.code === 'command_failed');
        }
      }),
      { numRuns: 500 },
    );
  });

  void test('a 20 000-node tree parses whole, in document order, with depths and bounds', () => {
    const rows: string[] = [];
    for (let i = 0; i < 4_000; i++) {
      const y = (i % 20) * 100;
      const leaves = [0, 1, 2, 3]
        .map((j) =>
          nodeXml({
            index: String(j),
            text: `Item ${i}.${j} &amp; more`,
            'resource-id': `com.example:id/cell_${j}`,
            clickable: j === 0 ? 'true' : 'false',
            bounds: `[${j * 270},${y}][${j * 270 + 270},${y + 100}]`,
          }),
        )
        .join('');
      rows.push(
        nodeXml(
          { index: String(i), class: 'android.widget.LinearLayout', bounds: `[0,${y}][1080,${y + 100}]` },
          leaves,
        ),
      );
    }
    const xml = hierarchy(rows.join(''));
    // How fast is measured by `npm run bench` (UI tree rows), not here: a timed unit test
    // fails by chance on a busy machine.
    const parsed = parseUiXml(xml);
    assert.equal(parsed.length, 20_000);
    assert.equal(parsed[1]?.text, 'Item 0.0 & more');
    assert.equal(parsed[0]?.depth, 0);
    assert.equal(parsed[1]?.depth, 1);
    assert.deepEqual(parsed[19_999]?.bounds, [810, 1900, 1080, 2000]);
  });
});

void describe('compactTree', () => {
  const nodes = parseUiXml(loginXml);

  void test('drops empty containers and zero-size nodes, renumbers, and recomputes depth', () => {
    const tree = compactTree(nodes);
    assert.deepEqual(
      tree.nodes.map((n) => [n.index, n.depth, n.resourceId.replace(/^.*id\//, '') || n.contentDesc]),
      [
        [0, 0, 'content'],
        [1, 1, 'title'],
        [2, 1, 'email'],
        [3, 1, 'password'],
        [4, 1, 'remember'],
        [5, 1, 'sign_in'],
        [6, 1, 'Help <beta>'],
        [7, 1, 'notice'],
        [8, 1, 'list'],
        [9, 2, 'forgot'],
        [10, 0, 'status_bar'],
      ],
    );
    assert.equal(tree.total, 11);
    assert.equal(tree.truncated, false);
    assert.equal(nodes[0]?.index, 0, 'input nodes are not modified');
    assert.equal(nodes[4]?.index, 4);
  });

  void test('interactiveOnly keeps what can be acted on; maxNodes truncates', () => {
    const interactive = compactTree(nodes, { interactiveOnly: true });
    assert.deepEqual(
      interactive.nodes.map((n) => n.resourceId.replace(/^.*id\//, '') || n.contentDesc),
      ['email', 'password', 'remember', 'sign_in', 'Help <beta>', 'list', 'forgot'],
    );
    const capped = compactTree(nodes, { maxNodes: 3 });
    assert.equal(capped.nodes.length, 3);
    assert.equal(capped.total, 11);
    assert.equal(capped.truncated, true);
    assert.throws(() => compactTree(nodes, { maxNodes: 0 }), isCode('invalid_arguments'));
  });
});

void describe('findElements / findElement', () => {
  const { nodes } = compactTree(parseUiXml(loginXml));

  void test('matches by text (exact), textContains (case-insensitive), resourceId, contentDesc, index', () => {
    assert.equal(findElement(nodes, { text: 'SIGN IN' }).resourceId, 'com.example.shop:id/sign_in');
    assert.equal(findElements(nodes, { text: 'sign in' }).length, 0, 'text is case-sensitive');
    assert.deepEqual(
      findElements(nodes, { textContains: 'sign in' }).map((n) => n.index),
      [1, 5],
    );
    assert.equal(findElement(nodes, { resourceId: 'com.example.shop:id/email' }).index, 2);
    assert.equal(findElement(nodes, { resourceId: 'email' }).index, 2, 'bare id name');
    assert.equal(findElement(nodes, { contentDesc: 'Help <beta>' }).center[0], 981);
    assert.equal(findElement(nodes, { index: 9 }).text, 'Forgot password?');
    assert.equal(findElements(nodes, { textContains: 'sign', index: 5 }).length, 1, 'criteria combine');
  });

  void test('no match is element_not_found naming the selector; an empty selector is invalid', () => {
    assert.throws(
      () => findElement(nodes, { text: 'Log out', resourceId: 'logout' }),
      isCode('element_not_found', /text="Log out", resourceId="logout"/),
    );
    assert.throws(() => findElement(nodes, {}), isCode('invalid_arguments'));
    assert.throws(() => findElement(nodes, { index: -1 }), isCode('invalid_arguments'));
  });
});

void describe('screenSignature', () => {
  void test('is stable for the same screen and changes when content changes', () => {
    const a = screenSignature(parseUiXml(loginXml));
    const b = screenSignature(parseUiXml(loginXml));
    assert.equal(a, b);
    assert.match(a, /^[0-9a-f]{16}$/);
    const changed = screenSignature(parseUiXml(loginXml.replace('alice@example.com', 'alice@example.org')));
    assert.notEqual(changed, a);
    const moved = screenSignature(parseUiXml(loginXml.replace('[63,860][1017,986]', '[63,861][1017,986]')));
    assert.notEqual(moved, a);
  });
});

void describe('dumpUiXml', () => {
  void test('uiautomator dump /dev/tty, trailing line stripped', async () => {
    const shell = new FakeDeviceShell().on(['uiautomator', 'dump'], dumpOutput);
    assert.equal(await dumpUiXml(shell), loginXml);
    assert.deepEqual(shell.argvs(), [['uiautomator', 'dump', '/dev/tty']]);
  });

  void test('retries once after "could not get idle state"', async () => {
    const shell = new FakeDeviceShell().on(['uiautomator', 'dump'], 'ERROR: could not get idle state.\n', dumpOutput);
    assert.equal(await dumpUiXml(shell, { compressed: true }), loginXml);
    assert.deepEqual(shell.argvs(), [
      ['uiautomator', 'dump', '--compressed', '/dev/tty'],
      ['uiautomator', 'dump', '--compressed', '/dev/tty'],
    ]);
  });

  void test('falls back to a file when /dev/tty gives no XML, and remembers that for this phone', async () => {
    const shell = new FakeDeviceShell()
      .on(['uiautomator', 'dump', '/dev/tty'], 'ERROR: /dev/tty: No such device or address\n')
      .on(['uiautomator', 'dump', '/sdcard/window_dump.xml'], 'UI hierchary dumped to: /sdcard/window_dump.xml\n')
      .on(['cat', '/sdcard/window_dump.xml'], loginXml)
      .on(['rm', '-f'], '');
    assert.equal(await dumpUiXml(shell), loginXml);
    assert.deepEqual(shell.argvs(), [
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/sdcard/window_dump.xml'],
      ['cat', '/sdcard/window_dump.xml'],
      ['rm', '-f', '/sdcard/window_dump.xml'],
    ]);
    assert.equal(await dumpUiXml(shell), loginXml);
    assert.deepEqual(
      shell.argvs()[5],
      ['uiautomator', 'dump', '/sdcard/window_dump.xml'],
      'second dump goes straight to the file',
    );
  });

  void test('"could not get idle state" twice is screen_unreadable with its fix, after two dumps and no file', async () => {
    const shell = new FakeDeviceShell().on(['uiautomator'], 'ERROR: could not get idle state.\n').on(['rm'], '');
    await assert.rejects(
      dumpUiXml(shell),
      isCode('screen_unreadable', /could not get idle state.*Fix: stop the animation or video/),
    );
    assert.deepEqual(shell.argvs(), [
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/dev/tty'],
    ]);
  });

  void test('"null root node" twice and an empty hierarchy twice are screen_unreadable with their fixes', async () => {
    const nullRoot = new FakeDeviceShell().on(
      ['uiautomator'],
      'ERROR: null root node returned by UiTestAutomationBridge.\n',
    );
    await assert.rejects(
      dumpUiXml(nullRoot),
      isCode('screen_unreadable', /null root node.*Fix: wake and unlock the phone/),
    );
    assert.equal(nullRoot.argvs().length, 2);
    const empty = new FakeDeviceShell().on(
      ['uiautomator'],
      `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0" />UI hierchary dumped to: /dev/tty\n`,
    );
    await assert.rejects(
      dumpUiXml(empty),
      isCode('screen_unreadable', /empty hierarchy.*Fix: try again once the app has drawn/),
    );
    assert.equal(empty.argvs().length, 2);
  });

  void test('a dump reported written that cannot be read back is screen_unreadable, and the file is removed', async () => {
    const shell = new FakeDeviceShell()
      .on(['uiautomator', 'dump', '/dev/tty'], 'UI hierchary dumped to: /dev/tty\n')
      .on(['uiautomator', 'dump', '/sdcard/window_dump.xml'], 'UI hierchary dumped to: /sdcard/window_dump.xml\n')
      .on(['cat'], { stdout: 'cat: /sdcard/window_dump.xml: No such file or directory\n', exitCode: 1 })
      .on(['rm'], '');
    await assert.rejects(
      dumpUiXml(shell),
      isCode('screen_unreadable', /could not be read back.*Fix: try again; if it keeps failing, restart the phone/),
    );
    assert.deepEqual(shell.argvs().at(-1), ['rm', '-f', '/sdcard/window_dump.xml']);
    assert.equal(shell.argvs().filter((a) => a[0] === 'uiautomator').length, 3);
  });
});
