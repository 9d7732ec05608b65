// The simulated adbd at the wire level, driven by a raw adb host: message framing, handshake,
// auth, flow control, services, and how malformed input is contained. No adb server needed.
import { once } from 'node:events';
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  A_AUTH,
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION,
  A_VERSION_MIN,
  A_WRTE,
  ADB_AUTH_RSAPUBLICKEY,
  ADB_AUTH_SIGNATURE,
  ADB_AUTH_TOKEN,
  AdbMessageParser,
  AdbProtocolError,
  DEVICE_MAX_PAYLOAD,
  HEADER_LENGTH,
  encodeMessage,
  payloadChecksum,
} from '../../main/sim/adb-protocol';
import type { AdbMessage } from '../../main/sim/adb-protocol';
import { AdbdServer } from '../../main/sim/adbd-server';
import {
  SHELL_EXIT,
  SHELL_STDERR,
  SHELL_STDOUT,
  encodeShellPacket,
  parseShellService,
} from '../../main/sim/adbd-services';
import { FakePhone, bigPattern } from '../helpers/fake-phone';
import { RawAdbHost } from '../helpers/raw-adb-host';

/** Safety net for awaited events: a broken simulator fails the test instead of hanging it. */
const wait = (): { signal: AbortSignal } => ({ signal: AbortSignal.timeout(10_000) });

function decodeShellPackets(data: Buffer): Array<{ id: number; data: Buffer }> {
  const out: Array<{ id: number; data: Buffer }> = [];
  let offset = 0;
  while (offset < data.length) {
    const length = data.readUInt32LE(offset + 1);
    out.push({ id: data.readUInt8(offset), data: data.subarray(offset + 5, offset + 5 + length) });
    offset += 5 + length;
  }
  return out;
}

void describe('adb message framing', () => {
  void test('messages survive any split or merge of the TCP byte stream', () => {
    const message = fc.record({
      command: fc.constantFrom(A_CNXN, A_OPEN, A_OKAY, A_WRTE, A_CLSE, A_AUTH),
      arg0: fc.nat(),
      arg1: fc.nat(),
      data: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.boolean(),
        (messages, cuts, checksum) => {
          const bytes = Buffer.concat(messages.map((m) => encodeMessage(m, checksum)));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const parser = new AdbMessageParser();
          const got: AdbMessage[] = [];
          let last = 0;
          for (const point of [...points, bytes.length]) {
            got.push(...parser.push(bytes.subarray(last, point)));
            last = point;
          }
          // fast-check builds prototype-less records; compare plain copies.
          assert.deepEqual(
            got,
            messages.map((m) => ({ ...m })),
          );
        },
      ),
    );
  });

  void test('header layout: little endian, sum-of-bytes checksum, magic = command ^ 0xffffffff', () => {
    const bytes = encodeMessage({ command: A_WRTE, arg0: 1, arg1: 2, data: Buffer.from([1, 2, 250]) }, true);
    assert.equal(bytes.length, HEADER_LENGTH + 3);
    assert.equal(bytes.toString('latin1', 0, 4), 'WRTE');
    assert.equal(bytes.readUInt32LE(12), 3);
    assert.equal(bytes.readUInt32LE(16), 253);
    assert.equal(bytes.readUInt32LE(20), (A_WRTE ^ 0xffffffff) >>> 0);
    assert.equal(
      encodeMessage({ command: A_WRTE, arg0: 1, arg1: 2, data: Buffer.from([1]) }, false).readUInt32LE(16),
      0,
    );
    assert.equal(payloadChecksum(Buffer.alloc(0)), 0);
  });

  void test('rejects bad magic, unknown commands, absurd lengths and wrong checksums; accepts checksum 0', () => {
    const good = encodeMessage({ command: A_OKAY, arg0: 1, arg1: 2, data: Buffer.from('abc') }, true);
    const badMagic = Buffer.from(good);
    badMagic.writeUInt32LE(0, 20);
    assert.throws(() => new AdbMessageParser().push(badMagic), AdbProtocolError);

    const unknown = Buffer.from(good);
    unknown.writeUInt32LE(0x58585858, 0);
    unknown.writeUInt32LE((0x58585858 ^ 0xffffffff) >>> 0, 20);
    assert.throws(() => new AdbMessageParser().push(unknown), /unknown command/);

    const huge = Buffer.from(good.subarray(0, HEADER_LENGTH));
    huge.writeUInt32LE(0x7fffffff, 12);
    assert.throws(() => new AdbMessageParser().push(huge), /exceeds/);

    const badSum = Buffer.from(good);
    badSum.writeUInt32LE(1, 16);
    assert.throws(() => new AdbMessageParser().push(badSum), /checksum/);

    const zeroSum = Buffer.from(good);
    zeroSum.writeUInt32LE(0, 16);
    assert.equal(new AdbMessageParser().push(zeroSum).length, 1);
  });

  void test('shell service names select raw v1, v2, raw or pty', () => {
    assert.deepEqual(parseShellService('shell:echo a:b'), { protocol: 'raw-v1', pty: false, command: 'echo a:b' });
    assert.deepEqual(parseShellService('shell,v2,raw:ls'), { protocol: 'v2', pty: false, command: 'ls' });
    assert.deepEqual(parseShellService('shell,v2,TERM=xterm,pty:ls'), { protocol: 'v2', pty: true, command: 'ls' });
    assert.deepEqual(parseShellService('shell,v2:'), { protocol: 'v2', pty: true, command: '' });
    assert.equal(parseShellService('exec:ls'), undefined);
  });
});

void describe('simulated adbd over TCP', () => {
  let phone: FakePhone;
  let server: AdbdServer;
  const hosts: RawAdbHost[] = [];

  async function onlineHost(maxPayload?: number, version?: number): Promise<RawAdbHost> {
    const host = await RawAdbHost.connect(server.port);
    hosts.push(host);
    const reply = await host.handshake({ maxPayload, version });
    assert.equal(reply.command, A_CNXN);
    return host;
  }

  before(async () => {
    phone = new FakePhone({ model: 'Wire_Model' });
    server = await AdbdServer.start({ phone });
  });
  after(async () => {
    for (const host of hosts) host.close();
    await server.close();
  });

  void test('CNXN reply: version, max payload and a banner with identity and implemented features', async () => {
    const host = await RawAdbHost.connect(server.port);
    hosts.push(host);
    const reply = await host.handshake();
    assert.equal(reply.command, A_CNXN);
    assert.equal(reply.arg0, A_VERSION);
    assert.equal(reply.arg1, DEVICE_MAX_PAYLOAD);
    const banner = reply.data.toString();
    assert.match(
      banner,
      /^device::ro\.product\.name=fake_product;ro\.product\.model=Wire_Model;ro\.product\.device=fakedevice;features=/,
    );
    const features = banner.slice(banner.indexOf('features=') + 9).split(',');
    for (const feature of ['shell_v2', 'cmd', 'stat_v2', 'ls_v2', 'fixed_push_mkdir'])
      assert.ok(features.includes(feature), feature);
    assert.ok(!features.includes('sendrecv_v2'), 'must not advertise what it does not speak');
  });

  void test('checksums are sent to an old-version host and omitted for a new one', async () => {
    const oldHost = await onlineHost(4096, A_VERSION_MIN);
    assert.equal((await oldHost.run('shell:echo sum')).toString(), 'sum\n');
    const oldWrite = oldHost.wireHeaders().find((h) => h.command === A_WRTE);
    assert.equal(oldWrite?.checksum, payloadChecksum(Buffer.from('sum\n')));

    const newHost = await onlineHost();
    assert.equal((await newHost.run('shell:echo zero')).toString(), 'zero\n');
    const headers = newHost.wireHeaders();
    // The CNXN itself carries a checksum: the host checks it before it knows our version.
    assert.notEqual(headers.find((h) => h.command === A_CNXN)?.checksum, 0);
    assert.equal(headers.find((h) => h.command === A_WRTE)?.checksum, 0);
  });

  void test('flow control: payloads within the host max, one WRTE in flight until OKAY', async () => {
    const host = await onlineHost(4096);
    const stream = await host.open('exec:big 100000');
    if (stream === 'refused') assert.fail('refused');
    let writes = 0;
    const data = await host.readToEnd(stream, async (m) => {
      assert.ok(m.data.length <= 4096, `WRTE of ${m.data.length} bytes`);
      if (writes++ < 3) {
        // Give the device a full round trip on another stream to misbehave, then look.
        assert.equal((await host.run('shell:echo ping')).toString(), 'ping\n');
        assert.equal(host.pending((x) => x.command === A_WRTE && x.arg1 === stream.localId).length, 0);
      }
    });
    assert.ok(writes >= 25);
    assert.ok(data.equals(bigPattern(100000)));
  });

  void test('many concurrent streams on one connection each get their own bytes', async () => {
    const host = await onlineHost(8192);
    const sizes = Array.from({ length: 24 }, (_, i) => 1000 + i * 7919);
    const outputs = await Promise.all(sizes.map((size) => host.run(`exec:big ${size}`)));
    outputs.forEach((out, i) => assert.ok(out.equals(bigPattern(sizes[i] ?? 0)), `stream ${i}`));
  });

  void test('shell v2: stdout, stderr and exit code packets; pty turns LF into CRLF', async () => {
    const host = await onlineHost();
    const packets = decodeShellPackets(await host.run('shell,v2,raw:fail-stderr oh no'));
    assert.deepEqual(
      packets.map((p) => [p.id, p.data.toString()]),
      [
        [SHELL_STDERR, 'oh no\n'],
        [SHELL_EXIT, '\x03'],
      ],
    );
    const pty = decodeShellPackets(await host.run('shell,v2,pty:echo a'));
    assert.deepEqual(
      pty.map((p) => [p.id, p.data.toString('latin1')]),
      [
        [SHELL_STDOUT, 'a\r\n'],
        [SHELL_EXIT, '\x00'],
      ],
    );
    // Raw v1 shell: stdout then stderr bytes, no framing.
    assert.equal(
      (await host.run('shell:nosuchcmd')).toString(),
      '/system/bin/sh: nosuchcmd: inaccessible or not found\n',
    );
  });

  void test('shell v2 accepts stdin, close-stdin and window-size packets from the host', async () => {
    const host = await onlineHost();
    const started = once(phone.events, 'exec-start', wait());
    const stream = await host.open('shell,v2,raw:sleep-forever');
    if (stream === 'refused') assert.fail('refused');
    await started;
    const input = Buffer.concat([
      encodeShellPacket(0, Buffer.from('typed\n')),
      encodeShellPacket(5, Buffer.from('24x80,0x0\0')),
      encodeShellPacket(4, Buffer.alloc(0)),
    ]);
    host.send(A_WRTE, stream.localId, stream.remoteId, input);
    const ack = await host.next((m) => m.command === A_OKAY && m.arg1 === stream.localId);
    assert.equal(ack.arg0, stream.remoteId);
    const ended = once(phone.events, 'exec-end', wait());
    host.send(A_CLSE, stream.localId, stream.remoteId);
    await ended;
  });

  void test('unknown services are refused with CLSE and the connection stays usable', async () => {
    const host = await onlineHost();
    assert.equal(await host.open('reboot:'), 'refused');
    assert.equal(await host.open('framebuffer:'), 'refused');
    assert.equal((await host.run('shell:echo still')).toString(), 'still\n');
  });

  void test('closing the stream aborts a hung command', async () => {
    const host = await onlineHost();
    const started = once(phone.events, 'exec-start', wait());
    const stream = await host.open('exec:sleep-forever');
    if (stream === 'refused') assert.fail('refused');
    await started;
    const ended = once(phone.events, 'exec-end', wait());
    host.send(A_CLSE, stream.localId, stream.remoteId);
    await ended;
  });

  void test('losing the connection aborts a hung command and frees it', async () => {
    const host = await onlineHost();
    const started = once(phone.events, 'exec-start', wait());
    assert.notEqual(await host.open('shell:sleep-forever'), 'refused');
    await started;
    const ended = once(phone.events, 'exec-end', wait());
    host.close();
    await ended;
  });

  void test('malformed input closes only that connection', async () => {
    const bystander = await onlineHost();
    const cases: Array<(h: RawAdbHost) => void> = [
      (h) => h.sendRaw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')),
      (h) => {
        const absurd = encodeMessage({ command: A_WRTE, arg0: 1, arg1: 1, data: Buffer.alloc(0) }, false);
        absurd.writeUInt32LE(64 * 1024 * 1024, 12);
        h.sendRaw(absurd);
      },
      (h) => h.send(A_OKAY, 5, 4242),
      (h) => h.send(A_WRTE, 5, 0, 'x'),
      (h) => h.send(A_OPEN, 0, 0, 'shell:echo\0'),
    ];
    for (const inject of cases) {
      const host = await onlineHost();
      inject(host);
      await host.closed;
    }
    // Before the handshake, anything but CNXN is garbage too.
    const early = await RawAdbHost.connect(server.port);
    hosts.push(early);
    early.send(A_OPEN, 1, 0, 'shell:echo\0');
    await early.closed;

    assert.equal((await bystander.run('shell:echo alive')).toString(), 'alive\n');
    const fresh = await onlineHost();
    assert.equal((await fresh.run('shell:echo fresh')).toString(), 'fresh\n');
  });

  void test('dropNextStreamMidway sends part of the output, then drops the connection', async () => {
    const host = await onlineHost();
    server.dropNextStreamMidway();
    const stream = await host.open('exec:big 10000');
    if (stream === 'refused') assert.fail('refused');
    const write = await host.next((m) => m.command === A_WRTE);
    assert.ok(write.data.length > 0 && write.data.length < 10000);
    await host.closed;
    // Only one stream is cut: the next connection works normally.
    const next = await onlineHost();
    assert.ok((await next.run('exec:big 10000')).equals(bigPattern(10000)));
  });
});

void describe('authorization', () => {
  void test('AUTH TOKEN instead of CNXN; signatures rejected; waits after the public key until authorize()', async (t) => {
    const server = await AdbdServer.start({ phone: new FakePhone(), unauthorized: true });
    t.after(() => server.close());
    const host = await RawAdbHost.connect(server.port);
    t.after(() => host.close());
    const token = await host.handshake();
    assert.equal(token.command, A_AUTH);
    assert.equal(token.arg0, ADB_AUTH_TOKEN);
    assert.equal(token.data.length, 20);

    host.send(A_AUTH, ADB_AUTH_SIGNATURE, 0, Buffer.alloc(256, 7), true);
    const retry = await host.next();
    assert.equal(retry.command, A_AUTH);
    assert.equal(retry.arg0, ADB_AUTH_TOKEN);
    assert.notDeepEqual(retry.data, token.data);

    const prompt = once(server, 'auth-prompt', wait());
    host.send(A_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, 'QAAAAFAKEKEY= user@host\0', true);
    const [key] = (await prompt) as [Buffer];
    assert.equal(key.toString(), 'QAAAAFAKEKEY= user@host\0');
    assert.equal(server.offeredPublicKeys.length, 1);
    assert.equal(server.onlineConnectionCount, 0);

    server.authorize();
    // The very next thing the host hears is CNXN: nothing was sent while "the dialog" was up.
    const cnxn = await host.next();
    assert.equal(cnxn.command, A_CNXN);
    assert.equal((await host.run('shell:echo ok')).toString(), 'ok\n');
  });
});
