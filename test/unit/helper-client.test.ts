/**
 * The fast lane's HTTP client and protocol pieces, against a real TCP server on port 0 that
 * plays the helper (the stream opener connects to it where adb would open `tcp:6790`):
 * answers of each framing, error answers as "not performed", a connection that breaks after the
 * request as `outcome_unknown`, deadlines and aborts; appium's page source read as UiNodes;
 * typing steps; the sparse-tree rule.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BridgeError } from '../../main/core/errors';
import { HelperClient, announcedLength, notPerformed, parseHttpResponse } from '../../main/core/helper/helper-client';
import {
  parseAppiumSource,
  parseInstalledVersion,
  planHelperTyping,
  pointerActions,
  isNoInstrumentation,
} from '../../main/core/helper/helper-protocol';
import { isSparse, treePackage } from '../../main/core/helper/tree-quality';

type Behaviour = (socket: Socket, request: string) => void;

describe('HelperClient over a stream', () => {
  let server: Server;
  let port = 0;
  let behave: Behaviour = () => undefined;
  const sockets = new Set<Socket>();

  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      let request = '';
      socket.on('data', (chunk) => {
        request += chunk.toString('utf8');
        const head = request.indexOf('\r\n\r\n');
        if (head < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(request)?.[1] ?? 0);
        if (Buffer.byteLength(request.slice(head + 4)) >= length) behave(socket, request);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = (refuse = false): HelperClient =>
    new HelperClient({
      openStream: async (service) => {
        assert.equal(service, 'tcp:6790');
        if (refuse) throw new Error('closed');
        const socket = connect(port, '127.0.0.1');
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('error', reject);
        });
        return socket;
      },
    });

  const json =
    (status: number, body: unknown, framing: 'length' | 'chunked' | 'close'): Behaviour =>
    (socket) => {
      const text = Buffer.from(JSON.stringify(body), 'utf8');
      if (framing === 'length')
        socket.end(
          Buffer.concat([
            Buffer.from(
              `HTTP/1.1 ${status} OK\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n\r\n`,
            ),
            text,
          ]),
        );
      else if (framing === 'chunked') {
        const half = Math.floor(text.length / 2);
        socket.write(`HTTP/1.1 ${status} OK\r\nTransfer-Encoding: chunked\r\n\r\n`);
        socket.write(`${half.toString(16)}\r\n`);
        socket.write(Buffer.concat([text.subarray(0, half), Buffer.from('\r\n')]));
        socket.end(
          Buffer.concat([
            Buffer.from(`${(text.length - half).toString(16)}\r\n`),
            text.subarray(half),
            Buffer.from('\r\n0\r\n\r\n'),
          ]),
        );
      } else socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} OK\r\n\r\n`), text]));
    };

  test('reads answers framed by Content-Length, chunked or the end of the stream; sends the JSON body', async () => {
    let seen = '';
    for (const framing of ['length', 'chunked', 'close'] as const) {
      behave = (socket, request) => {
        seen = request;
        json(200, { sessionId: 's1', value: { text: '你好 😀' } }, framing)(socket, request);
      };
      const value = await client().call(
        'POST',
        '/session/s1/keys',
        { text: '你好 😀', replace: false },
        { timeoutMs: 2_000 },
      );
      assert.deepEqual(value, { text: '你好 😀' }, framing);
    }
    assert.match(seen, /^POST \/session\/s1\/keys HTTP\/1\.1\r\n/);
    assert.match(seen, /Connection: close/);
    assert.ok(seen.endsWith(JSON.stringify({ text: '你好 😀', replace: false })));
  });

  test('a large page source arriving in many small pieces is read whole, once', async () => {
    // 4 MiB of XML in 4 KiB writes: the answer must come back intact however it is cut.
    const xml = `<hierarchy>${'<node text="你好 world" bounds="[0,0][1,1]" />'.repeat(90_000)}</hierarchy>`;
    behave = (socket) => {
      const text = Buffer.from(JSON.stringify({ sessionId: 's1', value: xml }), 'utf8');
      const whole = Buffer.concat([
        Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n\r\n`),
        text,
      ]);
      for (let at = 0; at < whole.length; at += 4096) socket.write(whole.subarray(at, at + 4096));
      socket.end();
    };
    const value = await client().call('GET', '/session/s1/source', undefined, { timeoutMs: 10_000 });
    assert.equal(value, xml);
  });

  test('announcedLength: the whole answer’s length once the head names its Content-Length', () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 12\r\n\r\n';
    assert.equal(announcedLength(Buffer.from(head)), head.length + 12);
    assert.equal(announcedLength(Buffer.from('HTTP/1.1 200 OK\r\nContent-Len')), null, 'head not complete');
    assert.equal(
      announcedLength(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n')),
      null,
      'chunked: no length',
    );
    assert.equal(
      announcedLength(Buffer.from('HTTP/1.1 200 OK\r\nX-Content-Length: 9\r\n\r\n')),
      null,
      'another header',
    );
  });

  test('an error answer is helper_unavailable: provably not performed', async () => {
    behave = json(
      404,
      {
        sessionId: null,
        value: { error: 'invalid session id', message: 'The session identified by x is not known', stacktrace: '…' },
      },
      'length',
    );
    const error = await client()
      .call('POST', '/session/x/actions', pointerActions({ x: 1, y: 2 }, null, 0), { timeoutMs: 2_000 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BridgeError);
    assert.equal(error.code, 'helper_unavailable');
    assert.equal(error.details?.helperError, 'invalid session id');
    assert.equal(notPerformed(error), true);
  });

  test('nothing listening is helper_unavailable, before anything was sent', async () => {
    const error = await client(true)
      .call('GET', '/status', undefined, { timeoutMs: 2_000 })
      .catch((e: unknown) => e);
    assert.equal((error as BridgeError).code, 'helper_unavailable');
    assert.equal(notPerformed(error), true);
  });

  test('a connection that breaks after the request, or no answer in time, is outcome_unknown', async () => {
    behave = (socket) => socket.destroy();
    const broken = await client()
      .call('POST', '/session/s1/actions', {}, { timeoutMs: 2_000 })
      .catch((e: unknown) => e);
    assert.equal((broken as BridgeError).code, 'outcome_unknown');
    assert.equal(notPerformed(broken), false);
    behave = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"va');
    const cut = await client()
      .call('POST', '/session/s1/actions', {}, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    assert.equal((cut as BridgeError).code, 'outcome_unknown');
    assert.match((cut as BridgeError).message, /gave no answer within \d+ ms/);
  });

  test('an abort ends the request at once with canceled', async () => {
    behave = () => undefined;
    const controller = new AbortController();
    const pending = client().call('GET', '/session/s1/source', undefined, {
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    setImmediate(() => controller.abort());
    const error = await pending.catch((e: unknown) => e);
    assert.equal((error as BridgeError).code, 'canceled');
  });
});

describe('helper protocol', () => {
  test('parseHttpResponse waits for the whole body', () => {
    assert.equal(parseHttpResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{}'), false), 'incomplete');
    assert.deepEqual(parseHttpResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'), false), {
      status: 200,
      body: Buffer.from('{}'),
    });
    assert.equal(parseHttpResponse(Buffer.from('garbage\r\n\r\n'), true), 'malformed');
  });

  test("appium's page source (elements named by class) becomes the same nodes as a dump", () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">' +
      '<android.widget.FrameLayout index="0" package="com.example.notes" class="android.widget.FrameLayout" text="" bounds="[0,0][1080,2400]" displayed="true">' +
      '<android.widget.EditText index="0" package="com.example.notes" class="android.widget.EditText" text="你好 &amp; 😀" resource-id="com.example.notes:id/note_text" clickable="true" focused="true" password="false" bounds="[0,200][1080,400]" />' +
      '<android.view.View index="1" package="com.example.notes" class="android.view.View" content-desc="Save" clickable="true" bounds="[900,100][1000,180]"></android.view.View>' +
      '</android.widget.FrameLayout></hierarchy>';
    const nodes = parseAppiumSource(xml);
    assert.equal(nodes.length, 3);
    assert.equal(nodes[1]?.text, '你好 & 😀');
    assert.equal(nodes[1]?.resourceId, 'com.example.notes:id/note_text');
    assert.equal(nodes[1]?.focused, true);
    assert.deepEqual(nodes[1]?.center, [540, 300]);
    assert.equal(nodes[2]?.contentDesc, 'Save');
    assert.equal(nodes[2]?.depth, 1);
    assert.equal(treePackage(nodes), 'com.example.notes');
    // Element names as Appium writes them (dots, hyphens, underscores, an inner class's `$`
    // turned into `.`); a tree cut short is still refused, as a dump would be.
    const odd =
      '<hierarchy rotation="0"><com.example.my-view_Outer.Inner class="x" bounds="[0,0][10,10]"><_Custom bounds="[0,0][5,5]"/></com.example.my-view_Outer.Inner></hierarchy>';
    assert.deepEqual(
      parseAppiumSource(odd).map((n) => [n.className, n.depth]),
      [
        ['x', 0],
        ['', 1],
      ],
    );
    assert.throws(
      () => parseAppiumSource(xml.slice(0, xml.length - 40)),
      (e: unknown) => e instanceof BridgeError && e.code === 'command_failed',
    );
    assert.throws(
      () => parseAppiumSource('<hierarchy><android.widget.Button bounds="[0,0][1,1]"></hierarchy>'),
      (e: unknown) => e instanceof BridgeError && e.code === 'command_failed',
    );
  });

  test('typing steps: text runs appended, line breaks and tabs as keys, a trailing backslash-n split', () => {
    assert.deepEqual(planHelperTyping('你好\r\nworld\t!'), [
      { text: '你好' },
      { keycode: 66 },
      { text: 'world' },
      { keycode: 61 },
      { text: '!' },
    ]);
    assert.deepEqual(planHelperTyping('path C:\\n'), [{ text: 'path C:\\' }, { text: 'n' }]);
  });

  test('installed version from dumpsys package; instrumentation refusals recognised', () => {
    const dumpsys =
      'Packages:\n  Package [io.appium.uiautomator2.server] (1a2b3c):\n    versionCode=208 minSdk=21 targetSdk=34\n    versionName=10.6.6\n';
    assert.equal(parseInstalledVersion(dumpsys, 'io.appium.uiautomator2.server'), '10.6.6');
    assert.equal(parseInstalledVersion('', 'io.appium.uiautomator2.server'), null);
    assert.equal(
      isNoInstrumentation('java.lang.SecurityException: Permission Denial: starting instrumentation ComponentInfo{…}'),
      true,
    );
    assert.equal(isNoInstrumentation('\nio.appium.uiautomator2.server.test.AppiumUiAutomator2Server:'), false);
  });

  test('a sparse tree: no text in the app in front, or far less than its last stock tree', () => {
    const node = (pkg: string, text: string) => ({
      index: 0,
      text,
      resourceId: '',
      contentDesc: '',
      className: 'android.view.View',
      package: pkg,
      bounds: [0, 0, 10, 10] as [number, number, number, number],
      center: [5, 5] as [number, number],
      clickable: false,
      longClickable: false,
      scrollable: false,
      focusable: false,
      focused: false,
      checked: false,
      enabled: true,
      password: false,
      selected: false,
      depth: 1,
    });
    const status = node('com.android.systemui', '12:30');
    assert.equal(
      isSparse([status, node('com.example.chat', ''), node('com.example.chat', '')], undefined),
      true,
      'the clock alone is not content',
    );
    const full = [status, ...Array.from({ length: 10 }, (_, i) => node('com.example.chat', `message ${i}`))];
    assert.equal(isSparse(full, undefined), false);
    assert.equal(isSparse(full, { nodes: 10, texts: 10 }), false);
    assert.equal(isSparse(full.slice(0, 4), { nodes: 10, texts: 10 }), true);
    assert.equal(isSparse([], undefined), true);
  });
});
