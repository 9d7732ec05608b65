// The resident helper's parts without adb: the APK manifest reader on the real APKs and on
// junk, W3C action chains → gestures, HTTP framing (chunked bodies, keep-alive, malformed
// requests), the page source on a turned phone, the clipboard (and Android 10's rule on who may
// read it), and the usb-phone timings.
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_APK_PATH, TEST_APK_PATH } from 'appium-uiautomator2-server';
import { readApkManifest } from '../../main/sim/helper/apk-manifest';
import { parseActions, ActionsError } from '../../main/sim/helper/w3c-actions';
import type { PhoneByteChannel } from '../../main/sim/phone-device';
import type { SimulatedPhone } from '../../main/sim/phone';
import { newPhone, sh } from './phone-test-kit';

/** An in-memory connection: what the client wrote is read by the server, and back. */
class MemoryChannel implements PhoneByteChannel {
  private readonly abort = new AbortController();
  private readonly incoming: Buffer[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  readonly received: Buffer[] = [];
  private onData: (() => void) | undefined;

  get signal(): AbortSignal {
    return this.abort.signal;
  }
  send(data: string | Buffer, end = false): void {
    this.incoming.push(Buffer.from(data));
    if (end) this.ended = true;
    this.wake?.();
  }
  async readSome(): Promise<Buffer | undefined> {
    while (this.incoming.length === 0) {
      if (this.ended || this.abort.signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.abort.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return Buffer.concat(this.incoming.splice(0));
  }
  write(data: Buffer): Promise<void> {
    this.received.push(data);
    this.onData?.();
    return Promise.resolve();
  }
  close(): void {
    this.abort.abort();
    this.onData?.();
  }
  text(): string {
    return Buffer.concat(this.received).toString('utf8');
  }
  /** Resolves once the answers hold `count` complete responses (by content-length) or the channel closed. */
  async responses(count: number): Promise<string[]> {
    for (;;) {
      const out: string[] = [];
      let rest = this.text();
      for (;;) {
        const head = rest.indexOf('\r\n\r\n');
        if (head < 0) break;
        const length = Number(/content-length: (\d+)/.exec(rest.slice(0, head))?.[1] ?? NaN);
        const bodyStart = head + 4;
        const bytes = Buffer.from(rest.slice(bodyStart), 'utf8');
        if (bytes.length < length) break;
        out.push(rest.slice(0, bodyStart) + bytes.subarray(0, length).toString('utf8'));
        rest = bytes.subarray(length).toString('utf8');
      }
      if (out.length >= count || this.abort.signal.aborted) return out;
      await new Promise<void>((resolve) => {
        this.onData = resolve;
      });
    }
  }
}

async function startedPhone(options: Parameters<typeof newPhone>[0] = {}): Promise<SimulatedPhone> {
  const phone = newPhone(options);
  phone.fs.write('/data/local/tmp/s.apk', readFileSync(SERVER_APK_PATH), 0o100644, 0);
  phone.fs.write('/data/local/tmp/t.apk', readFileSync(TEST_APK_PATH), 0o100644, 0);
  assert.equal(
    (await sh(phone, 'pm install /data/local/tmp/s.apk && pm install /data/local/tmp/t.apk')).stdout,
    'Success\nSuccess\n',
  );
  const ac = new AbortController();
  void phone.exec('am instrument -w io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner', {
    signal: ac.signal,
  });
  await phone.helper.waitForState('running', AbortSignal.timeout(30_000));
  return phone;
}

function connect(phone: SimulatedPhone): MemoryChannel {
  const handler = phone.openTcp?.(6790);
  assert.ok(handler, 'port 6790 listens');
  const channel = new MemoryChannel();
  void handler(channel);
  return channel;
}

const bodyOf = (response: string): { value: unknown; sessionId: string | null } =>
  JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { value: unknown; sessionId: string | null };

void describe('helper parts', () => {
  test('the manifest reader finds package, version and instrumentation in the real APKs; junk is undefined', () => {
    assert.deepEqual(readApkManifest(readFileSync(SERVER_APK_PATH)), {
      package: 'io.appium.uiautomator2.server',
      versionCode: 278,
      versionName: '10.6.6',
      instrumentation: [],
      minSdk: 26,
    });
    assert.deepEqual(readApkManifest(readFileSync(TEST_APK_PATH)), {
      package: 'io.appium.uiautomator2.server.test',
      versionCode: 0,
      versionName: undefined,
      instrumentation: [
        { name: 'androidx.test.runner.AndroidJUnitRunner', targetPackage: 'io.appium.uiautomator2.server' },
      ],
      minSdk: 26,
    });
    assert.equal(readApkManifest(Buffer.from('PK\x03\x04package=com.acme.x')), undefined);
    assert.equal(readApkManifest(readFileSync(SERVER_APK_PATH).subarray(0, 100_000)), undefined);
    assert.equal(readApkManifest(Buffer.alloc(0)), undefined);
  });

  test('W3C pointer chains become taps, long presses, swipes and drags; bad chains are refused', () => {
    const chain = (...actions: unknown[]) => ({
      actions: [{ type: 'pointer', id: 'f', parameters: { pointerType: 'touch' }, actions }],
    });
    const down = { type: 'pointerDown', button: 0 };
    const up = { type: 'pointerUp', button: 0 };
    const move = (x: number, y: number, duration = 0, origin?: string) => ({
      type: 'pointerMove',
      x,
      y,
      duration,
      ...(origin ? { origin } : {}),
    });
    assert.deepEqual(parseActions(chain(move(10, 20), down, { type: 'pause', duration: 100 }, up), 21).gestures, [
      { kind: 'tap', x: 10, y: 20, durationMs: 100 },
    ]);
    assert.deepEqual(parseActions(chain(move(10, 20), down, { type: 'pause', duration: 600 }, up), 21).gestures, [
      { kind: 'long-press', x: 10, y: 20, durationMs: 600 },
    ]);
    assert.deepEqual(parseActions(chain(move(500, 1800), down, move(500, 600, 300), up), 21).gestures, [
      { kind: 'swipe', x: 500, y: 1800, x2: 500, y2: 600, durationMs: 300 },
    ]);
    assert.deepEqual(
      parseActions(chain(move(100, 100), down, { type: 'pause', duration: 800 }, move(0, 400, 200, 'pointer'), up), 21)
        .gestures,
      [{ kind: 'drag', x: 100, y: 100, x2: 100, y2: 500, durationMs: 1000 }],
    );
    assert.equal(parseActions(chain(move(1, 1), down, { type: 'pause', duration: 40 }, up), 21).durationMs, 40);
    assert.throws(() => parseActions({}, 21), ActionsError);
    assert.throws(() => parseActions(chain(up), 21), /pointerUp without a preceding pointerDown/);
    assert.throws(() => parseActions(chain(move(1, 1, 0, 'element-6066')), 21), /element origin/);
    const keys = parseActions(
      {
        actions: [
          {
            type: 'key',
            id: 'k',
            actions: [
              { type: 'keyDown', value: '中' },
              { type: 'keyUp', value: '中' },
              { type: 'keyDown', value: '\uE007' },
            ],
          },
        ],
      },
      21,
    );
    assert.deepEqual(keys.keys, [
      { kind: 'char', text: '中' },
      { kind: 'key', keycode: 66 },
    ]);
  });

  test('HTTP framing: keep-alive, a chunked body, /wd/hub, then a malformed request gets 400 and the connection closes', async () => {
    const phone = await startedPhone();
    const c = connect(phone);
    const caps = JSON.stringify({ capabilities: { firstMatch: [{ 'appium:x': 1 }] } });
    const half = Math.floor(caps.length / 2);
    c.send('GET /wd/hub/status HTTP/1.1\r\nHost: d\r\n\r\n');
    c.send(
      `POST /session HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${half.toString(16)}\r\n${caps.slice(0, half)}\r\n${(caps.length - half).toString(16)}\r\n${caps.slice(half)}\r\n0\r\n\r\n`,
    );
    const [status, session] = await c.responses(2);
    assert.match(
      status ?? '',
      /^HTTP\/1\.1 200 OK\r\nconnection: keep-alive\r\npragma: no-cache\r\ncache-control: no-store\r\ncontent-type: application\/json; charset=utf-8\r\ncontent-length: \d+\r\n\r\n/,
    );
    const s = bodyOf(session ?? '');
    assert.deepEqual((s.value as { capabilities: unknown }).capabilities, { firstMatch: [{ 'appium:x': 1 }] });
    c.send('BROKEN\r\n\r\n');
    const all = await c.responses(3);
    assert.match(all[2] ?? '', /^HTTP\/1\.1 400 Bad Request\r\nconnection: close/);
    assert.ok(c.signal.aborted, 'closed after the 400');
  });

  test('POST /keys with no focused field is 404 no such element; am instrument without -w returns at once, silent', async () => {
    const phone = newPhone();
    phone.fs.write('/data/local/tmp/s.apk', readFileSync(SERVER_APK_PATH), 0o100644, 0);
    phone.fs.write('/data/local/tmp/t.apk', readFileSync(TEST_APK_PATH), 0o100644, 0);
    await sh(phone, 'pm install /data/local/tmp/s.apk; pm install /data/local/tmp/t.apk');
    const started = await sh(
      phone,
      'am instrument io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
    );
    assert.deepEqual([started.stdout, started.stderr, started.exitCode], ['', '', 0]);
    await phone.helper.waitForState('running', AbortSignal.timeout(10_000));
    const c = connect(phone);
    c.send(`POST /session HTTP/1.1\r\ncontent-length: ${'{"capabilities":{}}'.length}\r\n\r\n{"capabilities":{}}`);
    const id = bodyOf((await c.responses(1))[0] ?? '').sessionId ?? '';
    c.send(`POST /session/${id}/keys HTTP/1.1\r\ncontent-length: 12\r\n\r\n{"text":"x"}`);
    const answer = (await c.responses(2))[1] ?? '';
    assert.match(answer, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.equal((bodyOf(answer).value as { error: string }).error, 'no such element');
    await sh(phone, 'am force-stop io.appium.uiautomator2.server.test');
    assert.equal(phone.helper.state(), 'stopped');
  });

  test('clipboard: set_clipboard takes base64 of UTF-8; get_clipboard answers it on Android 9 and "" on Android 14, where the app in front still pastes it', async () => {
    const text = '验证码 123456 ✓';
    const exchange = async (
      sdk: number,
    ): Promise<{ phone: SimulatedPhone; answers: Array<{ status: string; value: unknown }> }> => {
      const phone = await startedPhone({ sdk });
      const c = connect(phone);
      const post = (path: string, body: unknown): void => {
        const json = JSON.stringify(body);
        c.send(`POST ${path} HTTP/1.1\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
      };
      post('/session', { capabilities: {} });
      const id = bodyOf((await c.responses(1))[0] ?? '').sessionId ?? '';
      post(`/session/${id}/appium/device/set_clipboard`, {
        content: Buffer.from(text, 'utf8').toString('base64'),
        contentType: 'plaintext',
        label: 'xAgent',
      });
      post(`/session/${id}/appium/device/get_clipboard`, { contentType: 'plaintext' });
      post(`/session/${id}/appium/device/set_clipboard`, { label: 'x' });
      post(`/session/${id}/appium/device/get_clipboard`, { contentType: 'html' });
      const answers = (await c.responses(5)).slice(1).map((r) => ({ status: r.slice(9, 12), value: bodyOf(r).value }));
      return { phone, answers };
    };
    const old = await exchange(28);
    assert.deepEqual(old.answers.slice(0, 2), [
      { status: '200', value: null },
      { status: '200', value: Buffer.from(text, 'utf8').toString('base64') },
    ]);
    assert.deepEqual([old.phone.clipboard.text(), old.phone.clipboard.label()], [text, 'xAgent']);
    const refused = old.answers
      .slice(2)
      .map((a) => [
        a.status,
        (a.value as { error: string; message: string }).error,
        (a.value as { message: string }).message,
      ]);
    assert.deepEqual(refused, [
      [
        '400',
        'invalid argument',
        "java.lang.IllegalArgumentException: SetClipboardModel: The mandatory field 'content' is not present in JSON",
      ],
      ['400', 'invalid argument', "Only '[PLAINTEXT]' content types are supported. 'PLAINTEXT' is given instead"],
    ]);
    const current = await exchange(34);
    assert.equal(current.phone.clipboard.text(), text, 'set works on Android 10+');
    assert.deepEqual(
      current.answers[1],
      { status: '200', value: '' },
      'the helper is neither in front nor the keyboard: it reads nothing',
    );
    // The app in front may read it: KEYCODE_PASTE in its focused field pastes the clip.
    await sh(current.phone, 'am force-stop io.appium.uiautomator2.server');
    await sh(current.phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    await sh(current.phone, 'input tap 540 700');
    await sh(current.phone, 'input keyevent 279');
    assert.equal(current.phone.typedText('note_text'), text);
  });

  test('on a turned phone the page source says rotation 1 and describes the same nodes as the stock dump', async () => {
    const phone = await startedPhone({ quirks: ['landscape'] });
    const c = connect(phone);
    c.send(
      'POST /session HTTP/1.1\r\ncontent-length: 18\r\n\r\n{"capabilities":{}}'.replace(
        '18',
        String('{"capabilities":{}}'.length),
      ),
    );
    const [created] = await c.responses(1);
    const id = bodyOf(created ?? '').sessionId ?? '';
    c.send(`GET /session/${id}/source HTTP/1.1\r\n\r\n`);
    const xml = bodyOf((await c.responses(2))[1] ?? '').value as string;
    assert.match(xml, /<hierarchy index="0" class="hierarchy" rotation="1" width="2400" height="1080">/);
    await sh(phone, 'am force-stop io.appium.uiautomator2.server');
    const dump = (await sh(phone, 'uiautomator dump /dev/tty')).stdout;
    const pairs = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => `${m[1]}|${m[2]}`);
    assert.deepEqual(
      pairs(xml, / text="([^"]*)"[^>]*? bounds="([^"]*)"/g),
      pairs(dump, / text="([^"]*)"[^>]*? bounds="([^"]*)"/g),
    );
  });

  test('usb-phone timings: a source takes the published 0.9 s, a tap through the helper far less than input tap', async () => {
    const phone = await startedPhone({ profile: 'usb-phone' });
    const c = connect(phone);
    c.send(`POST /session HTTP/1.1\r\ncontent-length: ${'{"capabilities":{}}'.length}\r\n\r\n{"capabilities":{}}`);
    const id = bodyOf((await c.responses(1))[0] ?? '').sessionId ?? '';
    let t = performance.now();
    c.send(`GET /session/${id}/source HTTP/1.1\r\n\r\n`);
    await c.responses(2);
    const sourceMs = performance.now() - t;
    const tap = JSON.stringify({
      actions: [
        {
          type: 'pointer',
          id: 'f',
          actions: [
            { type: 'pointerMove', x: 5, y: 300, duration: 0 },
            { type: 'pointerDown', button: 0 },
            { type: 'pointerUp', button: 0 },
          ],
        },
      ],
    });
    t = performance.now();
    c.send(`POST /session/${id}/actions HTTP/1.1\r\ncontent-length: ${tap.length}\r\n\r\n${tap}`);
    await c.responses(3);
    const tapMs = performance.now() - t;
    assert.ok(sourceMs >= 890, `source ${sourceMs} ms`);
    assert.ok(tapMs >= 5, `tap ${tapMs} ms`);
    // `input tap` on the same profile spends 300 ms before it acts.
    assert.ok(tapMs < 300, `tap ${tapMs} ms`);
    await sh(phone, 'am force-stop io.appium.uiautomator2.server');
  });
});
