/**
 * The lab's named secrets without a phone: sealed at rest (AES-256-GCM, 0600, the name bound
 * in), listed without values, replaced, deleted, scoped to phones with stable codes; the
 * type tool's schema takes exactly one of text and secret; arguments show the name; the
 * policy treats a secret as a password; acks are scrubbed of every stored value.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBridgeError } from '../../main/core/errors';
import { LabSecrets, secretForms } from '../../main/core/secrets/lab-secrets';
import { classify } from '../../main/core/safety/policy-engine';
import { redactArguments } from '../../main/core/safety/redact';
import { CONTROL_TOOLS } from '../../main/core/tools/control-tools';
import { checkSecretNames, scrubSecrets, secretNames } from '../../main/core/tools/secret-text';
import { toCardTool } from '../../main/core/tools/tool-definition';

const VALUE = 'Tr0ub4dor &3 “lab” \\ ok';
const PHONE = 'dev_pixel';
const OTHER_PHONE = 'dev_galaxy';

function code(expected: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(isBridgeError(error), String(error));
    assert.equal(error.code, expected, error.message);
    return true;
  };
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lab-secrets-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

void describe('lab secrets at rest', () => {
  void test('a value is sealed in a 0600 file, opened again after a restart, and never listed', () => {
    const dir = dataDir();
    let now = 1_000;
    const secrets = new LabSecrets({ dataDir: dir, clock: () => now });
    const created = secrets.set('lab-login', VALUE, null);
    assert.equal(created.created, true);
    assert.deepEqual(created.secret, { name: 'lab-login', devices: null, created_at: 1_000, updated_at: 1_000 });
    const file = join(dir, 'lab-secrets.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'lab-secrets-key')).mode & 0o777, 0o600);
    const raw = readFileSync(file);
    for (const form of secretForms(VALUE)) assert.ok(!raw.includes(Buffer.from(form)), `${form} is not in the file`);
    assert.match(raw.toString(), /"name": "lab-login"/);

    now = 2_000;
    const again = new LabSecrets({ dataDir: dir, clock: () => now });
    assert.equal(again.reveal('lab-login', PHONE), VALUE);
    const replaced = again.set('lab-login', 'another one', [PHONE, PHONE]);
    assert.equal(replaced.created, false);
    assert.deepEqual(replaced.secret, { name: 'lab-login', devices: [PHONE], created_at: 1_000, updated_at: 2_000 });
    assert.deepEqual(again.list(), [replaced.secret]);
    assert.ok(!JSON.stringify(again.list()).includes('another one'));
    assert.deepEqual(again.values(), [{ name: 'lab-login', value: 'another one' }]);
    assert.ok(!again.forms().includes(JSON.stringify(VALUE).slice(1, -1)), 'the old value is forgotten');
    assert.ok(again.forms().includes('another%sone'));
  });

  void test('scopes and names are checked with stable codes; nothing is opened to check', () => {
    const secrets = new LabSecrets({ dataDir: dataDir(), clock: () => 5 });
    secrets.set('pin.pixel_1', '4711', [PHONE]);
    assert.doesNotThrow(() => secrets.check('pin.pixel_1', PHONE));
    assert.throws(() => secrets.reveal('pin.pixel_1', OTHER_PHONE), code('secret_out_of_scope'));
    assert.throws(() => secrets.reveal('nope', PHONE), code('secret_not_found'));
    assert.throws(() => secrets.delete('nope'), code('secret_not_found'));
    secrets.delete('pin.pixel_1');
    assert.throws(() => secrets.check('pin.pixel_1', PHONE), code('secret_not_found'));
    assert.deepEqual(secrets.list(), []);
  });

  void test('bad names, values and phone lists are refused without echoing the value', () => {
    const secrets = new LabSecrets({ dataDir: dataDir(), clock: () => 5 });
    for (const name of ['', '-lead', 'has space', 'ü', 'a/b', 'x'.repeat(65)])
      assert.throws(() => secrets.set(name, VALUE, null), code('invalid_arguments'), name);
    assert.throws(() => secrets.set('ok', '', null), code('invalid_arguments'));
    assert.throws(() => secrets.set('ok', 'v'.repeat(10_001), null), code('invalid_arguments'));
    assert.throws(
      () => secrets.set('pin-4711', '4711', null),
      (e: unknown) => code('invalid_arguments')(e) && !(e as Error).message.includes('4711'),
    );
    assert.throws(() => secrets.set('ok', VALUE, []), code('invalid_arguments'));
    assert.throws(() => secrets.set('ok', VALUE, ['']), code('invalid_arguments'));
    assert.throws(
      () =>
        secrets.set(
          'ok',
          VALUE,
          Array.from({ length: 101 }, (_, i) => `phone-${i}`),
        ),
      code('invalid_arguments'),
    );
    try {
      secrets.set('bad name', VALUE, null);
    } catch (error) {
      assert.ok(!(error as Error).message.includes(VALUE));
    }
    assert.deepEqual(secrets.list(), []);
  });

  void test('at most 200 secrets; replacing one of them is still allowed', () => {
    const secrets = new LabSecrets({ dataDir: dataDir(), clock: () => 5 });
    for (let i = 0; i < 200; i++) secrets.set(`s${i}`, `value number ${i}`, null);
    assert.throws(() => secrets.set('one-more', 'value one more', null), code('invalid_arguments'));
    assert.equal(secrets.set('s7', 'value seven again', null).created, false);
    assert.equal(secrets.list().length, 200);
  });

  void test('a sealed value moved to another name, or under another key, does not open', () => {
    const dir = dataDir();
    const warnings: string[] = [];
    const secrets = new LabSecrets({ dataDir: dir, clock: () => 5 });
    secrets.set('alpha', 'value of alpha', null);
    secrets.set('beta', 'value of beta', null);
    const file = join(dir, 'lab-secrets.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { secrets: Array<Record<string, unknown>> };
    const [alpha, beta] = stored.secrets;
    stored.secrets = [{ ...alpha!, iv: beta!.iv, tag: beta!.tag, data: beta!.data }, beta!];
    writeFileSync(file, JSON.stringify(stored));
    const reopened = new LabSecrets({ dataDir: dir, clock: () => 5, warn: (m) => warnings.push(m) });
    assert.throws(() => reopened.reveal('alpha', PHONE), code('secret_not_found'));
    assert.equal(reopened.reveal('beta', PHONE), 'value of beta');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /"alpha" cannot be opened/);
    assert.deepEqual(
      reopened.list().map((s) => s.name),
      ['alpha', 'beta'],
      'still listed, so it can be stored again',
    );

    writeFileSync(join(dir, 'lab-secrets-key'), `${Buffer.alloc(32, 1).toString('base64url')}\n`);
    const rekeyed = new LabSecrets({ dataDir: dir, clock: () => 5, warn: (m) => warnings.push(m) });
    assert.throws(() => rekeyed.reveal('beta', PHONE), code('secret_not_found'));
    assert.deepEqual(rekeyed.values(), []);
  });
});

void describe('typing a secret by name', () => {
  const typeText = CONTROL_TOOLS.find((t) => t.id === 'android_type_text')!;

  void test('the schema takes exactly one of text and secret, and a secret only by a valid name', () => {
    assert.ok(
      typeText.args.safeParse({ secret: 'lab-login', element: { resource_id: 'password' }, submit: true }).success,
    );
    assert.ok(typeText.args.safeParse({ text: 'hello' }).success);
    const both = typeText.args.safeParse({ text: 'hello', secret: 'lab-login' });
    assert.ok(!both.success);
    assert.match(both.error.issues[0]!.message, /exactly one of text or secret/);
    assert.ok(!typeText.args.safeParse({}).success);
    assert.ok(!typeText.args.safeParse({ secret: 'no spaces please' }).success);
    const card = toCardTool(typeText).input_schema as { properties: Record<string, unknown> };
    assert.ok('secret' in card.properties, 'the Card offers secret');
    assert.match(typeText.description, /secret/);
  });

  void test('the names a call types are found, alone and in a batch, and checked at the edge', () => {
    assert.deepEqual(secretNames('android_type_text', { secret: 'lab-login' }), ['lab-login']);
    assert.deepEqual(secretNames('android_type_text', { text: 'lab-login' }), []);
    const batch = {
      steps: [
        { tool: 'android_tap', arguments: { x: 1, y: 2 } },
        { tool: 'android_type_text', arguments: { secret: 'pin' } },
      ],
    };
    assert.deepEqual(secretNames('android_batch', batch), ['pin']);
    assert.throws(() => checkSecretNames(undefined, 'android_batch', batch, PHONE), code('secret_not_found'));
    const source = {
      check: (name: string, deviceId: string) => assert.deepEqual([name, deviceId], ['pin', PHONE]),
      reveal: () => '',
      values: () => [],
    };
    assert.doesNotThrow(() => checkSecretNames(source, 'android_batch', batch, PHONE));
    assert.doesNotThrow(() => checkSecretNames(undefined, 'android_tap', { x: 1, y: 2 }, PHONE));
  });

  void test('arguments show the name (not [redacted]), alone and in a batch step', () => {
    const ctx = { secrets: [VALUE], secretText: true };
    assert.deepEqual(redactArguments('android_type_text', { secret: 'lab-login', submit: true }, ctx), {
      secret: 'lab-login',
      submit: true,
    });
    const batch = { steps: [{ tool: 'android_type_text', arguments: { secret: 'lab-login' } }] };
    assert.deepEqual(redactArguments('android_batch', batch, ctx), batch);
    assert.deepEqual(
      redactArguments('android_tap', { secret: 'lab-login' }, ctx),
      { secret: '[redacted]' },
      'elsewhere the key still redacts',
    );
  });

  void test('typing a secret is a password_field call whose text is secret, even into a plain field', () => {
    const call = { toolId: 'android_type_text', kind: 'control' as const, args: { secret: 'lab-login' } };
    const judged = classify({ call, screen: null, userApps: [] });
    assert.ok(judged.classes.includes('password_field'));
    assert.ok(judged.secretText);
    assert.ok(
      judged.reasons.some((r) => r.includes('types the lab secret “lab-login”')),
      judged.reasons.join('; '),
    );
    const batch = classify({
      call: {
        ...call,
        toolId: 'android_batch',
        args: { steps: [{ tool: 'android_type_text', arguments: { secret: 'lab-login' } }] },
      },
      screen: null,
      userApps: [],
    });
    assert.ok(batch.classes.includes('password_field'));
  });

  void test('an ack is scrubbed of every stored value in each form it may take', () => {
    const secrets = [
      { name: 'lab-login', value: VALUE },
      { name: 'pin', value: '471' },
    ];
    const ack = {
      payload: {
        result: {
          ui: [{ text: `Password: ${VALUE}` }, { text: '471' }, { text: 'room 4711' }],
          message: `input text ${VALUE.replaceAll(' ', '%s')} and ${Buffer.from(VALUE).toString('base64')}`,
        },
      },
    };
    const out = scrubSecrets(ack, secrets);
    const text = JSON.stringify(out);
    for (const form of secretForms(VALUE)) assert.ok(!text.includes(form), form);
    assert.deepEqual(
      out.payload.result.ui,
      [{ text: 'Password: [secret: lab-login]' }, { text: '[secret: pin]' }, { text: 'room 4711' }],
      'a short value only where a whole string is it',
    );
    assert.equal(scrubSecrets(ack, []), ack);
  });
});
