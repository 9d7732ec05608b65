/**
 * Typed text kept private at rest, end to end: xAgent client → bridge → real adb server →
 * simulated phone. Text typed with android_type_text and in an android_batch typing step
 * never reaches a file of the data dir or a log line (the audit trail keeps its length and
 * keyed hash, the journal's stored ack has it replaced); the approver still sees it in full;
 * `audit_typed_text: 'full'` keeps it in the audit trail for those who want that.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../main/core/logging/logger';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval } from '../helpers/approvals';
import { XAgentClient } from '../helpers/xagent-client';

const ADDRESS = 'Meet me at 221B Baker Street';
const CHINESE = '明天下午三点在北京西站见面';
const HELD = 'Call Grandma back at 555-0143';
const KEPT = 'Buy oat milk and 2 lemons';
const DIGEST = /^\[text: (\d+) chars, hmac-sha256:([0-9a-f]{8})\]$/;

/** Every way a typed text could be written: as is, JSON-escaped, as `input text` and ADB Keyboard send it. */
function forms(text: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  const ascii = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([text, escaped, ascii, text.replaceAll(' ', '%s'), Buffer.from(text, 'utf8').toString('base64')])];
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

describe('typed text at rest over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let deviceId: string;
  const logs: string[] = [];
  let callN = 0;
  const callId = (name: string): string => `call_${name}_${process.pid}_${++callN}`;

  async function auditEntries(): Promise<Json[]> {
    const res = await rig.bridge.admin('GET', '/admin/api/audit?limit=100');
    assert.equal(res.status, 200);
    return res.body.entries as Json[];
  }

  async function putPolicies(change: Json): Promise<Json> {
    const current = await rig.bridge.admin('GET', '/admin/api/policies');
    const res = await rig.bridge.admin('PUT', '/admin/api/policies', { ...current.body, ...change });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  before(async () => {
    rig = await startDeviceRig(1, {
      logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    deviceId = rig.device(0).deviceId;
    channel = await bindChannel(rig, client, deviceId);
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }, callId('notes')));
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('the default is digest; PUT checks the setting strictly', async () => {
    const policies = await rig.bridge.admin('GET', '/admin/api/policies');
    assert.equal(policies.body.audit_typed_text, 'digest');
    const bad = await rig.bridge.admin('PUT', '/admin/api/policies', { ...policies.body, audit_typed_text: 'hashed' });
    assert.equal(bad.status, 400);
    assert.equal((bad.body.error as Json).code, 'invalid_arguments');
    assert.match(String((bad.body.error as Json).message), /audit_typed_text must be digest or full/);
  });

  test('typed text is audited as its length and a keyed hash; the same text gives the same hash', async () => {
    const typed = result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: ADDRESS, observe: true },
        callId('address'),
      ),
    );
    assert.equal(typed.status, 'typed');
    // The observed screen shows the text to the agent (and so the journal's ack held it).
    assert.ok(JSON.stringify(typed.ui).includes(ADDRESS));
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: ADDRESS, clear: true },
        callId('address-again'),
      ),
    );
    const batch = result(
      await invoke(
        client,
        channel,
        'android_batch',
        {
          // A typing step after other steps is kept secret (the screen may have changed): first here.
          steps: [
            {
              tool: 'android_type_text',
              arguments: { element: { resource_id: 'note_text' }, text: CHINESE, clear: true },
            },
            { tool: 'android_tap', arguments: { element: { resource_id: 'save_button' } } },
          ],
          observe: true,
        },
        callId('batch'),
      ),
    );
    assert.equal(batch.status, 'done', JSON.stringify(batch));
    assert.equal(rig.phones[0]!.typedText('note_text'), CHINESE);

    const entries = await auditEntries();
    const typing = entries.filter((e) => e.tool_id === 'android_type_text');
    assert.equal(typing.length, 2);
    const [second, first] = typing.map((e) => String(e.arguments.text));
    assert.match(first!, DIGEST);
    assert.equal(DIGEST.exec(first!)![1], String(ADDRESS.length));
    assert.equal(second, first, 'two identical texts, the same hash');
    assert.deepEqual(typing[0]!.arguments.element, { resource_id: 'note_text' }, 'the rest of the arguments is kept');
    const batched = entries.find((e) => e.tool_id === 'android_batch');
    assert.ok(batched, 'batch audited');
    const step = batched.arguments.steps[0].arguments;
    assert.match(String(step.text), DIGEST);
    assert.equal(DIGEST.exec(String(step.text))![1], String([...CHINESE].length));
    assert.notEqual(step.text, first);
  });

  test('a held call shows the approver the full text; the audit trail then keeps the hash', async () => {
    await putPolicies({ per_device: { [deviceId]: { control: 'ask' } } });
    try {
      const call = invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: HELD, clear: true },
        callId('held'),
      );
      const approval = await waitForApproval(rig.bridge, 'android_type_text');
      assert.equal(approval.arguments.text, HELD, 'the person deciding reads what would be typed');
      await answerApproval(rig.bridge, approval, 'approve');
      assert.equal(result(await call).safety.decided_by, 'admin');
    } finally {
      await putPolicies({ per_device: {} });
    }
    // A later call that observes the field sees the text there: the journal keeps no screens.
    const tapped = result(
      await invoke(
        client,
        channel,
        'android_tap',
        { element: { resource_id: 'note_text' }, observe: true },
        callId('look'),
      ),
    );
    assert.ok(JSON.stringify(tapped).includes(HELD));
    const entry = (await auditEntries()).find((e) => e.tool_id === 'android_type_text' && e.decided_by === 'admin');
    assert.ok(entry, 'the approved call is audited');
    assert.match(String(entry.arguments.text), DIGEST);
    assert.equal(rig.phones[0]!.typedText('note_text'), HELD);
  });

  test('no typed text anywhere in the data dir or the logs', async () => {
    // The three texts go through the bridge once more here (typed with an observed screen, in a
    // batch, and held for approval), so this test stands alone.
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: ADDRESS, clear: true, observe: true },
        callId('plant-address'),
      ),
    );
    const steps = [
      { tool: 'android_type_text', arguments: { element: { resource_id: 'note_text' }, text: CHINESE, clear: true } },
    ];
    assert.equal(
      result(await invoke(client, channel, 'android_batch', { steps, observe: true }, callId('plant-batch'))).status,
      'done',
    );
    await putPolicies({ per_device: { [deviceId]: { control: 'ask' } } });
    try {
      const call = invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: HELD, clear: true },
        callId('plant-held'),
      );
      await answerApproval(rig.bridge, await waitForApproval(rig.bridge, 'android_type_text'), 'approve');
      result(await call);
    } finally {
      await putPolicies({ per_device: {} });
    }
    // The audit flushes before it answers.
    await auditEntries();
    const files = filesUnder(rig.bridge.dataDir);
    for (const expected of ['audit.jsonl', 'tool-calls.jsonl', 'state.json'])
      assert.ok(
        files.some((f) => f.endsWith(expected)),
        `${expected} is in the data dir`,
      );
    assert.match(
      readFileSync(join(rig.bridge.dataDir, 'tool-calls.jsonl'), 'utf8'),
      /"screen_not_kept":true/,
      'the journal kept acks without their observed screens',
    );
    assert.ok(
      logs.some((l) => /held for approval/.test(l)),
      'logs were captured',
    );
    for (const text of [ADDRESS, CHINESE, HELD]) {
      for (const form of forms(text)) {
        const needle = Buffer.from(form, 'utf8');
        for (const file of files)
          assert.ok(
            !readFileSync(file).includes(needle),
            `${JSON.stringify(form)} found in ${file}: ${readFileSync(file, 'utf8').slice(0, 3000)}`,
          );
        assert.ok(!logs.some((l) => l.includes(form)), `${JSON.stringify(form)} found in the logs`);
      }
    }
  });

  test('with audit_typed_text full (set through the admin API), the audit trail keeps the text; the journal still does not', async () => {
    const set = await putPolicies({ audit_typed_text: 'full' });
    assert.equal(set.audit_typed_text, 'full');
    try {
      result(
        await invoke(
          client,
          channel,
          'android_type_text',
          { element: { resource_id: 'note_text' }, text: KEPT, clear: true, observe: true },
          callId('kept'),
        ),
      );
      const entry = (await auditEntries()).find((e) => e.tool_id === 'android_type_text');
      assert.equal(entry?.arguments.text, KEPT);
      const audit = readFileSync(join(rig.bridge.dataDir, 'audit', 'audit.jsonl'));
      assert.ok(audit.includes(Buffer.from(KEPT)), 'kept in audit.jsonl');
      assert.ok(
        !readFileSync(join(rig.bridge.dataDir, 'tool-calls.jsonl')).includes(Buffer.from(KEPT)),
        'never in the journal',
      );
    } finally {
      assert.equal((await putPolicies({ audit_typed_text: 'digest' })).audit_typed_text, 'digest');
    }
    // Back to digest: calls from then on are hashed again.
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: KEPT, clear: true },
        callId('kept-after'),
      ),
    );
    const latest = (await auditEntries()).find((e) => e.tool_id === 'android_type_text');
    assert.match(String(latest?.arguments.text), DIGEST);
  });
});
