/**
 * Secrets by reference, end to end: admin API → bridge → xAgent client → real adb server →
 * simulated phone. A secret planted through the admin API is typed by name
 * (android_type_text `secret`, alone and in a batch, ASCII through `input text` and Chinese
 * through ADB Keyboard, only into password fields); the phone gets the value, and nothing else does: no file of the data
 * dir, no packet the client received, no admin answer (state, secrets, audit, its export, the
 * phone view's timeline), no log line holds it raw, JSON-escaped, %-encoded or in base64.
 * Unknown names, phones outside a secret's scope and deleted secrets are refused with their
 * codes before anything reaches the phone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../main/core/logging/logger';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval, reasonWords } from '../helpers/approvals';
import { TEST_ADMIN_TOKEN } from '../helpers/bridge';
import { XAgentClient, type Packet } from '../helpers/xagent-client';

/** Typed with `input text` (spaces go as %s); quotes and a backslash to be JSON-escaped. */
const LOGIN = 'Correct horse "battery" staple \\ 42!';
/** Typed through ADB Keyboard (base64 in the broadcast). */
const NOTE = '通行密码 Tr0ub4dor&3 ✓';

/** Every way a value could be written or sent. */
function forms(value: string): string[] {
  const utf8 = Buffer.from(value, 'utf8');
  return [
    ...new Set([
      value,
      JSON.stringify(value).slice(1, -1),
      value.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      encodeURIComponent(value),
      value.replaceAll(' ', '%s'),
      utf8.toString('base64'),
      utf8.toString('base64url'),
    ]),
  ];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('secrets by reference over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let deviceId: string;
  const logs: string[] = [];
  /** Every packet the client received, as its bytes. */
  const wire: Buffer[] = [];
  let callN = 0;
  const callId = (name: string): string => `call_${name}_${process.pid}_${++callN}`;
  const inputs = (): string[][] => rig.phones[0]!.argvLog.filter((argv) => argv[0] === 'input' || argv[0] === 'am');

  /** An admin answer as the bytes it came in. */
  async function adminText(path: string): Promise<string> {
    const res = await fetch(`${rig.bridge.url}${path}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    assert.equal(res.status, 200, path);
    return res.text();
  }

  async function putSecret(name: string, body: Json): Promise<{ status: number; body: Json }> {
    return rig.bridge.admin('PUT', `/admin/api/secrets/${encodeURIComponent(name)}`, body);
  }

  /** A call the policy holds (typing a secret is a password_field call): approved as the person would; the card shown and the ack. */
  async function approved(toolId: string, args: Json, id: string): Promise<{ approval: Json; ack: Packet }> {
    const call = invoke(client, channel, toolId, args, id);
    const approval = await waitForApproval(rig.bridge, toolId, (a) => a.connector_channel_id === channel);
    await answerApproval(rig.bridge, approval, 'approve');
    return { approval, ack: await call };
  }

  before(async () => {
    rig = await startDeviceRig(1, { logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }) });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    client.ws.on('message', (data: Buffer) => wire.push(Buffer.from(data)));
    await client.hello();
    deviceId = rig.device(0).deviceId;
    channel = await bindChannel(rig, client, deviceId);
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.login' }, callId('login-app')));
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('the admin API stores, replaces, lists and deletes secrets and never answers a value', async () => {
    const created = await putSecret('api-check', { value: 'first value 123' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.status, 'created');
    assert.deepEqual(Object.keys(created.body.secret as Json).sort(), ['created_at', 'devices', 'name', 'updated_at']);
    const replaced = await putSecret('api-check', { value: 'second value 456', devices: [deviceId] });
    assert.equal(replaced.body.status, 'replaced');
    assert.deepEqual((replaced.body.secret as Json).devices, [deviceId]);
    const list = await adminText('/admin/api/secrets');
    const state = await adminText('/admin/api/state');
    for (const text of [list, state]) {
      assert.match(text, /"name":"api-check"/);
      assert.ok(!text.includes('first value') && !text.includes('second value'), 'no value is answered');
    }
    assert.deepEqual((JSON.parse(state) as Json).secrets.find((s: Json) => s.name === 'api-check').devices, [deviceId]);

    const refusals: Array<[string, Json]> = [
      ['bad name!', { value: 'x1234' }],
      ['-leading-dash', { value: 'x1234' }],
      ['ok-name', { value: 42 }],
      ['ok-name', { value: '' }],
      ['ok-name', { value: 'x1234', devices: 'all' }],
      ['ok-name', { value: 'x1234', devices: [] }],
      ['ok-name', { value: 'x1234', extra: true }],
      ['ok-name-x1234', { value: 'x1234' }],
    ];
    for (const [name, body] of refusals) {
      const res = await putSecret(name, body);
      assert.equal(res.status, 400, `${name} ${JSON.stringify(body)}`);
      assert.equal((res.body.error as Json).code, 'invalid_arguments');
    }
    const deleted = await rig.bridge.admin('DELETE', '/admin/api/secrets/api-check');
    assert.deepEqual(deleted.body, { status: 'deleted' });
    const again = await rig.bridge.admin('DELETE', '/admin/api/secrets/api-check');
    assert.equal(again.status, 404);
    assert.equal((again.body.error as Json).code, 'secret_not_found');
    assert.ok(!(await adminText('/admin/api/secrets')).includes('api-check'));
  });

  test('an unknown secret is refused with secret_not_found before anything reaches the phone', async () => {
    const before = inputs().length;
    const ack = await invoke(
      client,
      channel,
      'android_type_text',
      { element: { resource_id: 'password' }, secret: 'no-such-secret' },
      callId('unknown'),
    );
    assert.equal(ack.error?.code, 'secret_not_found', JSON.stringify(ack));
    const batch = await invoke(
      client,
      channel,
      'android_batch',
      { steps: [{ tool: 'android_type_text', arguments: { secret: 'no-such-secret' } }] },
      callId('unknown-batch'),
    );
    assert.equal(batch.error?.code, 'secret_not_found', JSON.stringify(batch));
    const both = await invoke(
      client,
      channel,
      'android_type_text',
      { text: 'hello', secret: 'no-such-secret' },
      callId('both'),
    );
    assert.equal(both.error?.code, 'invalid_arguments');
    assert.deepEqual(inputs().slice(before), [], 'nothing was typed or tapped');
  });

  test('a secret scoped to other phones is refused with secret_out_of_scope; scoped to this phone it is typed', async () => {
    assert.equal(
      (await putSecret('scoped-pin', { value: 'pin 8080 scoped', devices: ['some-other-phone'] })).status,
      200,
    );
    const before = inputs().length;
    const ack = await invoke(
      client,
      channel,
      'android_type_text',
      { element: { resource_id: 'password' }, secret: 'scoped-pin' },
      callId('scoped'),
    );
    assert.equal(ack.error?.code, 'secret_out_of_scope', JSON.stringify(ack));
    assert.deepEqual(inputs().slice(before), [], 'nothing was typed or tapped');

    assert.equal(
      (await putSecret('scoped-pin', { value: 'pin 8080 scoped', devices: ['some-other-phone', deviceId] })).status,
      200,
    );
    const { ack: typed } = await approved(
      'android_type_text',
      { element: { resource_id: 'password' }, secret: 'scoped-pin', clear: true },
      callId('scoped-ok'),
    );
    assert.equal(result(typed).secret, 'scoped-pin');
    assert.equal(rig.phones[0]!.typedText('password'), 'pin 8080 scoped');
    assert.equal((await rig.bridge.admin('DELETE', '/admin/api/secrets/scoped-pin')).status, 200);
  });

  test('the phone gets the value; packets, files, admin answers and logs hold only the name', async () => {
    assert.equal((await putSecret('lab-login', { value: LOGIN })).body.status, 'created');
    assert.equal((await putSecret('lab-note', { value: NOTE, devices: [deviceId] })).body.status, 'created');

    // Into the password field, held for approval: the card names the secret.
    const login = await approved(
      'android_type_text',
      { element: { resource_id: 'password' }, secret: 'lab-login', clear: true },
      callId('login'),
    );
    assert.deepEqual(login.approval.arguments, {
      element: { resource_id: 'password' },
      secret: 'lab-login',
      clear: true,
    });
    assert.ok(
      reasonWords(login.approval).some((r) => r.includes('types the lab secret “lab-login”')),
      JSON.stringify(login.approval.reasons),
    );
    const typed = result(login.ack);
    assert.equal(typed.status, 'typed');
    assert.equal(typed.secret, 'lab-login');
    assert.equal(typed.characters, undefined, 'not even its length');
    assert.ok((typed.safety.risk_classes as string[]).includes('password_field'));
    assert.equal(rig.phones[0]!.typedText('password'), LOGIN, 'the phone got the value');

    // Never into a plain field, which would show it (test/integration/secret-pieces.test.ts).
    const plain = await invoke(
      client,
      channel,
      'android_type_text',
      { element: { resource_id: 'username' }, secret: 'lab-note', clear: true },
      callId('note-plain'),
    );
    assert.equal(plain.error?.code, 'secret_field_not_masked', JSON.stringify(plain));
    // Into the password field (through ADB Keyboard), with the screen observed: the answer names it.
    const note = await approved(
      'android_type_text',
      { element: { resource_id: 'password' }, secret: 'lab-note', clear: true, observe: true },
      callId('note'),
    );
    assert.equal(rig.phones[0]!.typedText('password'), NOTE);
    assert.equal(result(note.ack).secret, 'lab-note');
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'username' }, text: 'tester', clear: true },
        callId('user'),
      ),
    );

    // In a batch, then signing in: the welcome screen greets the typed user name.
    const steps = [
      {
        tool: 'android_type_text',
        arguments: { element: { resource_id: 'password' }, secret: 'lab-login', clear: true },
      },
      { tool: 'android_tap', arguments: { element: { resource_id: 'sign_in' } } },
    ];
    const batch = await approved('android_batch', { steps, observe: true }, callId('batch'));
    assert.deepEqual((batch.approval.arguments as Json).steps[0].arguments, steps[0]!.arguments);
    const done = result(batch.ack);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.match(JSON.stringify(done.ui), /Sign out/, 'signed in');
    const welcome = result(
      await invoke(client, channel, 'android_ui_tree', { interactive_only: false }, callId('welcome')),
    );
    assert.match(JSON.stringify(welcome), /Welcome, tester/);

    // The values did reach the phone, in the forms grepped for below.
    const argv = rig.phones[0]!.argvLog.map((a) => a.join(' ')).join('\n');
    assert.ok(argv.includes(LOGIN.replaceAll(' ', '%s')), 'input text carried the login');
    assert.ok(argv.includes(Buffer.from(NOTE, 'utf8').toString('base64')), 'ADB Keyboard carried the note');

    const audit = await adminText('/admin/api/audit?limit=100');
    // The audit trail names each secret where the text would be, in calls and in batch steps.
    const entries = (JSON.parse(audit) as { entries: Json[] }).entries;
    const typing = entries.filter((e) => e.tool_id === 'android_type_text' && e.outcome === 'ok');
    assert.ok(
      typing.some((e) => e.arguments.secret === 'lab-login' && e.decided_by === 'admin'),
      JSON.stringify(typing),
    );
    assert.ok(
      typing.some((e) => e.arguments.secret === 'lab-note' && e.arguments.observe === true),
      JSON.stringify(typing),
    );
    assert.ok(
      typing.filter((e) => 'secret' in e.arguments).every((e) => !('text' in e.arguments)),
      'no text argument at all',
    );
    const batched = entries.find((e) => e.tool_id === 'android_batch' && e.outcome === 'ok');
    assert.deepEqual(batched?.arguments.steps[0].arguments, steps[0]!.arguments);
    const answers: Array<[string, string]> = [
      ['admin state', await adminText('/admin/api/state')],
      ['secrets list', await adminText('/admin/api/secrets')],
      ['audit', audit],
      ['audit export', await adminText('/admin/api/audit?format=jsonl')],
      ['timeline', await adminText(`/admin/api/devices/${encodeURIComponent(deviceId)}/actions`)],
    ];
    assert.match(answers[4]![1], /"secret":"lab-login"/, 'the timeline names the secret');

    const files = filesUnder(rig.bridge.dataDir);
    for (const expected of ['audit.jsonl', 'tool-calls.jsonl', 'state.json', 'lab-secrets.json'])
      assert.ok(
        files.some((f) => f.endsWith(expected)),
        `${expected} is in the data dir`,
      );
    assert.ok(
      logs.some((l) => /held for approval/.test(l)),
      'logs were captured',
    );
    assert.ok(wire.length > 0 && client.received.length > 0, 'packets were captured');
    const haystacks: Array<{ where: string; data: Buffer }> = [
      ...files.map((file) => ({ where: file, data: readFileSync(file) })),
      { where: 'the packets on the wire', data: Buffer.concat(wire) },
      { where: 'the packets as the client read them', data: Buffer.from(JSON.stringify(client.received)) },
      ...answers.map(([where, text]) => ({ where, data: Buffer.from(text) })),
      { where: 'the logs', data: Buffer.from(logs.join('\n')) },
    ];
    for (const value of [LOGIN, NOTE]) {
      for (const form of forms(value)) {
        const needle = Buffer.from(form, 'utf8');
        for (const { where, data } of haystacks)
          assert.ok(!data.includes(needle), `${JSON.stringify(form)} found in ${where}`);
      }
    }
  });

  test('a deleted secret can no longer be typed', async () => {
    assert.equal((await putSecret('short-lived', { value: 'gone soon 99' })).status, 200);
    assert.equal((await rig.bridge.admin('DELETE', '/admin/api/secrets/short-lived')).status, 200);
    const before = inputs().length;
    const ack = await invoke(client, channel, 'android_type_text', { secret: 'short-lived' }, callId('deleted'));
    assert.equal(ack.error?.code, 'secret_not_found', JSON.stringify(ack));
    assert.deepEqual(inputs().slice(before), []);
  });
});
