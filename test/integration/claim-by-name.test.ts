/**
 * A lab claim names the phone as a person does (#37 point 1), over the real data plane: a
 * spec-following xAgent client → bridge → real adb server → three simulated phones (Pixel 7
 * ···4F2A, Galaxy S23 ···4F2B, Pixel 7 ···4F2C). By model, by the label's end, by serial, by
 * the label without its mark; "Pixel 7" fits two and "Nokia" none, and both answers list the
 * labels to choose from.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient, type Packet } from '../helpers/xagent-client';

const CODE = 'lab-code-1234';

let rig: DeviceRig;
let client: XAgentClient;

before(async () => {
  rig = await startDeviceRig(3, { lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 } });
  const set = await rig.bridge.admin('POST', '/admin/api/access-codes', {
    scope: '*',
    code: CODE,
    require_approval: false,
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  // Each phone is claimed more than once here; the reset between leases is turnover.test.ts's subject.
  const policy = await rig.bridge.admin('PUT', '/admin/api/turnover', {
    claims: false,
    approvals: false,
    clear_data: [],
    devices: {},
  });
  assert.equal(policy.status, 200, JSON.stringify(policy.body));
  client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
  assert.equal((await client.hello('')).type, 'connector.hello.ack');
});
after(async () => {
  await client?.close().catch(() => undefined);
  await rig?.stop();
});

async function claim(device: string): Promise<{ channelId: string; ack: Packet }> {
  const opened = await client.openChannel('');
  assert.equal(opened.type, 'channel.open.ack', JSON.stringify(opened.error));
  const channelId = String(opened.payload?.connector_channel_id);
  const ack = await client.request(
    'auth.start',
    { flow_id: 'device_claim', input: { device, access_code: CODE } },
    channelId,
  );
  return { channelId, ack };
}

/** Claims by these words, checks which phone was bound, and lets it go again. */
async function claimsPhone(words: string, phone: number): Promise<void> {
  const { channelId, ack } = await claim(words);
  assert.equal(ack.payload?.status, 'authenticated', `${words}: ${JSON.stringify(ack.payload)}`);
  assert.equal(rig.bridge.core.bindings.leaseHolder(rig.device(phone).deviceId), channelId, words);
  assert.equal((await client.request('auth.logout', {}, channelId)).payload?.status, 'ok');
}

test('a claim finds the phone by its model, its label’s end, its serial, or its label without the mark', async () => {
  await claimsPhone('galaxy s23', 1);
  await claimsPhone('4F2A', 0);
  await claimsPhone('4f2c', 2);
  await claimsPhone('simtest1a4f2b', 1); // the serial on the phone's own label (ro.serialno)
  await claimsPhone(rig.device(2).serial, 2); // adb's serial, the network address, typed whole
  await claimsPhone('Pixel 7 4F2A', 0);
  await claimsPhone('Pixel 7 ···4F2C', 2);
  await claimsPhone(rig.device(0).deviceId, 0);
});

test('words that fit two phones, or none, fail with the labels to choose from', async () => {
  const two = await claim('Pixel 7');
  assert.equal(two.ack.payload?.status, 'failed');
  assert.equal(
    two.ack.payload?.message,
    '"Pixel 7" could be 2 phones here: Pixel 7 ···4F2A, Pixel 7 ···4F2C. Claim again with one label, or with its last 4 characters (for example "4F2A").',
  );
  assert.deepEqual(two.ack.payload?.candidates, ['Pixel 7 ···4F2A', 'Pixel 7 ···4F2C']);
  const none = await claim('Nokia 3310');
  assert.equal(none.ack.payload?.status, 'failed');
  assert.match(String(none.ack.payload?.message), /^No phone here goes by "Nokia 3310"\. Phones here: /);
  assert.deepEqual(none.ack.payload?.candidates, ['Galaxy S23 ···4F2B', 'Pixel 7 ···4F2A', 'Pixel 7 ···4F2C']);
  // No label carries a serial or an address.
  const text = JSON.stringify([two.ack.payload, none.ack.payload]);
  for (const phone of rig.farm.phones) assert.ok(!text.includes(phone.serial), `leaks ${phone.serial}`);
  for (const i of [0, 1, 2]) assert.equal(rig.bridge.core.bindings.leaseHolder(rig.device(i).deviceId), undefined);
});
