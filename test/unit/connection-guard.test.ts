/**
 * The connection guard's unit of counting (#36 point 4): an IPv6 address counts by its /64, as
 * one host is given a whole /64 and may connect from any address in it. The integration test
 * (test/integration/connection-limits.test.ts) drives the guard through real sockets on IPv4
 * loopback addresses; this machine has one IPv6 address, so the /64 is checked here.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:net';
import { addressGroup, ConnectionGuard, resolveConnectionLimits } from '../../main/core/server/connection-limits';

/** A socket as the guard sees it at accept: a peer, a close event, destroy(). */
class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(
    readonly remoteAddress: string,
    readonly remotePort: number,
  ) {
    super();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    queueMicrotask(() => this.emit('close'));
  }
}

describe('addressGroup', () => {
  test('IPv4 addresses count one by one; IPv6 by their /64, however written', () => {
    assert.equal(addressGroup('10.1.2.3'), '10.1.2.3');
    assert.equal(addressGroup('::ffff:10.1.2.3'), '10.1.2.3');
    const group = addressGroup('2001:db8:1:2::1');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:2', '2001:DB8:1:2::a:b'])
      assert.equal(addressGroup(same), group, same);
    assert.notEqual(addressGroup('2001:db8:1:3::1'), group);
    assert.equal(addressGroup('fd00::2'), 'fd00:0:0:0::/64');
    assert.equal(addressGroup('64:ff9b::1.2.3.4'), '64:ff9b:0:0::/64');
  });
});

describe('ConnectionGuard', () => {
  test('one IPv6 host connecting from many addresses of its /64 holds one address’s share', () => {
    const guard = new ConnectionGuard(resolveConnectionLimits({ maxConnections: 64, maxConnectionsPerAddress: 2 }));
    const server = new EventEmitter();
    guard.attach(server as unknown as Server);
    const sockets = ['fd00::1', 'fd00::2', 'fd00::3:4:5:6'].map((a, i) => new FakeSocket(a, 40_000 + i));
    for (const socket of sockets) server.emit('connection', socket);
    assert.deepEqual(
      sockets.map((s) => s.destroyed),
      [true, false, false],
      'the third from the /64 took the place of its oldest idle one',
    );
    const other = new FakeSocket('fd00:0:0:1::1', 40_010);
    server.emit('connection', other);
    assert.equal(other.destroyed, false, 'another /64 is another client');
    assert.equal(guard.open(), 3);
  });

  test('a connection that showed a key is never closed to make room; with none idle, the newcomer is refused', () => {
    const guard = new ConnectionGuard(resolveConnectionLimits({ maxConnections: 64, maxConnectionsPerAddress: 2 }));
    const server = new EventEmitter();
    guard.attach(server as unknown as Server);
    const first = new FakeSocket('fd00::1', 1);
    const second = new FakeSocket('fd00::2', 2);
    server.emit('connection', first);
    server.emit('connection', second);
    guard.requestStarted(first, true)();
    guard.requestStarted(second, false); // still answering
    const third = new FakeSocket('fd00::3', 3);
    server.emit('connection', third);
    assert.deepEqual([first.destroyed, second.destroyed, third.destroyed], [false, false, true]);
    assert.equal(guard.refused(), 1);
  });
});
