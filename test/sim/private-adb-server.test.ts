// The private adb server rig when its port is taken between our pick and adb's bind: adb
// aborts ("could not install *smartsocket* listener: Address already in use") and the rig
// starts again elsewhere; someone else's adb answering on the port is never taken for ours.
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostVersion } from '../../main/sim/adb-host-client';
import { holdsListeningSocket } from '../../main/sim/listening-socket-owner';
import { PrivateAdbServerError, startPrivateAdbServer } from '../../main/sim/private-adb-server';

/** A plain listener on a free port that hangs up on whoever connects (not an adb server). */
async function occupyPort(): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  server.listen({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  return server;
}

function portOf(server: Server): number {
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('not listening');
  return address.port;
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function freePort(): Promise<number> {
  const server = await occupyPort();
  const port = portOf(server);
  await close(server);
  return port;
}

/** A port picker that hands out `first` ports in order, then free ones; counts its calls. */
function picker(first: number[]): { pickPort: () => Promise<number>; picked: number[] } {
  const picked: number[] = [];
  const pickPort = async (): Promise<number> => {
    const next = first[picked.length];
    const port = next ?? (await freePort());
    picked.push(port);
    return port;
  };
  return { pickPort, picked };
}

async function isPortTaken(promise: Promise<unknown>): Promise<PrivateAdbServerError> {
  const error = await promise.then(
    () => assert.fail('expected the start to fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PrivateAdbServerError, String(error));
  assert.equal(error.code, 'port_taken', error.message);
  return error;
}

void describe('a private adb server whose port is taken before adb binds it', () => {
  void test('starts on another port and listens there itself', async (t) => {
    const squatter = await occupyPort();
    t.after(() => close(squatter));
    const taken = portOf(squatter);
    const { pickPort, picked } = picker([taken]);

    const rig = await startPrivateAdbServer({ pickPort });
    t.after(() => rig.stop());

    assert.equal(picked.length, 2, `picked ${picked.join(', ')}`);
    assert.equal(picked[0], taken);
    assert.equal(rig.port, picked[1]);
    assert.ok(rig.running);
    assert.ok((await hostVersion(rig)) > 0);
    if (process.platform === 'linux') assert.equal(await holdsListeningSocket(rig.pid, rig.port), true);
  });

  void test("someone else's adb server on the port is not taken for ours, and our stop() leaves it running", async (t) => {
    const theirs = await startPrivateAdbServer();
    t.after(() => theirs.stop());
    const { pickPort, picked } = picker([theirs.port]);

    const ours = await startPrivateAdbServer({ pickPort });
    assert.notEqual(ours.port, theirs.port);
    assert.deepEqual(picked, [theirs.port, ours.port]);
    await ours.stop();

    assert.ok(theirs.running, theirs.log());
    assert.ok((await hostVersion(theirs)) > 0, 'their server still answers after our stop()');
  });

  void test('when every port it tries is taken, the error says which and why', async (t) => {
    const squatter = await occupyPort();
    t.after(() => close(squatter));
    const taken = portOf(squatter);

    const error = await isPortTaken(startPrivateAdbServer({ pickPort: async () => taken, maxAttempts: 2 }));
    assert.match(
      error.message,
      new RegExp(
        `^adb could not listen on any of 2 port\\(s\\): another process took the port before adb bound it: ${taken} \\(Address already in use\\), ${taken} \\(Address already in use\\)$`,
      ),
    );
  });

  void test('a fixed port that is taken fails at once instead of moving elsewhere', async (t) => {
    const squatter = await occupyPort();
    t.after(() => close(squatter));
    const taken = portOf(squatter);

    const error = await isPortTaken(startPrivateAdbServer({ port: taken }));
    assert.equal(
      error.message,
      `adb could not listen on port ${taken} (Address already in use): another process holds it`,
    );
  });
});

void describe('startPrivateAdbServer options', () => {
  void test('are checked up front with precise messages', async () => {
    const cases: Array<[Parameters<typeof startPrivateAdbServer>[0], string]> = [
      [{ port: 0 }, 'startPrivateAdbServer: port must be an integer 1-65535, got 0'],
      [{ port: 70000 }, 'startPrivateAdbServer: port must be an integer 1-65535, got 70000'],
      [{ timeoutMs: -1 }, 'startPrivateAdbServer: timeoutMs must be a positive number, got -1'],
      [{ maxAttempts: 0 }, 'startPrivateAdbServer: maxAttempts must be a positive integer, got 0'],
      [{ port: 5555, pickPort: async () => 5555 }, 'startPrivateAdbServer: give either port or pickPort, not both'],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(startPrivateAdbServer(options), (error: unknown) => {
        assert.ok(error instanceof PrivateAdbServerError);
        assert.equal(error.code, 'invalid_options');
        assert.equal(error.message, message);
        return true;
      });
    }
  });
});

void describe('holdsListeningSocket', { skip: process.platform !== 'linux' && process.platform !== 'darwin' }, () => {
  void test("tells this process's listener from a port nobody listens on", async (t) => {
    const server = await occupyPort();
    const port = portOf(server);
    t.after(() => close(server));
    assert.equal(await holdsListeningSocket(process.pid, port), true);

    assert.equal(await holdsListeningSocket(process.pid, await freePort()), false);
  });
});
