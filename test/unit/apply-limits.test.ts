/**
 * A limit changed in Settings reaches the one service that holds it, with the whole current
 * value; the others are left alone (a new queue depth must not reset the cache's limits).
 * And `listen` hands back the stop that removes exactly the listener it added.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { applyLimitChanges, type LimitHolders } from '../../main/core/config/apply-limits';
import { defaultLimitValues } from '../../main/contract/limits';
import { listen } from '../../main/core/lifecycle/disposables';

function recordingHolders(): { holders: LimitHolders; calls: string[] } {
  const calls: string[] = [];
  const holders: LimitHolders = {
    approvals: { setApprovalTimeout: (ms) => calls.push(`approvals ${ms}`) },
    leases: {
      setLeasePolicy: (p) => calls.push(`leases ${p.maxDurationMs} ${p.idleTimeoutMs} ${p.disconnectGraceMs}`),
    },
    files: { setLimits: (l) => calls.push(`files ${l.ttlMs} ${l.maxBytes} ${l.maxFiles}`) },
    queue: { setMaxDepth: (d) => calls.push(`queue ${d}`) },
    fastLane: { setIdleStopMs: (ms) => calls.push(`fast lane ${ms}`) },
    runtime: { setRuntimeLeaseMs: (ms) => calls.push(`runtime ${ms}`) },
  };
  return { holders, calls };
}

describe('applying changed limits', () => {
  test('a queue depth change reaches the queue only', () => {
    const now = { ...defaultLimitValues(), queue_max_depth: 7 };
    const { holders, calls } = recordingHolders();
    applyLimitChanges({ queue_max_depth: 7 }, now, holders);
    assert.deepEqual(calls, ['queue 7']);
  });

  test('one lease limit changed gives the bindings the whole lease policy as it now is', () => {
    const now = { ...defaultLimitValues(), lease_idle_timeout_ms: 60_000, lease_max_duration_ms: null };
    const { holders, calls } = recordingHolders();
    applyLimitChanges({ lease_idle_timeout_ms: 60_000 }, now, holders);
    assert.deepEqual(calls, [`leases null 60000 ${now.lease_disconnect_grace_ms}`]);
  });

  test('a cache size change gives the cache its TTL, bytes and files together', () => {
    const now = { ...defaultLimitValues(), file_cache_max_files: 12 };
    const { holders, calls } = recordingHolders();
    applyLimitChanges({ file_cache_max_files: 12 }, now, holders);
    assert.deepEqual(calls, [`files ${now.file_cache_ttl_ms} ${now.file_cache_max_bytes} 12`]);
  });

  test('approval countdown, fast-lane idle stop and xAgent’s reconnect grace reach their holders; nothing changed touches nothing', () => {
    const now = { ...defaultLimitValues(), approval_timeout_ms: 30_000, fast_lane_idle_stop_ms: 90_000 };
    const { holders, calls } = recordingHolders();
    applyLimitChanges({ approval_timeout_ms: 30_000, fast_lane_idle_stop_ms: 90_000 }, now, holders);
    assert.deepEqual(calls, ['approvals 30000', 'fast lane 90000']);
    applyLimitChanges({ runtime_grace_ms: 86_400_000 }, { ...now, runtime_grace_ms: 86_400_000 }, holders);
    assert.deepEqual(calls.slice(2), ['runtime 86400000']);
    const idle = recordingHolders();
    applyLimitChanges({}, now, idle.holders);
    assert.deepEqual(idle.calls, []);
  });
});

describe('listen', () => {
  test('its stop removes the listener it added and no other', () => {
    const emitter = new EventEmitter();
    const heard: string[] = [];
    const stop = listen(emitter, 'changed', (what: string) => heard.push(`a ${what}`));
    emitter.on('changed', (what: string) => heard.push(`b ${what}`));
    emitter.emit('changed', 'one');
    stop();
    emitter.emit('changed', 'two');
    assert.deepEqual(heard, ['a one', 'b one', 'b two']);
    assert.equal(emitter.listenerCount('changed'), 1);
  });
});
