/**
 * Hardening — load: 32 simulated phones × 4 concurrent callers through the whole bridge
 * (WebSocket → queue → adbkit → real adb server → phone → ack), a mix of control and
 * observation tools. No call may fail; p50/p95/p99, throughput, heap and RSS are reported;
 * memory must be flat afterwards (heap after full GCs within a fixed bound of before,
 * whatever the number of calls, i.e. no growth per call).
 *
 * `npm test` runs a short version (LOAD_SECONDS, default 15 s). The full two-minute run:
 * `npm run test:hardening` (HARDENING_FULL=1).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { bindChannel, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { mb, openHarmlessApp, percentile, settleHeap } from './helpers';
import { TIMELINE_CAPACITY } from '../../main/core/phone-view/action-timeline';

const FULL = process.env.HARDENING_FULL === '1';
const SECONDS = Number(process.env.LOAD_SECONDS ?? (FULL ? 120 : 15));
const PHONES = Number(process.env.LOAD_PHONES ?? 32);
const CALLERS = 4;
/** Heap may differ by this much between before and after the run (GC noise, caches that fill once). */
const FLAT_BOUND = 8 * 1024 * 1024;
/** Below this the difference is noise; above it, it must not add up to a cost per call. */
const NOISE_FLOOR = 2 * 1024 * 1024;
const MAX_BYTES_PER_CALL = 256;

/** A lean data-plane client: no packet log, no schema validation, just request → ack. */
class LoadClient {
  private readonly waiters = new Map<
    string,
    (packet: { type: string; error?: { code: string; message?: string } }) => void
  >();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const packet = JSON.parse((data as Buffer).toString('utf8')) as {
        type: string;
        request_id?: string;
        error?: { code: string };
      };
      if (packet.type === 'tool.progress.push' || !packet.request_id) return;
      const waiter = this.waiters.get(packet.request_id);
      if (waiter) {
        this.waiters.delete(packet.request_id);
        waiter(packet);
      }
    });
  }

  static async connect(url: string, apiKey: string, connectorId: string): Promise<LoadClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, 'xagent.connector.packet.v1', {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new LoadClient(ws);
    await client.send('connector.hello', {
      connector_card_id: 'device.adb',
      connector_id: connectorId,
      protocol_version: '3.0',
      supported_profiles: ['xagent.device.v1'],
    });
    return client;
  }

  send(
    type: string,
    payload: Record<string, unknown>,
    channelId?: string,
  ): Promise<{ type: string; error?: { code: string; message?: string } }> {
    const requestId = `req_${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        reject(new Error(`no ack for ${type} within 60 s`));
      }, 60_000);
      this.waiters.set(requestId, (p) => {
        clearTimeout(timer);
        resolve(p);
      });
      this.ws.send(
        JSON.stringify({
          schema: 'xagent.connector.packet/v1',
          packet_id: `pkt_${randomUUID()}`,
          request_id: requestId,
          type,
          payload,
          ...(channelId ? { connector_channel_id: channelId } : {}),
        }),
      );
    });
  }

  async openChannel(channelId: string): Promise<void> {
    const ack = await this.send('channel.open', {}, channelId);
    if (ack.type !== 'channel.open.ack') throw new Error(`channel.open refused: ${JSON.stringify(ack.error)}`);
  }

  close(): void {
    this.ws.close();
  }
}

// The mix of calls; screenshots are rarer because the encoding is CPU work on this machine.
const MIX: Array<{ tool: string; weight: number; args: (i: number) => Record<string, unknown> }> = [
  { tool: 'android_tap', weight: 45, args: (i) => ({ x: 100 + (i % 800), y: 600 }) },
  { tool: 'android_device_status', weight: 25, args: () => ({}) },
  { tool: 'android_ui_tree', weight: 15, args: () => ({ interactive_only: true }) },
  { tool: 'android_press_key', weight: 13, args: () => ({ key: 'volume_up' }) },
  { tool: 'android_screenshot', weight: 2, args: () => ({}) },
];
const TOTAL_WEIGHT = MIX.reduce((s, m) => s + m.weight, 0);

function pick(r: number): (typeof MIX)[number] {
  let acc = 0;
  for (const m of MIX) {
    acc += m.weight;
    if (r * TOTAL_WEIGHT < acc) return m;
  }
  return MIX[0]!;
}

/** Unique tool_call_ids across the warm-up and the measured run. */
let seq = 0;

describe('hardening: load', () => {
  let rig: DeviceRig;
  let setup: XAgentClient;
  let load: LoadClient;
  const channels: string[] = [];
  /** How far the bridge's clock runs ahead of the wall clock: moved by hand past the idempotency window. */
  let skew = 0;

  before(async () => {
    // Short idempotency window: records of finished calls must leave memory as they expire.
    rig = await startDeviceRig(PHONES, {
      idempotencyWindowMs: 5_000,
      lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 600_000 },
      clock: () => Date.now() + skew,
    });
    setup = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await setup.hello();
    for (let i = 0; i < PHONES; i++) channels.push(await bindChannel(rig, setup, rig.device(i).deviceId));
    for (const c of channels) await openHarmlessApp(setup, c);
    load = await LoadClient.connect(rig.bridge.url, rig.bridge.apiKey, setup.connectorId);
    // A live channel stays with the plane that holds it: setup hands each one over first.
    for (const c of channels) await setup.request('channel.close', {}, c);
    for (const c of channels) await load.openChannel(c);
  });
  after(async () => {
    load?.close();
    await setup?.close();
    await rig?.stop();
  });

  const run = async (
    seconds: number,
    record: boolean,
  ): Promise<{ latencies: Map<string, number[]>; errors: string[]; calls: number }> => {
    const latencies = new Map<string, number[]>(MIX.map((m) => [m.tool, []]));
    const errors: string[] = [];
    let calls = 0;
    const stopAt = Date.now() + seconds * 1000;
    const caller = async (phone: number): Promise<void> => {
      while (Date.now() < stopAt) {
        const op = pick(Math.random());
        const n = seq++;
        const t0 = performance.now();
        const ack = await load.send(
          'tool.invoke',
          {
            tool_id: op.tool,
            arguments: { connector_channel_id: channels[phone], ...op.args(n) },
            context: { tool_call_id: `call_load_${n}_${phone}` },
          },
          channels[phone],
        );
        const ms = performance.now() - t0;
        calls += 1;
        if (ack.error) errors.push(`${op.tool} on phone ${phone}: ${ack.error.code} ${ack.error.message ?? ''}`);
        else if (record) latencies.get(op.tool)!.push(ms);
      }
    };
    await Promise.all(Array.from({ length: PHONES * CALLERS }, (_v, i) => caller(i % PHONES)));
    return { latencies, errors, calls };
  };

  test(`${PHONES} phones × ${CALLERS} callers for ${SECONDS} s: no error, p99 and memory reported, memory flat afterwards`, async () => {
    // Warm until the bounded per-phone stores are full (the phone view keeps the last
    // TIMELINE_CAPACITY calls of each phone): what fills once is not growth per call.
    for (let warmed = 0; warmed < PHONES * (TIMELINE_CAPACITY + 10);) {
      const warm = await run(3, false);
      assert.deepEqual(warm.errors.slice(0, 5), []);
      warmed += warm.calls;
    }
    // The simulated phones log every argv they run (test-side memory); empty the logs before
    // each measurement so the heap figures are the bridge's (and the client's) alone.
    const clearPhoneLogs = (): void => rig.phones.forEach((p) => p.clearArgvLog());
    clearPhoneLogs();
    const heapBefore = await settleHeap();
    const rssBefore = process.memoryUsage().rss;
    const t0 = Date.now();
    const { latencies, errors, calls } = await run(SECONDS, true);
    const elapsed = (Date.now() - t0) / 1000;
    const rssPeak = process.memoryUsage().rss;
    // Every call above has its ack (run() awaits each); their records expire once the bridge's
    // clock is past the window (5 s), moved there by hand rather than waited for.
    skew += 6_000;
    // Exactly-once records expire with their window: one more call after it, and the journal
    // file is compacted down to live records (it is rewritten once stale lines pass 256), so
    // its size tracks live records, not the calls above.
    const last = await load.send(
      'tool.invoke',
      { tool_id: 'android_tap', arguments: { x: 1, y: 1 }, context: { tool_call_id: `call_load_last_${process.pid}` } },
      channels[0],
    );
    assert.equal(last.error, undefined);
    const journalLines = readFileSync(join(rig.bridge.dataDir, 'tool-calls.jsonl'), 'utf8').trim().split('\n').length;
    clearPhoneLogs();
    const heapAfter = await settleHeap();
    const rssAfter = process.memoryUsage().rss;

    const all = [...latencies.values()].flat().sort((a, b) => a - b);
    const lines = [
      `load: ${PHONES} phones × ${CALLERS} callers, ${elapsed.toFixed(1)} s, ${calls} calls, ${(calls / elapsed).toFixed(0)} calls/s, errors ${errors.length}`,
    ];
    lines.push(
      `  all: p50 ${percentile(all, 50).toFixed(1)} ms, p95 ${percentile(all, 95).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms`,
    );
    for (const [tool, values] of latencies) {
      const sorted = [...values].sort((a, b) => a - b);
      lines.push(
        `  ${tool}: n=${sorted.length} p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`,
      );
    }
    const growth = heapAfter - heapBefore;
    lines.push(
      `  heap (after full GC): before ${mb(heapBefore)}, after ${mb(heapAfter)}, growth ${mb(growth)} = ${(growth / Math.max(1, calls)).toFixed(1)} B/call`,
    );
    lines.push(
      `  rss: before ${mb(rssBefore)}, at end of load ${mb(rssPeak)}, after ${mb(rssAfter)} (test process = bridge + client + ${PHONES} simulated phones)`,
    );
    lines.push(`  idempotency journal after the window: ${journalLines} lines`);
    for (const line of lines) console.log(`# ${line}`);

    assert.deepEqual(errors.slice(0, 10), [], `${errors.length} errors`);
    assert.ok(calls > PHONES * CALLERS * 2, `only ${calls} calls`);
    assert.ok(growth < FLAT_BOUND, `heap grew ${mb(growth)} over ${calls} calls`);
    assert.ok(
      growth < NOISE_FLOOR || growth / calls < MAX_BYTES_PER_CALL,
      `heap grew ${(growth / calls).toFixed(0)} B per call`,
    );
    assert.ok(journalLines <= 258, `journal still holds ${journalLines} lines`);
    for (let i = 0; i < PHONES; i++)
      assert.deepEqual(rig.bridge.core.tools.queue.stats(rig.device(i).deviceId), { running: 0, queued: 0 });
    assert.ok(rig.bridge.core.registry.list().every((d) => d.state === 'device'));
  });
});
