// The simulated phone's screen: taps, typing, keys, scrolling, secure windows, pixels and
// the uiautomator dump that has to match what is drawn.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { WALLET_HEADER_RGB, headerProbePoint } from '../../main/sim/screen/colors';
import { boundsOf, center, dump, findNode, newPhone, parseDump, sh } from './phone-test-kit';

const LAUNCH = (pkg: string): string => `monkey -p ${pkg} -c android.intent.category.LAUNCHER 1`;

describe('typing', () => {
  test('tap a field, input text with %s, the field holds the text', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.example.notes'));
    const field = findNode(await dump(phone), (n) => n['resource-id'] === 'com.example.notes:id/note_text');
    assert.equal(field.text, 'Write a note');
    assert.equal(field.class, 'android.widget.EditText');
    const { x, y } = center(field);
    await sh(phone, `input tap ${x} ${y}`);
    await sh(phone, 'input text hello%sworld');
    assert.equal(phone.typedText('com.example.notes:id/note_text'), 'hello world');
    const after = findNode(await dump(phone), (n) => n['resource-id'] === 'com.example.notes:id/note_text');
    assert.deepEqual([after.text, after.focused], ['hello world', 'true']);
    await sh(phone, 'input keyevent KEYCODE_DEL KEYCODE_DEL 67');
    assert.equal(phone.typedText('note_text'), 'hello wo');
  });

  test('ADB Keyboard types any Unicode exactly; the dump escapes it like Android', async () => {
    const phone = newPhone({ withAdbKeyboard: true });
    await sh(phone, LAUNCH('com.example.notes'));
    await sh(phone, 'input tap 540 600');
    const text = '你好 😀 "q" $x';
    const r = await sh(phone, `am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(text, 'utf8').toString('base64')}`);
    assert.equal(
      r.stdout,
      'Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n',
    );
    assert.equal(phone.typedText('note_text'), text);
    const xml = (await sh(phone, 'uiautomator dump /dev/tty')).stdout;
    assert.ok(xml.includes('text="你好 &#128512; &quot;q&quot; $x"'));
  });

  test('without ADB Keyboard the broadcast completes but types nothing', async () => {
    const phone = newPhone();
    await sh(phone, `${LAUNCH('com.example.notes')}; input tap 540 600`);
    const r = await sh(phone, `am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from('hi').toString('base64')}`);
    assert.match(r.stdout, /Broadcast completed: result=0\n$/);
    assert.equal(phone.typedText('note_text'), '');
  });

  test('a long press selects the field text and typing replaces it', async () => {
    const phone = newPhone();
    await sh(phone, `${LAUNCH('com.example.notes')}; input tap 540 600; input text old`);
    await sh(phone, 'input swipe 540 600 540 600 800');
    assert.equal(phone.screenState().allSelected, true);
    assert.equal(phone.screenState().lastGesture?.kind, 'long-press');
    await sh(phone, 'input text new');
    assert.equal(phone.typedText('note_text'), 'new');
  });
});

describe('login', () => {
  test('the password never appears in the dump; ENTER signs in', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.example.login'));
    const nodes = await dump(phone);
    const user = findNode(nodes, (n) => n['resource-id'] === 'com.example.login:id/username');
    const pass = findNode(nodes, (n) => n['resource-id'] === 'com.example.login:id/password');
    assert.equal(pass.password, 'true');
    await sh(phone, `input tap ${center(user).x} ${center(user).y} && input text alice`);
    await sh(phone, `input tap ${center(pass).x} ${center(pass).y} && input text s3cr3t`);
    const xml = (await sh(phone, 'uiautomator dump /dev/tty')).stdout;
    assert.ok(!xml.includes('s3cr3t'));
    assert.equal(
      findNode(parseDump(xml), (n) => n['resource-id'] === 'com.example.login:id/password').text,
      '\u2022'.repeat(6),
    );
    await sh(phone, 'input keyevent KEYCODE_ENTER');
    assert.equal(
      findNode(await dump(phone), (n) => n['resource-id'] === 'com.example.login:id/welcome_text').text,
      'Welcome, alice',
    );
    await sh(phone, 'input keyevent KEYCODE_BACK');
    assert.equal(phone.screenState().screen, 'login');
    await sh(phone, 'input keyevent BACK');
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
  });
});

describe('wallet', () => {
  test('the pay button is where the dump says; the confirmation is FLAG_SECURE and captures black', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.example.wallet'));
    const pay = findNode(await dump(phone), (n) => n['resource-id'] === 'com.example.wallet:id/pay_button');
    assert.equal(pay.text, 'Pay $25.00');
    const b = boundsOf(pay);
    await sh(phone, `input tap ${center(pay).x} ${b.bottom + 2}`);
    assert.equal(phone.screenState().screen, 'home', 'a tap just below the button does nothing');
    await sh(phone, `input tap ${b.left + 1} ${b.top + 1}`);
    assert.deepEqual([phone.screenState().screen, phone.screenState().secure], ['confirm', true]);

    const raw = (await sh(phone, 'screencap')).raw;
    assert.deepEqual(
      [raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8), raw.readUInt32LE(12)],
      [1080, 2400, 1, 1],
    );
    assert.equal(raw.length, 16 + 1080 * 2400 * 4);
    const pixels = raw.subarray(16);
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i] !== 0 || pixels[i + 1] !== 0 || pixels[i + 2] !== 0 || pixels[i + 3] !== 255)
        assert.fail(`pixel ${i / 4} is not opaque black`);
    }
    const confirm = findNode(
      await dump(phone),
      (n) => n.text === 'Confirm payment' && n.class === 'android.widget.Button',
    );
    await sh(phone, `input tap ${center(confirm).x} ${center(confirm).y}`);
    assert.ok((await dump(phone)).some((n) => n.text === 'Payment sent'));
  });

  test('screencap -p is a PNG of the screen size with the wallet header colour', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.example.wallet'));
    const png = (await sh(phone, 'screencap -p')).raw;
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [1080, 2400]);
    const { x, y } = headerProbePoint({ width: 1080, height: 2400, density: 420 });
    const at = (y * info.width + x) * info.channels;
    assert.deepEqual([data[at], data[at + 1], data[at + 2]], [...WALLET_HEADER_RGB]);
  });
});

describe('scrolling', () => {
  test('a swipe scrolls the long list; visible rows change and stay inside the list', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.example.list'));
    const rows = (nodes: Awaited<ReturnType<typeof dump>>) =>
      nodes.filter((n) => n['resource-id'] === 'com.example.list:id/row_title');
    const before = await dump(phone);
    const list = findNode(before, (n) => n['resource-id'] === 'com.example.list:id/list');
    assert.equal(list.scrollable, 'true');
    assert.equal(rows(before)[0]?.text, 'Item 1');
    await sh(phone, 'input swipe 540 1800 540 600 300');
    const after = await dump(phone);
    const first = Number((rows(after)[0]?.text ?? '').replace('Item ', ''));
    assert.ok(first > 1, `first visible row is Item ${first}`);
    const lb = boundsOf(list);
    for (const row of rows(after)) {
      const rb = boundsOf(row);
      assert.ok(rb.top >= lb.top && rb.bottom <= lb.bottom, `${row.text} inside the list`);
    }
    await sh(phone, 'input swipe 540 600 540 1800 300');
    assert.equal(rows(await dump(phone))[0]?.text, 'Item 1');
  });
});

describe('navigation', () => {
  test('HOME, APP_SWITCH and a recents card', async () => {
    const phone = newPhone();
    await sh(phone, LAUNCH('com.android.settings'));
    const security = findNode(await dump(phone), (n) => n.text === 'Security & privacy');
    await sh(phone, `input tap ${center(security).x} ${center(security).y}`);
    assert.ok((await dump(phone)).some((n) => n.text === 'Factory reset'));
    await sh(phone, 'input keyevent KEYCODE_HOME');
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
    await sh(phone, 'input keyevent KEYCODE_APP_SWITCH');
    assert.equal(phone.screenState().screen, 'recents');
    const card = findNode(await dump(phone), (n) => n['content-desc'] === 'Settings');
    await sh(phone, `input tap ${center(card).x} ${center(card).y}`);
    assert.deepEqual(
      [phone.foregroundPackage(), phone.screenState().activity],
      ['com.android.settings', 'com.android.settings.SubSettings'],
    );
  });

  test('a sleeping display captures black and ignores taps until woken', async () => {
    const phone = newPhone();
    const icon = findNode(await dump(phone), (n) => n['content-desc'] === 'Notes');
    await sh(phone, 'input keyevent KEYCODE_SLEEP');
    const raw = (await sh(phone, 'screencap')).raw;
    assert.ok(raw.subarray(16, 16 + 4000).every((v, i) => v === (i % 4 === 3 ? 255 : 0)));
    await sh(phone, `input tap ${center(icon).x} ${center(icon).y}`);
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
    await sh(phone, 'input keyevent KEYCODE_WAKEUP');
    await sh(phone, `input tap ${center(icon).x} ${center(icon).y}`);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
  });

  test('the airplane-mode switch is checkable and follows settings global', async () => {
    const phone = newPhone();
    await sh(phone, 'am start -n com.android.settings/.Settings');
    const network = findNode(await dump(phone), (n) => n.text === 'Network & internet');
    await sh(phone, `input tap ${center(network).x} ${center(network).y}`);
    const toggle = () => dump(phone).then((nodes) => findNode(nodes, (n) => n.class === 'android.widget.Switch'));
    assert.deepEqual([(await toggle()).checkable, (await toggle()).checked], ['true', 'false']);
    const t = await toggle();
    await sh(phone, `input tap ${center(t).x} ${center(t).y}`);
    assert.equal((await sh(phone, 'settings get global airplane_mode_on')).stdout, '1\n');
    await sh(phone, 'settings put global airplane_mode_on 0');
    assert.equal((await toggle()).checked, 'false');
  });

  test('launcher icons launch apps by tap', async () => {
    const phone = newPhone();
    const icon = findNode(await dump(phone), (n) => n['content-desc'] === 'Wallet');
    await sh(phone, `input tap ${center(icon).x} ${center(icon).y}`);
    assert.equal(phone.foregroundPackage(), 'com.example.wallet');
  });
});

describe('uiautomator dump', () => {
  test('the document has the real header, attribute order and root node', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'uiautomator dump /dev/tty');
    assert.ok(
      r.stdout.startsWith(
        `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.apps.nexuslauncher" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">`,
      ),
    );
    assert.ok(r.stdout.endsWith('</hierarchy>UI hierchary dumped to: /dev/tty\n'));
  });

  test('default file, and failNextUiDump fails once like a real phone', async () => {
    const phone = newPhone();
    assert.equal((await sh(phone, 'uiautomator dump')).stdout, 'UI hierchary dumped to: /sdcard/window_dump.xml\n');
    assert.ok((await sh(phone, 'cat /sdcard/window_dump.xml')).stdout.startsWith('<?xml'));
    await sh(phone, 'rm /sdcard/window_dump.xml');
    phone.failNextUiDump();
    const failed = await sh(phone, 'uiautomator dump');
    assert.deepEqual([failed.stdout, failed.stderr], ['', 'ERROR: could not get idle state.\n']);
    assert.equal(phone.fs.stat('/sdcard/window_dump.xml'), undefined);
    assert.equal((await sh(phone, 'uiautomator dump')).stdout, 'UI hierchary dumped to: /sdcard/window_dump.xml\n');
  });
});

describe('rendering cost', () => {
  test('an unchanged screen is rendered once; a change renders again', async () => {
    // A fixed clock: the status bar time is part of the frame.
    const phone = newPhone({ clock: () => Date.UTC(2024, 4, 1, 9, 30) });
    await sh(phone, LAUNCH('com.example.notes'));
    await sh(phone, 'screencap -p');
    const rendered = phone.renderCount();
    await sh(phone, 'screencap -p; screencap; screencap -p /sdcard/s.png');
    assert.equal(phone.renderCount(), rendered);
    await sh(phone, 'input tap 540 600');
    await sh(phone, 'screencap');
    assert.equal(phone.renderCount(), rendered + 1);
  });
});
