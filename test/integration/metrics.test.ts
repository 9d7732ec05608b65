/**
 * GET /metrics (#27 "Numbers to watch"), through a real adb server, simulated phones and a
 * real xAgent client: the Prometheus text is read back with a real parser
 * (parse-prometheus-text-format) and its numbers are compared with what happened — the calls
 * made, by tool, lane and outcome, their latency histogram, an approval refused by the person,
 * the phones, the lease, each phone's line and the file cache. Who may scrape: the admin
 * token (wrong tokens count toward the admin lockout), or, with --allow-from, the clients it
 * admits and only under the bridge's own names (DNS rebinding); everyone else gets a stable
 * error code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { result } from '../helpers/acks';
import { decideApproval } from '../helpers/approvals';
import { startBridge, TEST_ADMIN_TOKEN } from '../helpers/bridge';
import { urlRequest } from '../helpers/url-request';
import { CONNECTOR_VERSION } from '../../main/core/protocol/identity';

const auth = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
type Families = ReturnType<typeof parsePrometheusTextFormat>;

async function scrapeText(url: string): Promise<string> {
  const res = await urlRequest(`${url}/metrics`, { headers: auth });
  assert.equal(res.status, 200, res.body.toString('utf8'));
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return res.body.toString('utf8');
}

/** One scrape, read with a real parser (it throws on a malformed line). */
async function scrape(url: string): Promise<Families> {
  return parsePrometheusTextFormat(await scrapeText(url));
}

/** The value of the sample of `name` whose labels include `labels` (undefined when absent). */
function sample(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  const hit = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => (m.labels ?? {})[k] === v));
  if (!hit) return undefined;
  return Number(hit.value ?? hit.count);
}

describe('GET /metrics', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  before(async () => {
    rig = await startDeviceRig(2);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('counts the calls made, by tool, lane and outcome, with their latency; the phones, the lease and the cache as they are', async () => {
    const before = await scrape(rig.bridge.url);
    const okBefore = sample(before, 'device_bridge_tool_calls_total', { tool: 'android_ui_tree', outcome: 'ok' }) ?? 0;
    result(await invoke(client, channel, 'android_device_status'));
    result(await invoke(client, channel, 'android_ui_tree'));
    result(await invoke(client, channel, 'android_ui_tree'));
    result(await invoke(client, channel, 'android_screenshot'));
    const missing = await invoke(client, channel, 'android_tap', { element: { text: 'No such button anywhere' } });
    const missingCode = String(missing.error?.code);
    assert.ok(missing.error, 'the tap on nothing fails');
    const launch = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' });
    await decideApproval(rig.bridge, 'android_launch_app', 'deny');
    assert.equal((await launch).error?.code, 'approval_denied');

    const m = await scrape(rig.bridge.url);
    assert.equal(
      sample(m, 'device_bridge_tool_calls_total', { tool: 'android_ui_tree', outcome: 'ok', lane: 'adb' }),
      okBefore + 2,
    );
    assert.equal(sample(m, 'device_bridge_tool_calls_total', { tool: 'android_device_status', outcome: 'ok' }), 1);
    assert.equal(
      sample(m, 'device_bridge_tool_calls_total', { tool: 'android_tap', outcome: 'error', error_code: missingCode }),
      1,
    );
    assert.equal(sample(m, 'device_bridge_approvals_total', { outcome: 'denied' }), 1);
    assert.equal(m.find((f) => f.name === 'device_bridge_tool_call_duration_seconds')?.type, 'HISTOGRAM');
    // The parser folds a labelled histogram's series into one (it keeps no labels there), so
    // the per-tool series are read from the exposition lines the parser accepted above.
    const text = await scrapeText(rig.bridge.url);
    const line = (suffix: string, labels: string): number =>
      Number(
        new RegExp(`^device_bridge_tool_call_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1],
      );
    const trees = 'tool="android_ui_tree",outcome="ok"';
    assert.equal(line('count', trees), okBefore + 2);
    assert.ok(line('sum', trees) > 0, 'the calls took time');
    assert.equal(line('bucket', `le="\\+Inf",${trees}`), okBefore + 2);
    const state = (await rig.bridge.admin('GET', '/admin/api/state')).body as {
      devices: Array<{ device_id: string; display_name: string }>;
    };
    assert.equal(sample(m, 'device_bridge_phones', { state: 'device' }), 2);
    assert.equal(sample(m, 'device_bridge_phones', { state: 'offline' }), 0, 'a state with no phone is still a series');
    assert.equal(sample(m, 'device_bridge_leases'), 1);
    assert.equal(sample(m, 'device_bridge_approvals_pending'), 0);
    assert.equal(sample(m, 'device_bridge_data_planes'), 1);
    for (const d of state.devices) {
      // Each phone by its id and by the label a person knows it by, one series each.
      assert.match(d.display_name, /^(Pixel 7|Galaxy S23) ···[0-9A-F]{4}$/);
      const labels = { device_id: d.device_id, device_label: d.display_name };
      assert.equal(sample(m, 'device_bridge_queue_waiting', labels), 0);
      assert.equal(sample(m, 'device_bridge_queue_running', labels), 0);
      assert.equal(sample(m, 'device_bridge_claim_line_waiting', labels), 0);
    }
    for (const name of ['device_bridge_queue_waiting', 'device_bridge_queue_running'])
      assert.equal(
        m.find((f) => f.name === name)?.metrics.length,
        state.devices.length,
        `${name}: one series per phone`,
      );
    assert.equal(sample(m, 'device_bridge_adb_servers', { status: 'connected' }), 1);
    // Per host: the ADB server's HOST:PORT names it.
    const host = `127.0.0.1:${rig.adb.port}`;
    assert.equal(sample(m, 'device_bridge_host_up', { host, via: 'direct' }), 1);
    assert.equal(sample(m, 'device_bridge_host_phones', { host, state: 'device' }), 2);
    assert.equal(sample(m, 'device_bridge_host_phones', { host, state: 'other' }), 0);
    assert.ok((sample(m, 'device_bridge_host_rtt_seconds', { host }) ?? -1) >= 0, 'a round trip was measured');
    assert.equal(sample(m, 'device_bridge_host_reconnects_total', { host }), 0);
    const hosts = (await rig.bridge.admin('GET', '/admin/api/hosts')).body as {
      hosts: Array<{ address: string; state: string; phones: number; phones_online: number; via: string }>;
    };
    assert.deepEqual(
      hosts.hosts.map((h) => [h.address, h.via, h.state, h.phones, h.phones_online]),
      [[host, 'direct', 'connected', 2, 2]],
    );
    const files = rig.bridge.core.files.stats();
    assert.ok(files.files >= 1, 'the screenshot is in the cache');
    assert.equal(sample(m, 'device_bridge_file_cache_files'), files.files);
    assert.equal(sample(m, 'device_bridge_file_cache_bytes'), files.bytes);
    assert.equal(sample(m, 'device_bridge_build_info', { connector_version: CONNECTOR_VERSION }), 1);
    assert.ok(sample(m, 'device_bridge_process_resident_memory_bytes')! > 0, 'process metrics too');
    for (const family of m) assert.match(family.name, /^device_bridge_[a-z0-9_]+$/, 'one prefix, snake case');
  });

  test('no token or a wrong one: 401 unauthorized; the API key is not the admin token; the key never appears', async () => {
    const none = await urlRequest(`${rig.bridge.url}/metrics`);
    assert.equal(none.status, 401);
    assert.equal(none.json<{ error: { code: string } }>().error.code, 'unauthorized');
    const withApiKey = await urlRequest(`${rig.bridge.url}/metrics`, {
      headers: { Authorization: `Bearer ${rig.bridge.apiKey}` },
    });
    assert.equal(withApiKey.status, 401, "the agent's key does not read the lab's numbers");
    const ok = await urlRequest(`${rig.bridge.url}/metrics`, { headers: auth });
    assert.ok(!ok.body.toString('utf8').includes(rig.bridge.apiKey), 'no API key in the scrape');
    assert.ok(!ok.body.toString('utf8').includes(TEST_ADMIN_TOKEN), 'no admin token in the scrape');
    const post = await urlRequest(`${rig.bridge.url}/metrics`, { method: 'POST', headers: auth });
    assert.equal(post.status, 405);
  });
});

describe('GET /metrics with --allow-from', () => {
  test('a client --allow-from admits scrapes without a token; a wrong token is still refused', async () => {
    const bridge = await startBridge({ network: { allowFrom: ['127.0.0.0/8', '::1/128'] } });
    try {
      const open = await urlRequest(`${bridge.url}/metrics`);
      assert.equal(open.status, 200);
      assert.ok(parsePrometheusTextFormat(open.body.toString('utf8')).some((f) => f.name === 'device_bridge_phones'));
      const wrong = await urlRequest(`${bridge.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } });
      assert.equal(wrong.status, 401);
    } finally {
      await bridge.stop();
    }
  });

  test("without a token only under the bridge's own names: a DNS-rebound page cannot read it (421)", async () => {
    const bridge = await startBridge({ network: { allowFrom: ['127.0.0.0/8', '::1/128'] } });
    try {
      const port = new URL(bridge.url).port;
      const rebound = await urlRequest(`${bridge.url}/metrics`, { headers: { Host: `evil.example:${port}` } });
      assert.equal(rebound.status, 421);
      assert.equal(rebound.json<{ error: { code: string } }>().error.code, 'host_not_allowed');
      assert.ok(!rebound.body.toString('utf8').includes('device_bridge_'), 'no numbers in the refusal');
      const own = await urlRequest(`${bridge.url}/metrics`, { headers: { Host: `localhost:${port}` } });
      assert.equal(own.status, 200);
    } finally {
      await bridge.stop();
    }
  });

  test('a client outside --allow-from is refused 403 even with the admin token', async () => {
    const bridge = await startBridge({ network: { allowFrom: ['10.0.0.0/8'] } });
    try {
      const refused = await urlRequest(`${bridge.url}/metrics`, { headers: auth });
      assert.equal(refused.status, 403);
    } finally {
      await bridge.stop();
    }
  });
});
