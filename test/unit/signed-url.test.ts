/**
 * UrlSigner: every single-character change of a signed URL is refused, expiry follows the
 * injected clock, and a URL never outlives its file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { BridgeError } from '../../main/core/errors';
import { UrlSigner, createUrlSecret } from '../../main/core/files/signed-url';

const secret = Buffer.alloc(32, 7);
const ref = 'file_' + 'AbCdEfGhIjKlMnOpQrStUvWxYz012_-9';

function parse(path: string): { ref: string; query: URLSearchParams } {
  const match = /^\/files\/refs\/([^?]+)\?(.*)$/.exec(path);
  assert.ok(match, `unexpected path ${path}`);
  return { ref: match[1]!, query: new URLSearchParams(match[2]) };
}

/** The same string with the character at `index` replaced by a different allowed one. */
function flip(text: string, index: number, alphabet: string): string {
  const current = text[index]!;
  const replacement = alphabet[(alphabet.indexOf(current) + 1) % alphabet.length]!;
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

void describe('UrlSigner', () => {
  void test('rejects a short or missing secret with a precise message', () => {
    for (const bad of [Buffer.alloc(31), 'a'.repeat(64), undefined]) {
      assert.throws(
        () => new UrlSigner(bad as Buffer),
        (e: unknown) =>
          e instanceof BridgeError &&
          e.code === 'invalid_arguments' &&
          e.message === 'secret must be a Buffer of at least 32 bytes',
      );
    }
    assert.equal(createUrlSecret().length, 32);
    assert.notDeepEqual(createUrlSecret(), createUrlSecret());
  });

  void test('signs /files/refs/{ref}?exp&sig with HMAC-SHA256 over "ref\\nexp"', () => {
    const signer = new UrlSigner(secret, () => 1_000);
    const { path, expiresAt } = signer.sign(ref, 60_000);
    assert.equal(expiresAt, 61_000);
    const expectedSig = createHmac('sha256', secret).update(`${ref}\n61000`).digest('base64url');
    assert.equal(path, `/files/refs/${ref}?exp=61000&sig=${expectedSig}`);
    const parsed = parse(path);
    assert.equal(signer.verify(parsed.ref, parsed.query), 'ok');
  });

  void test('never signs past notAfter (the file expiry)', () => {
    const signer = new UrlSigner(secret, () => 1_000);
    assert.equal(signer.sign(ref, 60_000, 5_000).expiresAt, 5_000);
    assert.equal(signer.sign(ref, 60_000, 100_000).expiresAt, 61_000);
  });

  void test('validates what it signs', () => {
    const signer = new UrlSigner(secret);
    const isInvalid = (e: unknown): boolean => e instanceof BridgeError && e.code === 'invalid_arguments';
    assert.throws(() => signer.sign('file_short', 1000), isInvalid);
    assert.throws(() => signer.sign('../etc/passwd', 1000), isInvalid);
    assert.throws(() => signer.sign(ref, 0), isInvalid);
    assert.throws(() => signer.sign(ref, 1.5), isInvalid);
    assert.throws(() => signer.sign(ref, 1000, Number.NaN), isInvalid);
  });

  void test('changing any one character of sig, exp or ref is a bad signature', () => {
    const signer = new UrlSigner(secret, () => 1_000);
    const { ref: signedRef, query } = parse(signer.sign(ref, 60_000).path);
    const sig = query.get('sig')!;
    const exp = query.get('exp')!;
    for (let i = 0; i < sig.length; i++) {
      assert.equal(
        signer.verify(signedRef, new URLSearchParams({ exp, sig: flip(sig, i, B64URL) })),
        'bad_signature',
        `sig char ${i}`,
      );
    }
    for (let i = 0; i < exp.length; i++) {
      assert.equal(
        signer.verify(signedRef, new URLSearchParams({ exp: flip(exp, i, '0123456789'), sig })),
        'bad_signature',
        `exp char ${i}`,
      );
    }
    for (let i = 'file_'.length; i < signedRef.length; i++) {
      assert.equal(
        signer.verify(flip(signedRef, i, B64URL), new URLSearchParams({ exp, sig })),
        'bad_signature',
        `ref char ${i}`,
      );
    }
  });

  void test('malformed, missing, duplicated or foreign-key signatures are bad', () => {
    const signer = new UrlSigner(secret, () => 1_000);
    const { ref: signedRef, query } = parse(signer.sign(ref, 60_000).path);
    const sig = query.get('sig')!;
    const exp = query.get('exp')!;
    const cases: Array<Record<string, string> | string> = [
      {},
      { exp },
      { sig },
      { exp: `${exp}0`, sig },
      { exp: `+${exp}`, sig },
      { exp: `${exp}.0`, sig },
      { exp, sig: sig.slice(1) },
      { exp, sig: `${sig}A` },
      { exp, sig: `${sig.slice(0, -1)}=` },
      `exp=${exp}&sig=${sig}&sig=${sig}`,
      `exp=${exp}&exp=${exp}&sig=${sig}`,
    ];
    for (const params of cases) {
      assert.equal(signer.verify(signedRef, new URLSearchParams(params)), 'bad_signature', JSON.stringify(params));
    }
    const other = new UrlSigner(Buffer.alloc(32, 8), () => 1_000);
    assert.equal(other.verify(signedRef, query), 'bad_signature');
  });

  void test('expires after exp by the injected clock, valid up to and including exp', () => {
    let now = 1_000;
    const signer = new UrlSigner(secret, () => now);
    const { ref: signedRef, query } = parse(signer.sign(ref, 500).path);
    now = 1_500;
    assert.equal(signer.verify(signedRef, query), 'ok');
    now = 1_501;
    assert.equal(signer.verify(signedRef, query), 'expired');
  });

  void test('a private copy of the secret is kept', () => {
    const mine = Buffer.alloc(32, 3);
    const signer = new UrlSigner(mine, () => 0);
    const { ref: signedRef, query } = parse(signer.sign(ref, 1000).path);
    mine.fill(0);
    assert.equal(signer.verify(signedRef, query), 'ok');
  });
});
