/**
 * ApprovalGate on its own: a call the policy asks about (a non-web link) is held with the
 * phone's screen and its redacted arguments, and ends as the person decides: approved once,
 * approved for the lease, refused, or no answer before the countdown. Real policy store,
 * file cache, URL signer, event hub and audit log in a temp folder; the phone is a
 * FakeDeviceShell that answers only the screenshot.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventHub } from '../../main/core/events/event-hub';
import { BridgeError } from '../../main/core/errors';
import { FileCache } from '../../main/core/files/file-cache';
import { UrlSigner } from '../../main/core/files/signed-url';
import { silentLogger } from '../../main/core/logging/logger';
import { ApprovalGate } from '../../main/core/safety/approval-gate';
import { AuditLog } from '../../main/core/safety/audit-log';
import { PolicyStore } from '../../main/core/safety/policies';
import type { GateDecision } from '../../main/core/tools/tool-call';
import { fakeToolCall } from '../helpers/tool-calls';
import { StateStore } from '../../main/core/store/state-store';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

const SECRET = 'an-api-key-that-must-not-show-1234';

/** A raw `screencap` frame (12-byte header, RGBA_8888) of a small grey screen. */
function rawFrame(width = 8, height = 16): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(width, 0);
  header.writeUInt32LE(height, 4);
  header.writeUInt32LE(1, 8);
  return Buffer.concat([header, Buffer.alloc(width * height * 4, 0x80)]);
}

describe('ApprovalGate', () => {
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  // The gate's countdown timer is unref'd (it must not keep a stopping bridge alive); in the
  // bridge the server keeps the process running, here this does.
  let keepAlive: NodeJS.Timeout | undefined;
  before(() => {
    keepAlive = setInterval(() => undefined, 60_000);
  });
  after(async () => {
    clearInterval(keepAlive);
    for (const stop of stops) await stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A gate over real stores in a fresh temp folder; `lease` is the channel's lease identity. */
  async function makeGate(
    approvalTimeoutMs = 60_000,
  ): Promise<{ gate: ApprovalGate; hub: EventHub; lease: { id: number | undefined } }> {
    const dir = mkdtempSync(join(tmpdir(), 'approval-gate-'));
    dirs.push(dir);
    const hub = new EventHub(0);
    const lease = { id: 1 as number | undefined };
    const files = new FileCache({ dir: join(dir, 'files') });
    await files.start();
    const audit = new AuditLog({ dir: join(dir, 'audit'), secrets: () => [SECRET], logger: silentLogger });
    stops.push(
      () => files.stop(),
      () => audit.close(),
      async () => hub.close(),
    );
    const gate = new ApprovalGate({
      policies: new PolicyStore(new StateStore(dir)),
      files,
      signer: new UrlSigner(Buffer.alloc(32, 7)),
      hub,
      audit,
      logger: silentLogger,
      clock: Date.now,
      approvalTimeoutMs,
      downloadUrlTtlMs: 60_000,
      probeTimeoutMs: 5_000,
      leaseId: () => lease.id,
      redaction: () => ({ secrets: [SECRET] }),
    });
    return { gate, hub, lease };
  }

  /** A call to open a non-web link (asks under the default policy; needs no screen read). */
  function linkCall(url = 'market://details?id=com.example.app', signal = new AbortController().signal) {
    return fakeToolCall({
      toolId: 'android_open_url',
      args: { url },
      shell: new FakeDeviceShell().on(['screencap'], rawFrame()),
      signal,
    });
  }

  /** Resolves with the approval id once the hub announces a held call. */
  function nextHeld(hub: EventHub): Promise<string> {
    return new Promise((resolve) => {
      const listener = (event: { type: string; approval_id?: unknown; outcome?: unknown }): void => {
        if (event.type !== 'approval' || event.outcome !== 'pending') return;
        hub.off('event', listener);
        resolve(String(event.approval_id));
      };
      hub.on('event', listener);
    });
  }

  test('a held call shows the person what it is, runs nothing until approved, and is allowed by the admin', async () => {
    const { gate, hub } = await makeGate();
    const call = linkCall(`market://details?id=com.example.app&key=${SECRET}`);
    const held = nextHeld(hub);
    const decided = gate.decide(call);
    const approvalId = await held;
    assert.deepEqual(call.progressed, ['waiting_approval'], 'the agent hears it is waiting');
    const [approval] = gate.list();
    assert.ok(approval);
    assert.equal(approval.approval_id, approvalId);
    assert.equal(approval.tool_id, 'android_open_url');
    assert.deepEqual(approval.risk_classes, ['non_web_url']);
    assert.ok(!JSON.stringify(approval.arguments).includes(SECRET), JSON.stringify(approval.arguments));
    assert.match(String(approval.screenshot_url), /sig=/, 'the screen at the moment it was held');
    // For the card's words: the reason as a code, the screen size the marker would use; no app in front was read.
    assert.deepEqual(approval.reasons, [{ code: 'non_web_url', params: { scheme: 'market' } }]);
    assert.deepEqual(approval.action, {
      target: null,
      swipe: null,
      file_name: null,
      screen_size: { width: 8, height: 16 },
    });
    assert.equal(approval.app, null);

    gate.answer(approvalId, 'approve');
    const decision: GateDecision = await decided;
    assert.equal(decision.decision, 'allow');
    assert.equal(decision.by, 'admin');
    assert.equal(decision.safety?.approval_id, approvalId);
    // The agent hears the same reason in English.
    assert.deepEqual(decision.reasons, ['It opens a non-web link (market:), which can start any app']);
    assert.deepEqual(gate.list(), []);
    assert.throws(
      () => gate.answer(approvalId, 'approve'),
      (e) => e instanceof BridgeError && e.code === 'approval_not_found',
    );
  });

  test('refused: denied with approval_denied', async () => {
    const { gate, hub } = await makeGate();
    const held = nextHeld(hub);
    const decided = gate.decide(linkCall());
    gate.answer(await held, 'deny');
    const decision = await decided;
    assert.deepEqual([decision.decision, decision.by, decision.errorCode], ['deny', 'admin', 'approval_denied']);
    assert.deepEqual(gate.list(), []);
  });

  test('no answer before the countdown ends: denied with approval_timeout, and the approval is gone', async () => {
    const { gate } = await makeGate(40);
    const decision = await gate.decide(linkCall());
    assert.deepEqual([decision.decision, decision.by, decision.errorCode], ['deny', 'timeout', 'approval_timeout']);
    assert.ok(
      decision.reasons.some((r) => /no answer within/.test(r)),
      JSON.stringify(decision.reasons),
    );
    assert.deepEqual(gate.list(), []);
  });

  test('the call is stopped while held: canceled, never allowed', async () => {
    const { gate, hub } = await makeGate();
    const stop = new AbortController();
    const held = nextHeld(hub);
    const decided = gate.decide(linkCall(undefined, stop.signal));
    await held;
    stop.abort();
    const decision = await decided;
    assert.deepEqual([decision.decision, decision.errorCode], ['deny', 'canceled']);
    assert.deepEqual(gate.list(), []);
  });

  test('approved for the lease: the same kind of call passes without asking until the lease ends', async () => {
    const { gate, hub, lease } = await makeGate();
    const held = nextHeld(hub);
    const first = gate.decide(linkCall());
    gate.answer(await held, 'approve_for_lease');
    assert.equal((await first).by, 'admin_for_lease');

    const second = await gate.decide(linkCall('market://details?id=com.example.other'));
    assert.deepEqual([second.decision, second.by], ['allow', 'lease_approval']);

    // A new lease (bound again) does not inherit the grant.
    lease.id = 2;
    const heldAgain = nextHeld(hub);
    const third = gate.decide(linkCall());
    gate.answer(await heldAgain, 'deny');
    assert.equal((await third).errorCode, 'approval_denied');
  });
});
