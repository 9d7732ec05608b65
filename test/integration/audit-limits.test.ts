/**
 * The audit trail's bounds are core options: a bridge started with small ones rotates early
 * and keeps only as many files as it was told, while every call still gets its line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveCoreOptions } from '../../main/core/config/core-options';
import { bindChannel, invoke, startDeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';

test('audit options are checked like every other limit', () => {
  assert.throws(() => resolveCoreOptions({ dataDir: '/tmp/x', audit: { maxFiles: 0 } }), /audit\.maxFiles/);
  assert.throws(() => resolveCoreOptions({ dataDir: '/tmp/x', audit: { maxFileBytes: 1.5 } }), /audit\.maxFileBytes/);
  assert.deepEqual(resolveCoreOptions({ dataDir: '/tmp/x', audit: { maxScreenshots: 3 } }).audit, {
    maxScreenshots: 3,
  });
});

test('a bridge with small audit limits rotates and keeps only maxFiles files', async (t) => {
  const rig = await startDeviceRig(1, { audit: { maxFileBytes: 2048, maxFiles: 2 } });
  t.after(() => rig.stop());
  const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
  t.after(() => client.close());
  await client.hello();
  const channel = await bindChannel(rig, client, rig.device(0).deviceId);
  for (let i = 0; i < 40; i++) {
    const ack = await invoke(client, channel, 'android_press_key', { key: 'back' });
    assert.equal(ack.error, undefined, JSON.stringify(ack.error));
  }
  const auditDir = join(rig.bridge.dataDir, 'audit');
  const files = readdirSync(auditDir).filter((name) => name.endsWith('.jsonl'));
  assert.equal(files.length, 2, `kept: ${files.join(', ')}`);
  for (const name of files) assert.ok(statSync(join(auditDir, name)).size <= 2048 + 1024, `${name} rotated near 2 KiB`);
  const latest = await rig.bridge.admin('GET', '/admin/api/audit?limit=5');
  assert.equal((latest.body.entries as Array<{ tool_id: string }>)[0]?.tool_id, 'android_press_key');
});
