/**
 * Address ranges (IPv4, IPv6, IPv4-mapped either way), the client address behind trusted
 * proxies only, and the --allow-from gate's once-a-minute refusal log.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { AddressRanges, NetworkAccess, clientAddressOf } from '../../main/core/server/network-access';
import type { Logger } from '../../main/core/logging/logger';

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

function countingLogger(): Logger & { warnings: Array<Record<string, unknown> | undefined> } {
  const warnings: Array<Record<string, unknown> | undefined> = [];
  return {
    warnings,
    debug: () => {},
    info: () => {},
    error: () => {},
    warn: (_m, fields) => void warnings.push(fields),
  };
}

void describe('AddressRanges', () => {
  void test('IPv4, IPv6 and single addresses; mapped IPv6 matches IPv4 ranges and the other way round', () => {
    const ranges = AddressRanges.parse(
      ['10.0.0.0/8', 'fd00::/8', '192.168.1.7', '::ffff:172.16.0.0/108'],
      '--allow-from',
    );
    for (const inside of [
      '10.1.2.3',
      '::ffff:10.200.0.1',
      'fd12:3456::1',
      '192.168.1.7',
      '::ffff:192.168.1.7',
      '172.16.5.5',
      '::FFFF:172.31.255.255',
    ]) {
      assert.ok(ranges.has(inside), inside);
    }
    for (const outside of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '11.0.0.1',
      'fe80::1',
      '192.168.1.8',
      '172.32.0.1',
      '',
      'not-an-ip',
    ]) {
      assert.ok(!ranges.has(outside), outside);
    }
    assert.ok(AddressRanges.parse(['0.0.0.0/0'], 'x').has('8.8.8.8'));
    assert.ok(AddressRanges.parse(['::/0'], 'x').has('2001:db8::1'));
  });

  void test('a bad range is refused with a message naming the flag and the value', () => {
    assert.throws(() => AddressRanges.parse(['10.0.0.0/33'], '--allow-from'), {
      message: '--allow-from: "10.0.0.0/33" has a prefix length outside 0–32',
    });
    assert.throws(() => AddressRanges.parse(['fd00::/129'], '--trust-proxy'), {
      message: '--trust-proxy: "fd00::/129" has a prefix length outside 0–128',
    });
    assert.throws(() => AddressRanges.parse(['lab.example/24'], '--allow-from'), {
      message: '--allow-from: "lab.example/24" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)',
    });
    assert.throws(() => AddressRanges.parse(['10.0.0.0/'], '--allow-from'), /prefix length/);
    assert.throws(() => AddressRanges.parse(['10.0.0.0/8/8'], '--allow-from'), /prefix length/);
  });
});

void describe('NetworkAccess', () => {
  void test('X-Forwarded-For is ignored unless the socket peer is a trusted proxy', () => {
    const untrusting = new NetworkAccess({ logger: countingLogger() });
    assert.equal(untrusting.resolve(request('::ffff:127.0.0.1', '10.9.9.9')), '127.0.0.1');

    const access = new NetworkAccess({
      trustProxy: AddressRanges.parse(['127.0.0.1', '10.0.0.2'], 't'),
      logger: countingLogger(),
    });
    assert.equal(access.resolve(request('127.0.0.1', '203.0.113.9')), '203.0.113.9');
    // A forged left-most entry from the client stops at the first untrusted hop.
    assert.equal(access.resolve(request('127.0.0.1', '10.0.0.99, 198.51.100.4, 10.0.0.2')), '198.51.100.4');
    assert.equal(
      access.resolve(request('192.0.2.1', '10.0.0.99')),
      '192.0.2.1',
      'a peer that is not a trusted proxy cannot claim an address',
    );
    assert.equal(access.resolve(request('127.0.0.1', '[2001:db8::5]:4711')), '2001:db8::5');
    assert.equal(access.resolve(request('127.0.0.1', '198.51.100.4:1234')), '198.51.100.4');
    assert.equal(
      access.resolve(request('127.0.0.1', 'garbage')),
      '127.0.0.1',
      'a malformed entry leaves the proxy as the client',
    );
    assert.equal(access.resolve(request('127.0.0.1')), '127.0.0.1');
    const req = request('127.0.0.1', '203.0.113.9');
    access.resolve(req);
    assert.equal(clientAddressOf(req), '203.0.113.9', 'the resolved address is what the admin gate sees');
  });

  void test('--allow-from admits its ranges only and logs a refused address once per minute', () => {
    let now = 1_000_000;
    const logger = countingLogger();
    const access = new NetworkAccess({
      allowFrom: AddressRanges.parse(['10.0.0.0/8'], '--allow-from'),
      logger,
      clock: () => now,
    });
    assert.equal(access.admits(request('::ffff:10.3.3.3'), '/ws'), true);
    assert.equal(access.admits(request('127.0.0.1'), '/ws'), false);
    assert.equal(access.admits(request('127.0.0.1'), '/health'), false);
    assert.equal(access.admits(request('::1'), '/health'), false);
    assert.equal(logger.warnings.length, 2);
    assert.deepEqual(logger.warnings[0], { client: '127.0.0.1', path: '/ws', allow_from: '10.0.0.0/8' });
    now += 59_999;
    access.admits(request('127.0.0.1'), '/ws');
    assert.equal(logger.warnings.length, 2);
    now += 1;
    access.admits(request('127.0.0.1'), '/ws');
    assert.equal(logger.warnings.length, 3);
    assert.equal(
      new NetworkAccess({ logger }).admits(request('127.0.0.1'), '/ws'),
      true,
      'no --allow-from admits everyone',
    );
  });

  void test('behind a trusted proxy the forwarded client is what --allow-from judges', () => {
    const access = new NetworkAccess({
      allowFrom: AddressRanges.parse(['10.0.0.0/8'], '--allow-from'),
      trustProxy: AddressRanges.parse(['127.0.0.1'], '--trust-proxy'),
      logger: countingLogger(),
    });
    assert.equal(access.admits(request('127.0.0.1', '10.4.4.4'), '/ws'), true);
    assert.equal(access.admits(request('127.0.0.1', '192.0.2.8'), '/ws'), false);
    assert.equal(access.admits(request('127.0.0.1'), '/ws'), false, 'the proxy itself is not in the range');
  });
});
