/**
 * Starts a bridge core for a test on port 0 with a private data dir; stops it and removes
 * the data dir afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../main/core/create-core';
import type { CoreOptionsInput } from '../../main/core/config/core-options';
import { silentLogger } from '../../main/core/logging/logger';
import { urlRequest } from './url-request';

export interface TestBridge {
  core: Core;
  url: string;
  apiKey: string;
  adminToken: string;
  dataDir: string;
  stop(): Promise<void>;
  /** PEM of the CA the test client trusts when the bridge serves https (admin() uses it). */
  ca?: string;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

export const TEST_API_KEY = 'test-api-key-0123456789abcdef';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export async function startBridge(options: Partial<CoreOptionsInput> = {}, keepDataDir?: string): Promise<TestBridge> {
  const dataDir = keepDataDir ?? mkdtempSync(join(tmpdir(), 'bridge-test-'));
  const core = createCore({
    dataDir,
    port: 0,
    apiKey: TEST_API_KEY,
    adminToken: TEST_ADMIN_TOKEN,
    adbServers: [{ host: '127.0.0.1', port: 1 }],
    logger: silentLogger,
    ...options,
    // Tests of the stock lane (most of them) run without the port-less programs; those of the
    // programs pass `fastLane: { portless: true }` (test/integration/phone-programs.test.ts).
    fastLane: { portless: false, ...options.fastLane },
  });
  const { url } = await core.start();
  let stopped = false;
  const bridge: TestBridge = {
    core,
    url,
    apiKey: TEST_API_KEY,
    adminToken: TEST_ADMIN_TOKEN,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await core.stop();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async admin(method, path, body) {
      const headers = {
        Authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      };
      if (bridge.ca !== undefined) {
        const res = await urlRequest(`${url}${path}`, {
          method,
          headers,
          ca: bridge.ca,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: res.body.length ? res.json() : {} };
      }
      const res = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
  };
  return bridge;
}
