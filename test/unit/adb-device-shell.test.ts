/**
 * AdbDeviceShell against a scripted ADB server (smart-socket protocol): exit codes from shell
 * protocol v2 with stdout and stderr kept in order, a v2 stream cut before its exit packet is
 * an error, and an older phone that refuses v2 falls back to the legacy shell with an exit
 * marker — remembered, so v2 is not tried again.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import Adb from '@devicefarmer/adbkit';
import {
  AdbDeviceShell,
  MAX_PHONE_OUTPUT_BYTES,
  OutputBudget,
  mapAdbError,
  readAllWithDeadline,
} from '../../main/core/devices/adb-device-shell';
import { BridgeError } from '../../main/core/errors';

type Reply = Buffer | 'fail' | 'cut';

function frame(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'latin1'), body]);
}

function packet(id: number, payload: Buffer | string): Buffer {
  const data = Buffer.from(payload);
  const header = Buffer.alloc(5);
  header[0] = id;
  header.writeUInt32LE(data.length, 1);
  return Buffer.concat([header, data]);
}

/** A scripted ADB server: `host:transport:*` and `host:*` answered, then the device service by `answer`. */
async function scriptedAdb(
  answer: (service: string) => Reply,
): Promise<{ server: Server; port: number; services: string[] }> {
  const services: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let transported = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4) {
        const length = Number.parseInt(buffer.subarray(0, 4).toString('latin1'), 16);
        if (Number.isNaN(length) || buffer.length < 4 + length) return;
        const service = buffer.subarray(4, 4 + length).toString('utf8');
        buffer = buffer.subarray(4 + length);
        if (!transported && service.startsWith('host:transport')) {
          transported = true;
          socket.write('OKAY');
          continue;
        }
        services.push(service);
        const reply = answer(service);
        if (reply === 'fail') return void socket.end(Buffer.concat([Buffer.from('FAIL'), frame('closed')]));
        socket.write('OKAY');
        if (reply === 'cut') return void socket.destroy();
        // Whatever else the client sends now (v2's close-stdin packet) is ignored.
        buffer = Buffer.alloc(0);
        return void socket.end(reply);
      }
    });
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  return { server, port: (server.address() as { port: number }).port, services };
}

function shellOn(port: number): AdbDeviceShell {
  return new AdbDeviceShell(Adb.createClient({ host: '127.0.0.1', port, bin: '/bin/false' }), 'SERIAL1');
}

describe('AdbDeviceShell', () => {
  test('shell v2: exit status from the protocol, stdout and stderr in arrival order, no extra command', async () => {
    const adb = await scriptedAdb((service) =>
      service.startsWith('shell,v2,raw:')
        ? Buffer.concat([
            packet(1, 'Starting: Intent\n'),
            packet(2, 'Error: Activity not started\n'),
            packet(3, Buffer.from([1])),
          ])
        : 'fail',
    );
    const shell = shellOn(adb.port);
    const out = await shell.run(['am', 'start', '-n', "a.b/.C'; reboot"], { timeoutMs: 5_000 });
    assert.equal(out.exitCode, 1);
    assert.equal(out.stdout.toString(), 'Starting: Intent\nError: Activity not started\n');
    assert.deepEqual(adb.services, [`shell,v2,raw:'am' 'start' '-n' 'a.b/.C'\\''; reboot'`]);
  });

  test('a v2 stream cut before its exit packet is an error, never a success', async () => {
    const adb = await scriptedAdb((service) => (service.startsWith('shell,v2,raw:') ? packet(1, 'partial') : 'fail'));
    const shell = shellOn(adb.port);
    await assert.rejects(
      shell.run(['input', 'tap', '1', '2'], { timeoutMs: 5_000 }),
      (error: unknown) => error instanceof BridgeError && error.code !== 'internal_error',
    );
  });

  test('an older phone that refuses v2 gets the legacy shell with an exit marker, and v2 is not tried again', async () => {
    const adb = await scriptedAdb((service) => {
      if (service.startsWith('shell,v2,')) return 'fail';
      const marker = /echo (\S+)\$\?$/.exec(service)?.[1];
      return marker ? Buffer.from(`hello\n${marker}3\n`) : 'fail';
    });
    const shell = shellOn(adb.port);
    const first = await shell.run(['echo', 'hello'], { timeoutMs: 5_000 });
    assert.equal(first.stdout.toString(), 'hello\n');
    assert.equal(first.exitCode, 3);
    const second = await shell.run(['echo', 'hello'], { timeoutMs: 5_000 });
    assert.equal(second.exitCode, 3);
    assert.equal(adb.services.filter((s) => s.startsWith('shell,v2,')).length, 1, JSON.stringify(adb.services));
    assert.equal(adb.services.filter((s) => s.startsWith('shell:')).length, 2);
  });
});

void test('adb errors map to stable codes; a server adbkit could not start is adb_unavailable, not a command failure', () => {
  const cases: Array<[string, string]> = [
    ['connect ECONNREFUSED 127.0.0.1:5037', 'adb_unavailable'],
    ['Command failed: /bin/false -P 40677 start-server\n', 'adb_unavailable'],
    ['Premature end of stream, needed 4 bytes, only 0 read', 'adb_unavailable'],
    ["device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set", 'device_unauthorized'],
    ['device offline', 'device_offline'],
    ["device 'X1' not found", 'device_offline'],
    ['something else entirely', 'command_failed'],
  ];
  for (const [message, code] of cases) assert.equal(mapAdbError(new Error(message), 'X1').code, code, message);
});

describe('what a phone sends is bounded', () => {
  test('output past the cap stops the read with output_too_large and destroys the stream', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x41));
      },
    });
    await assert.rejects(
      readAllWithDeadline(Promise.resolve(endless), { timeoutMs: 5_000 }, 'screencap', 'SERIAL', 1024 * 1024),
      (error: unknown) => {
        assert.ok(error instanceof BridgeError);
        assert.equal(error.code, 'output_too_large');
        assert.match(error.message, /more than 1 MiB for screencap/);
        return true;
      },
    );
    assert.ok(endless.destroyed, 'the stream is closed');
    assert.ok(produced < 4 * 1024 * 1024, `read ${produced} bytes before stopping`);
    const small = Readable.from([Buffer.from('ok')]);
    assert.equal(
      (await readAllWithDeadline(Promise.resolve(small), { timeoutMs: 5_000 }, 'echo', 'SERIAL', 1024)).toString(),
      'ok',
    );
  });
});

describe('what one phone sends is bounded across its commands (#36 point 6)', () => {
  /** A stream that sends `bytes` in 64 KiB chunks, then waits until `release` before it ends. */
  function sender(bytes: number, release: Promise<void>): Readable {
    let sent = 0;
    return new Readable({
      read() {
        if (sent >= bytes) {
          void release.then(() => this.push(null));
          return;
        }
        const size = Math.min(64 * 1024, bytes - sent);
        sent += size;
        this.push(Buffer.alloc(size, 0x42));
      },
    });
  }

  test('reads running together on one phone stop at the phone’s cap, each under its own; the budget is given back', async () => {
    const budget = new OutputBudget(1024 * 1024);
    let open!: () => void;
    const release = new Promise<void>((resolve) => (open = resolve));
    const read = (bytes: number) =>
      readAllWithDeadline(
        Promise.resolve(sender(bytes, release)),
        { timeoutMs: 5_000 },
        'screencap',
        'SERIAL',
        768 * 1024,
        budget,
      );
    // Three reads of 600 KiB each: none passes the per-command cap, together they pass the phone's.
    const outcomes = Promise.allSettled([read(600 * 1024), read(600 * 1024), read(600 * 1024)]);
    // The reads hold what they got until their streams end: once the phone's cap is reached, the next chunk stops one.
    await new Promise((resolve) => setTimeout(resolve, 0));
    open();
    const settled = await outcomes;
    const refused = settled.filter((o) => o.status === 'rejected');
    assert.ok(refused.length >= 1, 'at least one read is stopped');
    for (const o of refused) {
      const error: unknown = o.reason;
      assert.ok(error instanceof BridgeError);
      assert.equal(error.code, 'output_too_large');
      assert.match(error.message, /commands together sent more than 1 MiB at once/);
    }
    assert.ok(
      settled.some((o) => o.status === 'fulfilled'),
      'the phone’s other reads go on',
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(budget.inUse(), 0, 'every read gave its bytes back');
    // Once they ended, a read as large as the cap fits again.
    const again = await readAllWithDeadline(
      Promise.resolve(sender(700 * 1024, Promise.resolve())),
      { timeoutMs: 5_000 },
      'pull',
      'SERIAL',
      768 * 1024,
      budget,
    );
    assert.equal(again.length, 700 * 1024);
  });

  test('each phone has its own budget of MAX_PHONE_OUTPUT_BYTES', () => {
    assert.equal(new OutputBudget().maxBytes, MAX_PHONE_OUTPUT_BYTES);
    assert.equal(MAX_PHONE_OUTPUT_BYTES, 256 * 1024 * 1024);
  });
});
