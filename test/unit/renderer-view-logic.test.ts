import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEntry } from '../../main/contract/admin-api';
import {
  distinctValues,
  exportFileName,
  filterAudit,
  newestFirst,
  toJsonLines,
} from '../../renderer/src/lib/audit-export';
import { checkLanAddress, checkPairingCode } from '../../renderer/src/lib/lan-address';
import { parsePackageList, riskLabel, withDefault } from '../../renderer/src/lib/policy-edit';

function entry(id: string, device: string | null, channel: string | null, time: number): AuditEntry {
  return {
    id,
    time,
    connector_channel_id: channel,
    device_id: device,
    tool_id: 'android_tap',
    arguments: { x: 1, y: 2 },
    decision: 'allow',
    decided_by: 'policy',
    outcome: 'ok',
    error_code: null,
    duration_ms: 12,
    reasons: [],
    screenshot_ref: null,
  };
}

void describe('Activity: filters and export', () => {
  const entries = [
    entry('1', 'dev_a', 'ch_1', 100),
    entry('2', 'dev_b', 'ch_2', 300),
    entry('3', 'dev_a', 'ch_2', 200),
    entry('4', null, null, 50),
  ];

  void test('filters by phone and channel, together or alone', () => {
    assert.deepEqual(
      filterAudit(entries, { deviceId: '', channelId: '' }).map((e) => e.id),
      ['1', '2', '3', '4'],
    );
    assert.deepEqual(
      filterAudit(entries, { deviceId: 'dev_a', channelId: '' }).map((e) => e.id),
      ['1', '3'],
    );
    assert.deepEqual(
      filterAudit(entries, { deviceId: 'dev_a', channelId: 'ch_2' }).map((e) => e.id),
      ['3'],
    );
    assert.deepEqual(
      newestFirst(entries).map((e) => e.id),
      ['2', '3', '1', '4'],
    );
    assert.deepEqual(distinctValues(entries, 'device_id'), ['dev_a', 'dev_b']);
  });

  void test('export is one JSON object per line that parses back to the filtered entries', () => {
    const filtered = filterAudit(entries, { deviceId: 'dev_a', channelId: '' });
    const text = toJsonLines(filtered);
    assert.ok(text.endsWith('\n'));
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l) as AuditEntry),
      filtered,
    );
    assert.equal(toJsonLines([]), '');
    assert.match(
      exportFileName(Date.UTC(2024, 4, 1, 14, 3, 27)),
      /^device-bridge-activity-2024-05-01T14-03-27\.jsonl$/,
    );
  });
});

void describe('Settings: policy editing', () => {
  void test('one package per line; comments, blanks and duplicates ignored; bad lines reported by number', () => {
    const parsed = parsePackageList(
      'com.example.bank\n\n# wallets\ncom.example.wallet\ncom.example.bank\nnot a package\n  org.x.y  ',
    );
    assert.deepEqual(parsed.packages, ['com.example.bank', 'com.example.wallet', 'org.x.y']);
    assert.deepEqual(parsed.invalid, [{ line: 6, text: 'not a package' }]);
    assert.deepEqual(parsePackageList('settings').invalid, [{ line: 1, text: 'settings' }]);
  });

  void test('changing one decision keeps the rest', () => {
    const policies = {
      defaults: { payment: 'ask' as const, install: 'deny' as const },
      per_device: { d: { payment: 'allow' as const } },
      sensitive_apps: ['a.b'],
      audit_typed_text: 'digest' as const,
    };
    const next = withDefault(policies, 'payment', 'deny');
    assert.deepEqual(next, { ...policies, defaults: { payment: 'deny', install: 'deny' } });
    assert.equal(policies.defaults.payment, 'ask', 'the original is not mutated');
    assert.equal(riskLabel('payment_app'), 'Payment app');
  });
});

void describe('LAN forms: address and code checks', () => {
  void test('accepts HOST, HOST:PORT, IPv4 and bracketed IPv6', () => {
    for (const ok of ['192.168.1.20', '192.168.1.20:5555', 'pixel-7.lab.local:5555', '[fe80::1]:5555', '[::1]']) {
      assert.equal(checkLanAddress(ok).ok, true, ok);
    }
  });

  void test('rejects typos with a specific message', () => {
    assert.match(checkLanAddress('').message ?? '', /Enter the phone address/);
    assert.match(checkLanAddress('192.168.1.20:99999').message ?? '', /1 to 65535/);
    assert.match(checkLanAddress('192.168.1.20:abc').message ?? '', /must be a number/);
    assert.match(checkLanAddress('bad host:5555').message ?? '', /not a host name/);
    assert.match(checkLanAddress('192.168.1.20', true).message ?? '', /Include the port/);
  });

  void test('pairing codes are six digits', () => {
    assert.equal(checkPairingCode('123456').ok, true);
    assert.equal(checkPairingCode('12345').ok, false);
    assert.equal(checkPairingCode('12345a').ok, false);
  });
});
