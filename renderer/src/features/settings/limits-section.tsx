/**
 * The limits this bridge runs with (leases, file cache, queues), read-only: they are set at
 * startup and documented in the README, as the Device Profile requires.
 */
import type { AdminState } from '../../../../main/contract/admin-api';
import { formatBytes, formatLimit } from '../../lib/time-format';

export function LimitsSection(props: { limits: AdminState['limits'] }): React.JSX.Element {
  const { lease, file_cache: cache, queue } = props.limits;
  return (
    <section className="settings-section" aria-labelledby="limits-heading">
      <h3 id="limits-heading">Limits</h3>
      <p className="hint">Set when the bridge starts; each one is documented in the README.</p>
      <div className="three-col" data-testid="settings-limits">
        <dl className="facts">
          <dt>Lease maximum</dt>
          <dd>{formatLimit(lease.max_duration_ms)}</dd>
          <dt>Idle timeout</dt>
          <dd>{formatLimit(lease.idle_timeout_ms)}</dd>
          <dt>Disconnect grace</dt>
          <dd>{formatLimit(lease.disconnect_grace_ms)}</dd>
        </dl>
        <dl className="facts">
          <dt>File lifetime</dt>
          <dd>{formatLimit(cache.ttl_ms)}</dd>
          <dt>Cache size</dt>
          <dd>
            {formatBytes(cache.max_bytes)}, {cache.max_files} files
          </dd>
          <dt>Cleanup every</dt>
          <dd>{formatLimit(cache.cleanup_interval_ms)}</dd>
        </dl>
        <dl className="facts">
          <dt>Queue depth</dt>
          <dd>{queue.max_depth} per phone</dd>
          <dt>Parallel reads</dt>
          <dd>{queue.observation_concurrency} per phone</dd>
        </dl>
      </div>
    </section>
  );
}
