import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyVault, corePlainKeyFile, type SafeStorageLike } from '../../main/electron/api-key-vault';

/** A stand-in for safeStorage: reversible, and visibly not plaintext. */
function fakeSafeStorage(
  options: { available?: boolean; backend?: string; failDecrypt?: boolean } = {},
): SafeStorageLike & { encrypted: number } {
  const fake = {
    encrypted: 0,
    isEncryptionAvailable: () => options.available ?? true,
    encryptString: (plain: string) => {
      fake.encrypted += 1;
      return Buffer.from(`enc:${Buffer.from(plain).reverse().toString('hex')}`);
    },
    decryptString: (data: Buffer) => {
      if (options.failDecrypt)
        throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      const text = data.toString();
      if (!text.startsWith('enc:')) throw new Error('not ours');
      return Buffer.from(text.slice(4), 'hex').reverse().toString();
    },
    ...(options.backend ? { getSelectedStorageBackend: () => options.backend! } : {}),
  };
  return fake;
}

function slot(initial: string | null = null) {
  let value = initial;
  return { get: () => value, set: (v: string | null) => void (value = v), peek: () => value };
}

const dirs: string[] = [];
function dataDir(withKey?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vault-'));
  dirs.push(dir);
  if (withKey) writeFileSync(join(dir, 'api-key'), `${withKey}\n`, { mode: 0o600 });
  return dir;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('API key at rest (safeStorage with a 0600-file fallback)', () => {
  test('first start with encryption: a new key, stored only encrypted', () => {
    const dir = dataDir();
    const s = slot();
    const vault = new ApiKeyVault({
      safeStorage: fakeSafeStorage(),
      slot: s,
      plainFile: corePlainKeyFile(dir),
      platform: 'darwin',
    });
    const loaded = vault.load();
    assert.equal(loaded.protection, 'os-encryption');
    assert.ok(loaded.apiKey && loaded.apiKey.length >= 32);
    assert.equal(vault.sync(loaded.apiKey), 'os-encryption');
    assert.ok(s.peek()?.length);
    assert.ok(!Buffer.from(s.peek()!, 'base64').toString().includes(loaded.apiKey), 'the stored copy is not plaintext');
    assert.equal(existsSync(join(dir, 'api-key')), false, 'no plaintext key file');
    // Next start decrypts the same key.
    const again = new ApiKeyVault({
      safeStorage: fakeSafeStorage(),
      slot: s,
      plainFile: corePlainKeyFile(dir),
      platform: 'darwin',
    }).load();
    assert.deepEqual(again, { apiKey: loaded.apiKey, protection: 'os-encryption', problem: null });
  });

  test('an older plaintext key is moved into the keyring, and its file removed', () => {
    const dir = dataDir('plain-key-0123456789abcdef');
    const s = slot();
    const vault = new ApiKeyVault({
      safeStorage: fakeSafeStorage(),
      slot: s,
      plainFile: corePlainKeyFile(dir),
      platform: 'win32',
    });
    const loaded = vault.load();
    assert.equal(loaded.apiKey, 'plain-key-0123456789abcdef');
    vault.sync(loaded.apiKey);
    assert.equal(existsSync(join(dir, 'api-key')), false);
  });

  test('a rotated key is saved once; an unchanged key is not re-encrypted', () => {
    const storage = fakeSafeStorage();
    const s = slot();
    const vault = new ApiKeyVault({
      safeStorage: storage,
      slot: s,
      plainFile: corePlainKeyFile(dataDir()),
      platform: 'darwin',
    });
    const first = vault.load().apiKey!;
    vault.sync(first);
    vault.sync(first);
    assert.equal(storage.encrypted, 1);
    vault.sync('rotated-key-0123456789abcdef');
    assert.equal(storage.encrypted, 2);
    assert.equal(
      new ApiKeyVault({
        safeStorage: storage,
        slot: s,
        plainFile: corePlainKeyFile(dataDir()),
        platform: 'darwin',
      }).load().apiKey,
      'rotated-key-0123456789abcdef',
    );
  });

  test("Linux's basic_text backend is not encryption: the core's 0600 file is used", () => {
    const dir = dataDir('plain-key-0123456789abcdef');
    const s = slot();
    const vault = new ApiKeyVault({
      safeStorage: fakeSafeStorage({ backend: 'basic_text' }),
      slot: s,
      plainFile: corePlainKeyFile(dir),
      platform: 'linux',
    });
    assert.equal(vault.canEncrypt(), false);
    assert.deepEqual(vault.load(), { apiKey: undefined, protection: 'file-0600', problem: null });
    assert.equal(vault.sync('whatever-0123456789abcdef'), 'file-0600');
    assert.equal(s.peek(), null);
    assert.equal(
      readFileSync(join(dir, 'api-key'), 'utf8').trim(),
      'plain-key-0123456789abcdef',
      'the file is left alone',
    );
    const gnome = new ApiKeyVault({
      safeStorage: fakeSafeStorage({ backend: 'gnome_libsecret' }),
      slot: slot(),
      plainFile: corePlainKeyFile(dir),
      platform: 'linux',
    });
    assert.equal(gnome.canEncrypt(), true);
  });

  test('no keyring at all: fallback, with a warning when an encrypted copy can no longer be read', () => {
    const vault = new ApiKeyVault({
      safeStorage: fakeSafeStorage({ available: false }),
      slot: slot('ZW5jOjAw'),
      plainFile: corePlainKeyFile(dataDir()),
      platform: 'linux',
    });
    const loaded = vault.load();
    assert.equal(loaded.apiKey, undefined);
    assert.equal(loaded.protection, 'file-0600');
    assert.match(loaded.problem ?? '', /keyring is not available/);
    const throwing = new ApiKeyVault({
      safeStorage: {
        isEncryptionAvailable: () => {
          throw new Error('called before ready');
        },
        encryptString: () => Buffer.alloc(0),
        decryptString: () => '',
      },
      slot: slot(),
      plainFile: corePlainKeyFile(dataDir()),
      platform: 'darwin',
    });
    assert.equal(throwing.canEncrypt(), false);
  });

  test('an encrypted copy that cannot be decrypted: the file if any, else a new key and a warning', () => {
    const withFile = new ApiKeyVault({
      safeStorage: fakeSafeStorage({ failDecrypt: true }),
      slot: slot('ZW5jOjAw'),
      plainFile: corePlainKeyFile(dataDir('file-key-0123456789abcdef')),
      platform: 'darwin',
    }).load();
    assert.deepEqual(withFile, { apiKey: 'file-key-0123456789abcdef', protection: 'os-encryption', problem: null });
    const without = new ApiKeyVault({
      safeStorage: fakeSafeStorage({ failDecrypt: true }),
      slot: slot('ZW5jOjAw'),
      plainFile: corePlainKeyFile(dataDir()),
      platform: 'darwin',
    }).load();
    assert.ok(without.apiKey && without.apiKey.length >= 32);
    assert.match(without.problem ?? '', /could not be decrypted.*enter it in xAgent/);
  });
});
