/**
 * Part f (#27): what a lab pays for the hand-over and the numbers it watches.
 * - Turnover on the `usb-phone` profile: a lab claim installs an APK, pushes a file, launches
 *   an app and grants a permission; then it signs out and a second claim waits in line. Timed:
 *   the reset itself (the bridge's report) and sign-out → the next claim bound (what the next
 *   agent waits).
 * - `GET /metrics` with 32 phones: scrape time and size, the way Prometheus asks.
 */
import type { Cleanup } from './env';
import { callTool, connectClient, startInProcessBridge, startPhones, waitForDevices } from './env';
import type { Report } from './report';
import { ms, summarize, table } from './stats';
import type { AdbServerRig } from '../test/helpers/adb-server';

const CODE = 'bench-lab-code';

async function upload(url: string, apiKey: string, channel: string, name: string, data: Buffer, type: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  const res = await fetch(`${url}/files/uploads`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'X-XAgent-Connector-Channel-ID': channel },
    body: form,
  });
  if (res.status !== 200) throw new Error(`upload: HTTP ${res.status}`);
  return String(((await res.json()) as { file_ref: string }).file_ref);
}

export async function labBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  report.section('f. A lab: hand-over between agents and /metrics');
  const rounds = quick ? 2 : 5;
  log('f. turnover on a usb-phone');
  const one = await startPhones(cleanup, adb, ['usb-phone'], 'L');
  const bridge = await startInProcessBridge(cleanup, adb);
  const [deviceId] = await waitForDevices(bridge, [one.serial(0)]);
  const code = await bridge.admin('POST', '/admin/api/access-codes', {
    scope: deviceId,
    code: CODE,
    require_approval: false,
  });
  if (code.status !== 200) throw new Error('access code');
  await bridge.admin('PUT', '/admin/api/policies', {
    defaults: { install_app: 'allow', push_file: 'allow', permission_change: 'allow' },
    per_device: {},
    sensitive_apps: [],
  });
  const state = await bridge.admin('GET', '/admin/api/state');
  const name = String((state.body.devices as Array<{ display_name: string }>)[0]?.display_name);
  const client = await connectClient(cleanup, bridge, 'lab client');
  const claim = async (): Promise<{ channel: string; session: string; status: string }> => {
    const opened = await client.request('channel.open', {}, '');
    const channel = String(opened.payload?.connector_channel_id);
    const ack = await client.request(
      'auth.start',
      { flow_id: 'device_claim', input: { device: name, access_code: CODE } },
      channel,
    );
    return { channel, session: String(ack.payload?.auth_session_id), status: String(ack.payload?.status) };
  };
  const resets: number[] = [];
  const waits: number[] = [];
  let first = await claim();
  for (let round = 0; round < rounds; round += 1) {
    const pkg = `com.bench.lab${round}`;
    const apk = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.from(`AndroidManifest.xml package=${pkg} `),
      Buffer.alloc(64 * 1024, 1),
    ]);
    const ref = await upload(bridge.url, bridge.apiKey, first.channel, 'lab.apk', apk, 'application/octet-stream');
    await callTool(client, first.channel, 'android_install_apk', { file_ref: ref });
    const file = await upload(
      bridge.url,
      bridge.apiKey,
      first.channel,
      `f${round}.txt`,
      Buffer.from('x'),
      'text/plain',
    );
    await callTool(client, first.channel, 'android_push_file', { file_ref: file });
    await callTool(client, first.channel, 'android_launch_app', { package: 'com.example.notes' });
    await callTool(client, first.channel, 'android_grant_permission', {
      package: 'com.example.notes',
      permission: 'android.permission.CAMERA',
    });
    const next = await claim();
    if (next.status !== 'pending') throw new Error(`the second claim is ${next.status}`);
    const signedOut = performance.now();
    await client.request('auth.logout', {}, first.channel);
    for (;;) {
      const status = await client.request(
        'auth.status',
        { flow_id: 'device_claim', auth_session_id: next.session },
        next.channel,
      );
      if (status.payload?.status === 'authenticated') break;
      if (status.payload?.status !== 'pending') throw new Error(`claim ${String(status.payload?.status)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    waits.push(performance.now() - signedOut);
    const after = await bridge.admin('GET', '/admin/api/state');
    const turnover = (after.body.devices as Array<{ turnover?: { duration_ms: number; state: string } }>)[0]?.turnover;
    if (turnover?.state !== 'done') throw new Error(`turnover ${turnover?.state}`);
    resets.push(turnover.duration_ms);
    first = next;
  }
  const reset = summarize(resets);
  const wait = summarize(waits);
  report.add(
    table(
      ['usb-phone, per lease: 1 app installed, 1 file pushed, 1 app launched, 1 permission granted', 'n', 'p50', 'max'],
      [
        ['turnover (the reset, as the card reports it)', String(reset.count), ms(reset.p50), ms(reset.max)],
        ['sign-out → the claim in line bound', String(wait.count), ms(wait.p50), ms(wait.max)],
      ],
    ),
  );
  report.add(
    'The reset is five commands on the phone here (`am force-stop`, `pm uninstall`, `rm -f`, `pm revoke`, `input keyevent`); ' +
      'on usb-phone each costs what the simulated phone charges for it (`main/sim/TIMING-SOURCES.md`). ' +
      'The wait also counts the claim noticing (auth.status polled every 25 ms).',
  );

  log('f. /metrics with 32 phones');
  const farmCount = 32;
  const farm = await startPhones(
    cleanup,
    adb,
    Array.from({ length: farmCount }, () => 'instant'),
    'M',
  );
  await waitForDevices(
    bridge,
    Array.from({ length: farmCount }, (_, i) => farm.serial(i)),
  );
  const scrapes: number[] = [];
  let size = 0;
  for (let i = 0; i < (quick ? 20 : 100); i += 1) {
    const started = performance.now();
    const res = await bridge.adminBytes('/metrics');
    scrapes.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`/metrics: HTTP ${res.status}`);
    size = res.body.length;
  }
  const scrape = summarize(scrapes);
  report.add(
    table(
      ['GET /metrics, 33 phones listed (32 instant + the usb-phone above), loopback', 'n', 'p50', 'p95', 'size'],
      [['scrape', String(scrape.count), ms(scrape.p50), ms(scrape.p95), `${(size / 1024).toFixed(1)} KiB`]],
    ),
  );
}
