/**
 * SSH ADB hosts: the address a person writes (ssh://user@host[:port][?adb_port=N]) and how a
 * host key is judged (known_hosts first, including hashed names and non-22 ports; else a
 * pin made on first use that refuses any other key later).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSshTarget, sshAddress } from '../../main/core/devices/ssh/ssh-target';
import { HostKeyPolicy, fingerprintOf, knownHostsEntries, keyTypeOf } from '../../main/core/devices/ssh/host-keys';

function blob(type: string, body: Buffer): Buffer {
  const name = Buffer.from(type);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(name.length);
  return Buffer.concat([head, name, body]);
}

test('ssh targets: user, host, port and the remote ADB port; the address never has the local forward port', () => {
  assert.deepEqual(parseSshTarget('ssh://lab@rack-3.example'), {
    user: 'lab',
    host: 'rack-3.example',
    port: 22,
    adbPort: 5037,
  });
  assert.deepEqual(parseSshTarget('ssh://lab@[fd00::5]:2222?adb_port=5038'), {
    user: 'lab',
    host: 'fd00::5',
    port: 2222,
    adbPort: 5038,
  });
  assert.equal(sshAddress(parseSshTarget('ssh://lab@10.0.0.5')), 'ssh://lab@10.0.0.5:22');
  assert.equal(
    sshAddress(parseSshTarget('ssh://lab@fd00::5'.replace('fd00::5', '[fd00::5]'))),
    'ssh://lab@[fd00::5]:22',
  );
  assert.throws(() => parseSshTarget('ssh://rack-3'), /must be ssh:\/\/USER@HOST\[:PORT\]/);
  assert.throws(() => parseSshTarget('ssh://lab:secret@rack-3'), /takes no password/);
  assert.throws(() => parseSshTarget('ssh://lab@rack-3:70000'), /SSH port must be a port from 1 to 65535/);
  assert.throws(() => parseSshTarget('ssh://lab@rack-3?host=10.0.0.9'), /takes only \?adb_port=PORT/);
});

test('fingerprints and key types read as OpenSSH prints them', () => {
  const key = blob('ssh-ed25519', randomBytes(36));
  assert.equal(keyTypeOf(key), 'ssh-ed25519');
  assert.equal(fingerprintOf(key), `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`);
});

test('known_hosts: plain, [host]:port, wildcard, negated, hashed, @revoked and @cert-authority lines', () => {
  const key = blob('ssh-ed25519', randomBytes(36)).toString('base64');
  const salt = randomBytes(20);
  const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('[10.0.0.7]:2222').digest('base64')}`;
  const text = [
    `rack-1,10.0.0.5 ssh-ed25519 ${key}`,
    `[10.0.0.6]:2222 ssh-ed25519 ${key}`,
    `*.lab,!bad.lab ssh-rsa ${key}`,
    `${hashed} ssh-ed25519 ${key}`,
    `@cert-authority *.lab ssh-ed25519 ${key}`,
    `@revoked rack-1 ssh-ed25519 ${key}`,
  ].join('\n');
  assert.equal(knownHostsEntries(text, '10.0.0.5').length, 1);
  assert.equal(knownHostsEntries(text, '10.0.0.6').length, 0, 'port 22 is not port 2222');
  assert.equal(knownHostsEntries(text, '[10.0.0.6]:2222').length, 1);
  assert.equal(knownHostsEntries(text, 'a.lab').length, 1);
  assert.equal(knownHostsEntries(text, 'bad.lab').length, 0);
  assert.equal(knownHostsEntries(text, '[10.0.0.7]:2222').length, 1);
  assert.deepEqual(
    knownHostsEntries(text, 'rack-1').map((e) => e.revoked),
    [false, true],
  );
});

test('host keys: known_hosts decides for the hosts it lists; others are pinned on first use and any other key is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'host-keys-'));
  try {
    const real = blob('ssh-ed25519', randomBytes(36));
    const impostor = blob('ssh-ed25519', randomBytes(36));
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `[rack-1]:2222 ssh-ed25519 ${real.toString('base64')}\n`);
    const policy = new HostKeyPolicy({ knownHostsFile: knownHosts, pinsFile: join(dir, 'pins.json'), clock: () => 42 });

    assert.deepEqual(policy.judge('rack-1', 2222, real), {
      ok: true,
      by: 'known_hosts',
      keyType: 'ssh-ed25519',
      fingerprint: fingerprintOf(real),
      firstUse: false,
    });
    const refused = policy.judge('rack-1', 2222, impostor);
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && refused.reason.includes(fingerprintOf(real)));

    const first = policy.judge('rack-2', 22, real);
    assert.ok(first.ok && first.by === 'first_use' && first.firstUse);
    assert.ok('rack-2' in JSON.parse(readFileSync(join(dir, 'pins.json'), 'utf8')));
    assert.deepEqual(policy.pinned('rack-2', 22), {
      key_type: 'ssh-ed25519',
      fingerprint: fingerprintOf(real),
      pinned_at: 42,
    });
    const again = policy.judge('rack-2', 22, real);
    assert.ok(again.ok && again.by === 'pinned');
    const changed = policy.judge('rack-2', 22, impostor);
    assert.ok(
      !changed.ok &&
        changed.reason.includes('pinned rack-2 on first use') &&
        changed.fingerprint === fingerprintOf(impostor),
    );

    writeFileSync(join(dir, 'pins.json'), '{ damaged');
    assert.throws(() => policy.judge('rack-3', 22, real), /pins file .* is damaged/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
