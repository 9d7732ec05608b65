// hostConnect sends one `host:connect` at a time to an adb server: adb 1.0.41 crashes
// (SIGSEGV/SIGABRT) when it serves several at once. A fake smart-socket server counts how
// many connect requests it holds at the same moment.
import { EventEmitter, once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostConnect, type AdbServerAddress } from '../../main/sim/adb-host-client';

interface FakeAdb {
  address: AdbServerAddress;
  /** Most `host:connect` requests in flight at once. */
  maxInFlight(): number;
  /** Targets in the order the server received them. */
  received: string[];
  /** Emits 'request' (target) as each connect request arrives. */
  events: EventEmitter;
  close(): Promise<void>;
}

function reply(socket: Socket, message: string): void {
  const body = Buffer.from(message, 'utf8');
  socket.end(Buffer.concat([Buffer.from(`OKAY${body.length.toString(16).padStart(4, '0')}`, 'latin1'), body]));
}

/** Answers every `host:connect:X` after `answerMs` ("connected to X"), or never for targets in `silent`. */
async function startFakeAdb(answerMs: number, silent: ReadonlySet<string> = new Set()): Promise<FakeAdb> {
  let inFlight = 0;
  let max = 0;
  const received: string[] = [];
  const events = new EventEmitter();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buffered = '';
    let counted = false;
    const done = (): void => {
      if (counted) inFlight--;
      counted = false;
    };
    socket.on('close', () => {
      sockets.delete(socket);
      done();
    });
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const length = Number.parseInt(buffered.slice(0, 4), 16);
      if (buffered.length < 4 + length) return;
      const target = buffered.slice(4, 4 + length).replace(/^host:connect:/, '');
      received.push(target);
      counted = true;
      max = Math.max(max, ++inFlight);
      events.emit('request', target);
      if (silent.has(target)) return;
      setTimeout(() => {
        done();
        reply(socket, `connected to ${target}`);
      }, answerMs);
    });
  });
  server.listen({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    address: { host: '127.0.0.1', port },
    maxInFlight: () => max,
    received,
    events,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

void describe('hostConnect', () => {
  void test('sends concurrent connects to one adb server one at a time, in call order', async (t) => {
    const adb = await startFakeAdb(20);
    t.after(() => adb.close());
    const targets = Array.from({ length: 8 }, (_, i) => `127.0.0.1:${40000 + i}`);

    const answers = await Promise.all(targets.map((target) => hostConnect(adb.address, target)));

    assert.deepEqual(
      answers,
      targets.map((target) => `connected to ${target}`),
    );
    assert.equal(adb.maxInFlight(), 1);
    assert.deepEqual(adb.received, targets);
  });

  void test('different adb servers are not held up by each other', async (t) => {
    const hung = await startFakeAdb(20, new Set(['127.0.0.1:1']));
    const other = await startFakeAdb(20);
    t.after(() => other.close());

    let hungSettled = false;
    const waiting = hostConnect(hung.address, '127.0.0.1:1', { timeoutMs: 10_000 }).finally(() => {
      hungSettled = true;
    });
    assert.equal(await hostConnect(other.address, '127.0.0.1:2'), 'connected to 127.0.0.1:2');
    assert.equal(hungSettled, false, 'the other server answered while the first connect was still in flight');
    await hung.close();
    await assert.rejects(waiting);
  });

  void test('a call still waiting for its turn at its deadline fails, and a later one still waits for the connect in flight', async (t) => {
    const adb = await startFakeAdb(20, new Set(['127.0.0.1:1']));
    t.after(() => adb.close());

    const stuckArrived = once(adb.events, 'request', { signal: AbortSignal.timeout(5_000) });
    const stuck = hostConnect(adb.address, '127.0.0.1:1', { timeoutMs: 2_000 });
    await stuckArrived;
    const impatient = hostConnect(adb.address, '127.0.0.1:2', { timeoutMs: 100 });
    const patient = hostConnect(adb.address, '127.0.0.1:3', { timeoutMs: 5_000 });

    await assert.rejects(impatient, /adb connect 127\.0\.0\.1:2: timed out waiting for an earlier connect to finish/);
    // The impatient call gave up, but the stuck connect is still in flight: nobody may pass it.
    assert.deepEqual(adb.received, ['127.0.0.1:1']);
    await assert.rejects(stuck, /adb server call timed out after \d+ ms/);
    assert.equal(await patient, 'connected to 127.0.0.1:3');
    assert.deepEqual(adb.received, ['127.0.0.1:1', '127.0.0.1:3']);
    assert.equal(adb.maxInFlight(), 1);
  });
});
