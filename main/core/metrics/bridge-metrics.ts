/**
 * `GET /metrics`: what a lab watches in the tools it already runs (Prometheus text format,
 * prom-client). Two kinds of numbers:
 * - counted as they happen: every finished tool call (by tool, lane and outcome, with its
 *   latency) and every approval decision, told by the call pipeline like the audit trail is;
 * - read at scrape time from the same snapshot the console shows (the admin state), so a
 *   scrape and the person's screen never disagree: phones by state, leases, pairings and
 *   approvals waiting, each phone's queue, the fast lane's helpers, the file cache.
 * Names follow Prometheus conventions: `device_bridge_` prefix, base units (seconds, bytes),
 * `_total` for counters. Each core has its own registry (several cores may share a process).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AdminState, AdminTurnover, DeviceStateName } from '../../contract/admin-api';
import type { CallOutcome, CallRecordSink, ToolCall } from '../tools/tool-call';

export const METRICS_PREFIX = 'device_bridge_';

/** Latency buckets (seconds): a fast-lane tap is tens of ms, a stock tree 2 s, an approval minutes. */
const CALL_SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** A phone's label in a series is cut to this many characters (labels are the phone's model and serial tail). */
const LABEL_MAX = 64;

/** Phone states always exported (at 0 when none), so an alert on `offline` has a series to read. */
const PHONE_STATES: readonly DeviceStateName[] = ['device', 'offline', 'unauthorized'];

export interface MetricsSources {
  /** The console's snapshot (admin state); read once per scrape. */
  state(): AdminState;
  /** Files and bytes the screenshot/file cache holds now. */
  cache(): { files: number; bytes: number; maxBytes: number; maxFiles: number };
  build: { version: string; connectorVersion: string };
}

/** How an approval that held a call ended, from the gate's verdict (see approval-gate.ts `decided_by`). */
function approvalOutcome(call: ToolCall, outcome: CallOutcome): string {
  if (outcome.errorCode === 'approval_timeout') return 'timeout';
  if (outcome.errorCode === 'approval_denied') return 'denied';
  if (outcome.errorCode === 'canceled' && call.verdict?.decision !== 'allow') return 'canceled';
  if (call.verdict?.decidedBy === 'admin_for_lease') return 'approved_for_lease';
  return call.verdict?.decision === 'allow' ? 'approved' : 'denied';
}

/** The cache figures the metrics read, from the file cache's own (files/file-cache.ts `stats()`). */
export function cacheFigures(stats: {
  files: number;
  bytes: number;
  limits: { maxBytes: number; maxFiles: number };
}): ReturnType<MetricsSources['cache']> {
  return { files: stats.files, bytes: stats.bytes, maxBytes: stats.limits.maxBytes, maxFiles: stats.limits.maxFiles };
}

export class BridgeMetrics implements CallRecordSink {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'lane' | 'outcome' | 'error_code'>;
  private readonly callSeconds: Histogram<'tool' | 'outcome'>;
  private readonly approvals: Counter<'outcome'>;
  private readonly turnovers: Histogram<'outcome'>;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
    this.calls = new Counter({
      name: `${METRICS_PREFIX}tool_calls_total`,
      help: 'Tool calls the bridge finished, by tool, the lane that served it (adb, helper, scrcpy, ui_reader, snapshot; none when the tool has no choice), outcome and error code.',
      labelNames: ['tool', 'lane', 'outcome', 'error_code'],
      registers,
    });
    this.callSeconds = new Histogram({
      name: `${METRICS_PREFIX}tool_call_duration_seconds`,
      help: 'Time from the bridge taking a tool call to its answer (queue, approval and phone time included).',
      labelNames: ['tool', 'outcome'],
      buckets: CALL_SECONDS_BUCKETS,
      registers,
    });
    this.approvals = new Counter({
      name: `${METRICS_PREFIX}approvals_total`,
      help: 'Calls held for a person, by how they ended: approved, approved_for_lease, denied, timeout, canceled.',
      labelNames: ['outcome'],
      registers,
    });
    this.turnovers = new Histogram({
      name: `${METRICS_PREFIX}turnover_duration_seconds`,
      help: 'Hand-overs after a lease (apps removed, files deleted, Home), by outcome: done or failed.',
      labelNames: ['outcome'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120],
      registers,
    });
    this.scrapeGauges(registers);
  }

  /** A turnover ended (handover/handover.ts). */
  turnoverFinished(report: AdminTurnover): void {
    if (report.duration_ms === null) return;
    this.turnovers.observe({ outcome: report.state === 'failed' ? 'failed' : 'done' }, report.duration_ms / 1000);
  }

  /** Told about every finished call by the call pipeline (tools/call-pipeline.ts), like the audit trail. */
  record(call: ToolCall, outcome: CallOutcome): void {
    const tool = call.tool.id;
    this.calls.inc({
      tool,
      lane: outcome.lane ?? 'none',
      outcome: outcome.outcome,
      error_code: outcome.errorCode ?? '',
    });
    this.callSeconds.observe({ tool, outcome: outcome.outcome }, outcome.durationMs / 1000);
    if (call.verdict?.approvalId) this.approvals.inc({ outcome: approvalOutcome(call, outcome) });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * Gauges read from one admin-state snapshot per scrape: prom-client runs every collect of a
   * scrape in the same turn of the event loop, so the first one takes the snapshot and it is
   * dropped on the next turn.
   */
  private scrapeGauges(registers: Registry[]): void {
    let snapshot: AdminState | null = null;
    const state = (): AdminState => {
      if (snapshot) return snapshot;
      setImmediate(() => (snapshot = null));
      return (snapshot = this.sources.state());
    };
    const gauge = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      fill: (g: Gauge<L>, s: AdminState) => void,
    ): void => {
      new Gauge<L>({
        name: `${METRICS_PREFIX}${name}`,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          fill(this, state());
        },
      });
    };
    gauge('phones', 'Phones the ADB servers list, by state (device = ready to use).', ['state'], (g, s) => {
      const counts = new Map<string, number>(PHONE_STATES.map((st) => [st, 0]));
      for (const d of s.devices) counts.set(d.state, (counts.get(d.state) ?? 0) + 1);
      for (const [st, n] of counts) g.set({ state: st }, n);
    });
    gauge(
      'adb_servers',
      'ADB servers the bridge talks to, by status (connected, connecting, down).',
      ['status'],
      (g, s) => {
        for (const status of ['connected', 'connecting', 'down'] as const)
          g.set({ status }, s.adb_servers.filter((a) => a.status === status).length);
      },
    );
    // Per ADB host (its HOST:PORT or ssh:// address): what Settings → Hosts shows.
    gauge(
      'host_up',
      'Whether the link to an ADB host is up (1) or not (0), by host and how it is reached (direct, ssh).',
      ['host', 'via'],
      (g, s) => {
        for (const h of s.hosts) g.set({ host: h.address, via: h.via }, h.state === 'connected' ? 1 : 0);
      },
    );
    gauge(
      'host_phones',
      'Phones an ADB host lists, by host and whether they are ready (device) or not (other).',
      ['host', 'state'],
      (g, s) => {
        for (const h of s.hosts) {
          g.set({ host: h.address, state: 'device' }, h.phones_online);
          g.set({ host: h.address, state: 'other' }, h.phones - h.phones_online);
        }
      },
    );
    gauge(
      'host_rtt_seconds',
      'The last `host:devices` round trip through the link to an ADB host.',
      ['host'],
      (g, s) => {
        for (const h of s.hosts) if (h.rtt_ms !== null) g.set({ host: h.address }, h.rtt_ms / 1000);
      },
    );
    new Counter({
      name: `${METRICS_PREFIX}host_reconnects_total`,
      help: 'Times the link to an ADB host came back after it had been up (once per return, whether the SSH link or the ADB server had gone).',
      labelNames: ['host'],
      registers,
      collect() {
        this.reset();
        for (const h of state().hosts) this.inc({ host: h.address }, h.reconnects);
      },
    });
    gauge('leases', 'Phones an agent holds now (active bindings).', [], (g, s) =>
      g.set(s.devices.filter((d) => d.lease !== null).length),
    );
    gauge('pairings_pending', 'Pairing requests waiting for a person.', [], (g, s) => g.set(s.pairings.length));
    gauge('approvals_pending', 'Calls held for a person’s approval now.', [], (g, s) => g.set(s.approvals.length));
    gauge('data_planes', 'xAgent WebSocket connections open now.', [], (g, s) => g.set(s.connector.data_planes));
    // Per phone: its id (stable) and the label a person knows it by ("Pixel 7 ···4F2A"). Both are
    // one value per phone listed now (the gauges are refilled at each scrape, so a relabelled or
    // gone phone leaves no series behind), and the label is cut to LABEL_MAX characters.
    const phone = (d: AdminState['devices'][number]): { device_id: string; device_label: string } => ({
      device_id: d.device_id,
      device_label: [...d.display_name].slice(0, LABEL_MAX).join(''),
    });
    const PHONE_LABELS = ['device_id', 'device_label'] as const;
    gauge('queue_waiting', 'Agent calls waiting in a phone’s control line.', PHONE_LABELS, (g, s) => {
      for (const d of s.devices) g.set(phone(d), d.queue.queued);
    });
    gauge('queue_running', 'Agent calls running on a phone now.', PHONE_LABELS, (g, s) => {
      for (const d of s.devices) g.set(phone(d), d.queue.running);
    });
    gauge('claim_line_waiting', 'Lab claims waiting in line for a busy phone.', PHONE_LABELS, (g, s) => {
      for (const d of s.devices) g.set(phone(d), d.claim_line ?? 0);
    });
    gauge('turnovers_blocking', 'Phones kept from new bindings by a running or failed turnover.', ['state'], (g, s) => {
      for (const state of ['running', 'waiting', 'failed'] as const)
        g.set({ state }, s.devices.filter((d) => d.turnover?.state === state).length);
    });
    gauge('fast_lane_helpers', 'appium-uiautomator2-server per phone, by its lifecycle state.', ['state'], (g, s) => {
      const counts = new Map<string, number>();
      for (const d of s.devices)
        for (const p of d.programs ?? [])
          if (p.program === 'uia2_server') counts.set(p.state, (counts.get(p.state) ?? 0) + 1);
      for (const [st, n] of counts) g.set({ state: st }, n);
    });
    const cacheGauge = (name: string, help: string, pick: (c: ReturnType<MetricsSources['cache']>) => number): void =>
      gauge(name, help, [], (g) => g.set(pick(this.sources.cache())));
    cacheGauge('file_cache_bytes', 'Bytes the screenshot and file cache holds.', (c) => c.bytes);
    cacheGauge('file_cache_files', 'Files the screenshot and file cache holds.', (c) => c.files);
    cacheGauge('file_cache_max_bytes', 'The file cache’s size limit in bytes.', (c) => c.maxBytes);
    cacheGauge('file_cache_max_files', 'The file cache’s file count limit.', (c) => c.maxFiles);
    const build = this.sources.build;
    gauge(
      'build_info',
      'The bridge’s version and the connector version it reports (always 1).',
      ['version', 'connector_version'],
      (g) => {
        g.set({ version: build.version, connector_version: build.connectorVersion }, 1);
      },
    );
  }
}
