/**
 * The metrics' wiring: GET /metrics (Prometheus) counts calls as the audit does and reads the
 * rest from the console's snapshot (the admin API, made after the metrics: read through `get()`).
 */
import type { AdminState } from '../../contract/admin-api';
import { CONNECTOR_VERSION } from '../protocol/identity';
import { BridgeMetrics, cacheFigures } from './bridge-metrics';

export interface MetricsPorts {
  adminApi: { get(): { state(): AdminState } };
  files: { stats(): Parameters<typeof cacheFigures>[0] };
  build: { version: string };
}

export function wireMetrics(ports: MetricsPorts): BridgeMetrics {
  return new BridgeMetrics({
    state: () => ports.adminApi.get().state(),
    cache: () => cacheFigures(ports.files.stats()),
    build: { version: ports.build.version, connectorVersion: CONNECTOR_VERSION },
  });
}
