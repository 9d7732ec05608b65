/**
 * A call that cannot run is refused at once, with its code, and never shown to the person for
 * approval (issue #36 point 5): over the real adb server, on the simulated Wallet, where every
 * tap is held by the default policy. Each call below would have been held (a card over the
 * Wallet's screen) and failed only after Approve, or waited out the whole countdown.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { pendingApprovals } from '../helpers/approvals';
import type { Ack } from '../helpers/acks';

/** Long enough that a call held by mistake fails the test by its own deadline, not by an answer. */
const APPROVAL_TIMEOUT_MS = 120_000;
/** A refusal needs no person: it comes well within this. */
const AT_ONCE_MS = 10_000;

describe('calls that cannot run are refused before anyone is asked', () => {
  let bound: BoundRig;
  let announced = 0;
  let callN = 0;
  const callId = (name: string): string => `call_${name}_${process.pid}_${++callN}`;

  async function phoneShell(line: string): Promise<void> {
    const out = await bound.rig.phones[0]!.exec(line, { signal: AbortSignal.timeout(10_000) });
    assert.equal(out.exitCode, 0, out.stderr.toString());
  }

  /** The call's ack, which must come without anyone answering, and no card was ever shown for it. */
  async function refusedAtOnce(toolId: string, args: Record<string, unknown>): Promise<Ack> {
    const before = announced;
    const from = bound.rig.phones[0]!.argvLog.length;
    const ack = await Promise.race([
      invoke(bound.client, bound.channel, toolId, args, callId(toolId)),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${toolId} was not answered at once (held?)`)), AT_ONCE_MS).unref(),
      ),
    ]);
    assert.ok(ack.error, `${toolId} ${JSON.stringify(args)} ran: ${JSON.stringify(ack.payload)}`);
    assert.deepEqual(await pendingApprovals(bound.rig.bridge), []);
    assert.equal(announced, before, 'an approval was announced for a call that cannot run');
    const inputs = bound.rig.phones[0]!.argvLog.slice(from).filter((a) => a[0] === 'input' || a[0] === 'am');
    assert.deepEqual(inputs, [], 'nothing reaches the phone');
    return ack;
  }

  before(async () => {
    bound = await startBoundRig({ approvalTimeoutMs: APPROVAL_TIMEOUT_MS });
    bound.rig.bridge.core.hub.on('event', (event) => {
      if (event.type === 'approval') announced += 1;
    });
    await phoneShell('am start -n com.example.wallet/com.example.wallet.WalletActivity');
    await waitUntil(() => bound.rig.phones[0]!.foregroundPackage() === 'com.example.wallet', 5_000, 'wallet');
  });
  after(async () => {
    await bound?.stop();
  });

  test('a tap with no target is invalid_arguments', async () => {
    const ack = await refusedAtOnce('android_tap', {});
    assert.equal(ack.error?.code, 'invalid_arguments');
    assert.match(String(ack.error?.message), /x and y, ref, or element/);
    assert.equal((await refusedAtOnce('android_long_press', { x: 10 })).error?.code, 'invalid_arguments');
  });

  test('a point outside the screen is out_of_bounds, alone or as a batch step', async () => {
    const ack = await refusedAtOnce('android_tap', { x: 99_999, y: 10 });
    assert.equal(ack.error?.code, 'out_of_bounds');
    assert.match(String(ack.error?.message), /outside the screen/);
    const swipe = await refusedAtOnce('android_swipe', { from_x: 10, from_y: 10, to_x: 10, to_y: 90_000 });
    assert.equal(swipe.error?.code, 'out_of_bounds');
    const batch = await refusedAtOnce('android_batch', {
      steps: [
        { tool: 'android_press_key', arguments: { key: 'dpad_down' } },
        { tool: 'android_tap', arguments: { x: 5, y: 80_000 } },
      ],
    });
    assert.equal(batch.error?.code, 'out_of_bounds');
  });

  test('an element the screen does not show is element_not_found', async () => {
    const ack = await refusedAtOnce('android_tap', { element: { text: 'No such button here' } });
    assert.equal(ack.error?.code, 'element_not_found');
    const index = await refusedAtOnce('android_tap', { element: { index: 4 } });
    assert.equal(index.error?.code, 'element_not_found', 'no tree was read on this channel yet');
  });

  test('an unknown secret and a missing file are refused with their codes', async () => {
    const secret = await refusedAtOnce('android_type_text', { secret: 'no-such-secret' });
    assert.equal(secret.error?.code, 'secret_not_found');
    const file = await refusedAtOnce('android_push_file', { file_ref: `file_${'a'.repeat(32)}` });
    assert.equal(file.error?.code, 'file_not_found');
    const apk = await refusedAtOnce('android_install_apk', { file_ref: `file_${'b'.repeat(32)}` });
    assert.equal(apk.error?.code, 'file_not_found');
  });
});
