/**
 * Limits changed through the admin API while the bridge runs, end to end over real sockets:
 * xAgent client → bridge → real adb server → simulated phone (its argv log proves what ran).
 * A shorter approval countdown refuses the next held call in ~2 s with nothing run, a queue
 * depth of 1 refuses the next control call, cache limits show in the state, bad PATCHes are
 * 400s naming the field, and a restart on the same data dir keeps what was saved (a start
 * option still wins).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { type Json } from '../helpers/acks';
import { answerApproval, waitForApproval } from '../helpers/approvals';
import { startBridge } from '../helpers/bridge';
import { createIpcHandlers } from '../../main/electron/ipc-handlers';
import { ipcChannel } from '../../main/contract/ipc-api';
import { XAgentClient } from '../helpers/xagent-client';

describe('limits changed over the admin API take effect at once', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let deviceId: string;
  let n = 0;
  const callId = (name: string): string => `call_limits_${name}_${process.pid}_${++n}`;
  const argv = (): string[][] => rig.phones[0]!.argvLog;

  async function patch(limits: unknown): Promise<{ status: number; body: Json }> {
    return rig.bridge.admin('PATCH', '/admin/api/settings', { limits });
  }

  before(async () => {
    rig = await startDeviceRig(1);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    deviceId = rig.device(0).deviceId;
    channel = await bindChannel(rig, client, deviceId);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('approval countdown of 2 s: the next held call is refused with approval_timeout after ~2 s and nothing ran', async () => {
    const res = await patch({ approval_timeout_ms: 2000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.limits.approval_timeout_ms, 2000);
    assert.deepEqual(res.body.limit_sources.approval_timeout_ms, { from: 'saved', start_option: null });
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    assert.equal((state.body.limits as Json).approval_timeout_ms, 2000);

    const link = 'market://details?id=com.example.countdown';
    const from = argv().length;
    const started = Date.now();
    const call = invoke(client, channel, 'android_open_url', { url: link }, callId('countdown'));
    const approval = await waitForApproval(rig.bridge, 'android_open_url');
    assert.equal(approval.expires_at - approval.created_at, 2000);
    const ack = await call;
    const elapsed = Date.now() - started;
    assert.equal(ack.error?.code, 'approval_timeout', JSON.stringify(ack));
    assert.ok(elapsed >= 1950 && elapsed < 8000, `refused after ${elapsed} ms`);
    assert.ok(
      !argv()
        .slice(from)
        .some((a) => a.includes(link)),
      JSON.stringify(argv().slice(from)),
    );
  });

  test('queue depth 1: a control call behind a held one gets queue_full at once; back to 32 it queues again', async () => {
    const res = await patch({ queue_max_depth: 1, approval_timeout_ms: 60_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    assert.equal((state.body.limits as Json).queue.max_depth, 1);

    const link = 'market://details?id=com.example.queue';
    const from = argv().length;
    const held = invoke(client, channel, 'android_open_url', { url: link }, callId('queue-held'));
    const approval = await waitForApproval(rig.bridge, 'android_open_url');
    const second = await invoke(client, channel, 'android_tap', { x: 120, y: 500 }, callId('queue-second'));
    assert.equal(second.error?.code, 'queue_full', JSON.stringify(second));

    assert.equal((await patch({ queue_max_depth: 32 })).status, 200);
    const third = invoke(client, channel, 'android_tap', { x: 130, y: 500 }, callId('queue-third'));
    await waitUntil(
      () => rig.bridge.core.tools.queue.stats(deviceId).queued === 1,
      5_000,
      'the third call queued behind the held one',
    );
    await answerApproval(rig.bridge, approval, 'deny');
    assert.equal((await held).error?.code, 'approval_denied');
    assert.equal((await third).error, undefined);
    assert.ok(
      !argv()
        .slice(from)
        .some((a) => a.includes(link)),
    );
    assert.equal(
      argv()
        .slice(from)
        .filter((a) => a[0] === 'input' && a[1] === 'tap').length,
      1,
      'only the third call tapped',
    );
  });

  test('file cache TTL and size show in the state; lease values too', async () => {
    const res = await patch({
      file_cache_ttl_ms: 120_000,
      file_cache_max_bytes: 64 * 1024 * 1024,
      file_cache_max_files: 50,
      lease_idle_timeout_ms: null,
      lease_max_duration_ms: 8 * 3_600_000,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const limits = (await rig.bridge.admin('GET', '/admin/api/state')).body.limits as Json;
    assert.deepEqual(limits.file_cache, {
      ttl_ms: 120_000,
      max_bytes: 64 * 1024 * 1024,
      max_files: 50,
      cleanup_interval_ms: 30_000,
    });
    assert.deepEqual(limits.lease, {
      max_duration_ms: 8 * 3_600_000,
      idle_timeout_ms: null,
      disconnect_grace_ms: 600_000,
    });
    // The running lease takes the new idle timeout (none); its end stays as it was agreed (none).
    const row = ((await rig.bridge.admin('GET', '/admin/api/state')).body.channels as Json[]).find(
      (c) => c.connector_channel_id === channel,
    );
    assert.equal(row?.idle_expires_at, null);
    assert.equal(row?.lease_expires_at, null);
    // A screenshot stored now lives 2 min.
    const shot = await invoke(client, channel, 'android_screenshot', {}, callId('shot'));
    const result = shot.payload?.result as Json;
    const file = rig.bridge.core.files.get(String(result.file_ref ?? result.file?.file_ref));
    assert.ok(file, JSON.stringify(result).slice(0, 300));
    assert.equal(file.expiresAt - file.createdAt, 120_000);
  });

  test('a bad PATCH is a 400 invalid_arguments naming the field, and changes nothing', async () => {
    const before = (await rig.bridge.admin('GET', '/admin/api/settings')).body.limits as Json;
    const cases: Array<[unknown, RegExp]> = [
      [{ limits: { approval_timeout_ms: 10 } }, /^limits\.approval_timeout_ms is below its minimum/],
      [
        { limits: { approval_timeout_ms: 2000, queue_max_depth: 5000 } },
        /^limits\.queue_max_depth is above its maximum/,
      ],
      [{ limits: { file_cache_max_bytes: '256MiB' } }, /^limits\.file_cache_max_bytes must be a whole number of bytes/],
      [{ limits: { lease_disconnect_grace_ms: null } }, /^limits\.lease_disconnect_grace_ms cannot be null/],
      [{ limits: { approvalTimeout: 2000 } }, /^limits\.approvalTimeout is not a limit that can be set/],
      [{ limits: 5 }, /^limits must be an object/],
      [{ port: 1 }, /^port is not a setting that can be changed here/],
      [{}, /^nothing to change/],
      [{ language: 'fr' }, /^language must be one of system, en, zh-CN/],
    ];
    for (const [body, message] of cases) {
      const res = await rig.bridge.admin('PATCH', '/admin/api/settings', body);
      const error = res.body.error as Json;
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(error.code, 'invalid_arguments');
      assert.match(error.message, message);
    }
    assert.deepEqual((await rig.bridge.admin('GET', '/admin/api/settings')).body.limits, before);
  });
});

describe("limits over the desktop app's IPC", () => {
  test('patchSettings runs the same checked operation in-process', async () => {
    const bridge = await startBridge();
    try {
      const handlers = createIpcHandlers({
        isTrusted: () => true,
        invoke: (name, args) => bridge.core.admin.invoke(name, args),
      });
      const patch = handlers.get(ipcChannel('patchSettings'))!;
      const ok = (await patch({}, { limits: { lease_idle_timeout_ms: 3_600_000 } })) as Json;
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.value.limits.lease_idle_timeout_ms, 3_600_000);
      assert.equal(bridge.core.limits.get('lease_idle_timeout_ms'), 3_600_000);
      const bad = (await patch({}, { limits: { lease_idle_timeout_ms: 5 } })) as Json;
      assert.equal(bad.ok, false);
      assert.equal(bad.error.code, 'invalid_arguments');
      assert.match(bad.error.message, /^limits\.lease_idle_timeout_ms is below its minimum/);
      const state = (await handlers.get(ipcChannel('getState'))!({}, undefined)) as Json;
      assert.equal(state.value.limits.lease.idle_timeout_ms, 3_600_000);
    } finally {
      await bridge.stop();
    }
  });
});

describe('limits across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bridge-limits-restart-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('saved limits are kept on the same data dir; a start option wins over the saved value', async () => {
    const first = await startBridge({}, dataDir);
    try {
      const res = await first.admin('PATCH', '/admin/api/settings', {
        limits: {
          approval_timeout_ms: 2000,
          queue_max_depth: 3,
          file_cache_ttl_ms: 90_000,
          file_cache_max_bytes: 32 * 1024 * 1024,
          lease_max_duration_ms: 3_600_000,
        },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } finally {
      await first.stop();
    }

    const second = await startBridge({}, dataDir);
    try {
      const settings = (await second.admin('GET', '/admin/api/settings')).body as Json;
      assert.equal(settings.limits.approval_timeout_ms, 2000);
      assert.equal(settings.limits.queue_max_depth, 3);
      assert.equal(settings.limits.file_cache_ttl_ms, 90_000);
      assert.equal(settings.limits.lease_max_duration_ms, 3_600_000);
      assert.deepEqual(settings.limit_sources.queue_max_depth, { from: 'saved', start_option: null });
      assert.deepEqual(settings.limit_sources.lease_idle_timeout_ms, { from: 'default', start_option: null });
      const state = (await second.admin('GET', '/admin/api/state')).body as Json;
      assert.equal(state.limits.approval_timeout_ms, 2000);
      assert.equal(state.limits.queue.max_depth, 3);
      assert.deepEqual(state.limits.file_cache, {
        ttl_ms: 90_000,
        max_bytes: 32 * 1024 * 1024,
        max_files: 500,
        cleanup_interval_ms: 30_000,
      });
      assert.deepEqual(state.warnings, []);
    } finally {
      await second.stop();
    }

    const third = await startBridge(
      { approvalTimeoutMs: 5000, limitOrigins: { approval_timeout_ms: '--approval-timeout' } },
      dataDir,
    );
    try {
      const settings = (await third.admin('GET', '/admin/api/settings')).body as Json;
      assert.equal(settings.limits.approval_timeout_ms, 5000);
      assert.deepEqual(settings.limit_sources.approval_timeout_ms, {
        from: 'start',
        start_option: '--approval-timeout',
      });
      assert.equal(settings.limits.queue_max_depth, 3, 'the other saved values still apply');
    } finally {
      await third.stop();
    }
  });
});
