/**
 * LAN phone addresses (strict, canonical), pairing codes, adb's connect answers, the
 * reconnect backoff and the mDNS service list parser.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLanAddress, parsePairingCode } from '../../main/core/devices/lan-address';
import { backoffDelay, resolveLanOptions } from '../../main/core/devices/lan-devices';
import { interpretConnectReply } from '../../main/core/devices/adb-connect-reply';
import { parseMdnsServices } from '../../main/core/devices/lan-pairing';
import { BridgeError } from '../../main/core/errors';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof BridgeError, `expected a BridgeError, got ${String(error)}`);
    return error.code;
  }
  assert.fail('expected an error');
}

describe('parseLanAddress', () => {
  test('accepts IPv4, host names and IPv6, with the default port 5555', () => {
    assert.deepEqual(parseLanAddress('192.168.1.20'), {
      host: '192.168.1.20',
      port: 5555,
      address: '192.168.1.20:5555',
    });
    assert.deepEqual(parseLanAddress(' 192.168.1.20:37123 '), {
      host: '192.168.1.20',
      port: 37123,
      address: '192.168.1.20:37123',
    });
    assert.equal(parseLanAddress('Pixel-7.Lab.example.').address, 'pixel-7.lab.example:5555');
    assert.equal(parseLanAddress('localhost:1').address, 'localhost:1');
    assert.equal(parseLanAddress('[FD00:0:0::1]:5555').address, '[fd00::1]:5555');
    assert.equal(parseLanAddress('[::1]').address, '[::1]:5555');
    assert.equal(parseLanAddress('fe80::1').address, '[fe80::1]:5555');
    assert.equal(parseLanAddress('1.2.3.4:65535').port, 65535);
  });

  test('one phone, one spelling: equivalent inputs give the same address', () => {
    assert.equal(parseLanAddress('10.0.0.5').address, parseLanAddress('10.0.0.5:5555').address);
    assert.equal(parseLanAddress('[fd00::0001]:5555').address, parseLanAddress('fd00::1').address);
  });

  test('refuses malformed addresses with invalid_address and a message naming the problem', () => {
    const bad = [
      '',
      '   ',
      '256.1.1.1',
      '1.2.3',
      '010.0.0.1',
      '1.2.3.4:0',
      '1.2.3.4:65536',
      '1.2.3.4:',
      '1.2.3.4:+55',
      '1.2.3.4:55a',
      'host name',
      'http://1.2.3.4:5555',
      '1.2.3.4/24',
      'user@host',
      '-bad.example',
      'bad-.example',
      'under_score.example',
      `${'a'.repeat(64)}.example`,
      '[fd00::1',
      '[]:5555',
      '[nonsense]:5555',
      'fe80::1%wlan0',
      '1.2.3.4:5555:6',
      'hôte.example',
      'a;b',
    ];
    for (const input of bad)
      assert.equal(
        codeOf(() => parseLanAddress(input)),
        'invalid_address',
        `accepted ${JSON.stringify(input)}`,
      );
    assert.equal(
      codeOf(() => parseLanAddress(42)),
      'invalid_address',
    );
    assert.equal(
      codeOf(() => parseLanAddress('x'.repeat(400))),
      'invalid_address',
    );
    assert.throws(() => parseLanAddress('1.2.3.4:99999'), /port must be a number from 1 to 65535/);
    assert.throws(() => parseLanAddress('256.1.1.1'), /not a valid IPv4 address/);
    assert.throws(() => parseLanAddress('http://x'), /without a scheme/);
  });

  test('pairing addresses need the port shown on the phone', () => {
    assert.equal(parseLanAddress('192.168.1.20:37123', { requirePort: true }).port, 37123);
    assert.throws(() => parseLanAddress('192.168.1.20', { requirePort: true }), /include the port/);
  });
});

describe('parsePairingCode', () => {
  test('six digits only', () => {
    assert.equal(parsePairingCode(' 123456 '), '123456');
    for (const bad of ['12345', '1234567', 'abcdef', '12 456', '', 123456, null]) {
      assert.equal(
        codeOf(() => parsePairingCode(bad)),
        'invalid_arguments',
        `accepted ${JSON.stringify(bad)}`,
      );
    }
  });
});

describe("adb's connect answers", () => {
  const at = '10.0.0.5:5555';
  test('connected and already connected', () => {
    assert.equal(interpretConnectReply({ ok: true, message: `connected to ${at}` }, at).kind, 'connected');
    assert.equal(interpretConnectReply({ ok: true, message: `already connected to ${at}` }, at).kind, 'already');
  });

  test('failures become stable codes with clear messages', () => {
    const cases: Array<[string, string, RegExp]> = [
      [`failed to connect to '${at}': Connection refused`, 'unreachable', /connection refused/],
      [`failed to connect to ${at}`, 'unreachable', /did not answer/],
      [`cannot connect to ${at}: No route to host`, 'unreachable', /same network/],
      ["failed to resolve host: 'nope.invalid': Name or service not known", 'unreachable', /could not be resolved/],
      [`failed to authenticate to ${at}`, 'device_unauthorized', /Allow debugging/],
      [`unable to connect to ${at}`, 'unreachable', /did not answer/],
    ];
    for (const [message, code, text] of cases) {
      const verdict = interpretConnectReply({ ok: true, message }, at);
      assert.ok('error' in verdict, message);
      assert.equal(verdict.error.code, code, message);
      assert.match(verdict.error.message, text);
      assert.ok(verdict.error.message.includes(at));
    }
    const fail = interpretConnectReply({ ok: false, message: 'unknown host service' }, at);
    assert.ok('error' in fail && fail.error.code === 'unreachable');
  });
});

describe('reconnect backoff', () => {
  test('doubles from the initial delay and stops at the cap', () => {
    const o = resolveLanOptions();
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n, o)),
      [0, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
  });

  test('options are checked up front', () => {
    assert.throws(() => resolveLanOptions({ backoffInitialMs: 0 }), /lan.backoffInitialMs must be a positive integer/);
    assert.throws(() => resolveLanOptions({ backoffInitialMs: 5000, backoffMaxMs: 1000 }), /must not be below/);
  });
});

describe('mDNS service list', () => {
  test('parses adb lines and classifies the service types', () => {
    const text =
      'adb-R5CT1-AbCd\t_adb-tls-connect._tcp.\t192.168.1.20:41235\nadb-R5CT1-AbCd\t_adb-tls-pairing._tcp.\t192.168.1.20:37001\nlegacy\t_adb._tcp.\t192.168.1.30:5555\n\ngarbage\n';
    assert.deepEqual(
      parseMdnsServices(text).map((s) => [s.kind, s.address]),
      [
        ['connect', '192.168.1.20:41235'],
        ['pairing', '192.168.1.20:37001'],
        ['tcpip', '192.168.1.30:5555'],
      ],
    );
  });
});
