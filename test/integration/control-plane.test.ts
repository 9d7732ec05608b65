import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { validateCard } from '../helpers/schemas';

describe('control plane', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge();
  });
  after(() => bridge.stop());

  test('the Card validates against the wire schema and keeps the hard rules', async () => {
    const res = await fetch(`${bridge.url}/connector-card.json`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const card = JSON.parse(text) as Record<string, any>;
    assert.deepEqual(validateCard(card), []);
    assert.equal(card.connector_card_id, 'device.adb');
    assert.deepEqual(card.supports.profiles, ['xagent.device.v1']);
    assert.deepEqual(card.supports.targets, [{ target_type: 'device', provider: 'adb', label: 'Android Device' }]);
    assert.equal(card.supports.user_channel_mode, 'multiple');
    assert.equal(card.security.api_key_required, true);
    assert.equal(card.security.trust_level, 'local');
    assert.ok(!('server_base_url' in card));
    const ids = new Set<string>();
    for (const tool of card.tools as Array<Record<string, any>>) {
      assert.match(tool.tool_id, /^android_[a-z_]+$/);
      assert.ok(!ids.has(tool.tool_id), `duplicate ${tool.tool_id}`);
      ids.add(tool.tool_id);
      assert.equal(tool.profile, 'xagent.device.v1');
      assert.equal(tool.input_schema.type, 'object');
      assert.equal(tool.input_schema.properties.connector_channel_id.type, 'string');
      assert.ok(tool.input_schema.required.includes('connector_channel_id'));
      assert.ok(!('connector_card_id' in tool.input_schema.properties));
      assert.deepEqual(tool.related_skill_ids, ['connector-device-adb']);
    }
    for (const flow of card.auth_flows as Array<Record<string, any>>) {
      if (flow.type === 'form') {
        assert.ok(flow.fields.length > 0);
        for (const field of flow.fields) if (field.input_type === 'password') assert.equal(field.secret, true);
      }
    }
    assert.ok(!text.includes(bridge.apiKey), 'the API key must never appear in the Card');
    assert.ok(!text.includes(bridge.adminToken));
  });

  test('the Skill is public Markdown named connector-device-adb without secrets', async () => {
    const res = await fetch(`${bridge.url}/skill.md`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/markdown/);
    const text = await res.text();
    assert.match(text, /^---\nname: connector-device-adb\n/);
    assert.ok(!text.includes(bridge.apiKey));
    const card = (await (await fetch(`${bridge.url}/connector-card.json`)).json()) as {
      tools: Array<{ tool_id: string }>;
    };
    for (const tool of card.tools) assert.ok(text.includes(tool.tool_id), `${tool.tool_id} in the skill`);
  });

  test('/health needs the key and reports the Card build', async () => {
    assert.equal((await fetch(`${bridge.url}/health`)).status, 401);
    assert.equal(
      (await fetch(`${bridge.url}/health`, { headers: { Authorization: 'Bearer wrong-key-wrong-key' } })).status,
      401,
    );
    const res = await fetch(`${bridge.url}/health`, { headers: { Authorization: `Bearer ${bridge.apiKey}` } });
    assert.equal(res.status, 200);
    const health = (await res.json()) as Record<string, unknown>;
    const card = (await (await fetch(`${bridge.url}/connector-card.json`)).json()) as Record<string, any>;
    assert.equal(health.status, 'ok');
    assert.equal(health.connector_card_id, 'device.adb');
    assert.equal(health.protocol_version, '3.0');
    assert.equal(health.connector_card_version, card.connector.version);
    assert.deepEqual(health.build, card.build);
  });

  test('unknown paths answer 404 with a stable error body', async () => {
    const res = await fetch(`${bridge.url}/nope`);
    assert.equal(res.status, 404);
    assert.deepEqual(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
  });
});
