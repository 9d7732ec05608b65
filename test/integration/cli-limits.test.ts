/**
 * Limits on the command line of `device-bridge serve`: flags and env variables reach the live
 * limits (GET /admin/api/state and settings say which one set each), a flag wins over its
 * variable, and a value that cannot be read is refused with exit status 2 and a message
 * naming the flag — before anything starts.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMIT_DEFINITIONS, LIMIT_KEYS, defaultLimitValues, type LimitValues } from '../../main/contract/limits';
import { startLimits } from '../../main/core/config/core-options';
import { coreOptionsForLimits, limitsFromCommandLine } from '../../main/cli-limits';

type Json = Record<string, any>;

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.DEVICE_BRIDGE_API_KEY;
  delete env.DEVICE_BRIDGE_ADMIN_TOKEN;
  delete env.DEVICE_BRIDGE_DATA_DIR;
  for (const key of LIMIT_KEYS) if (!(LIMIT_DEFINITIONS[key].env in extra)) delete env[LIMIT_DEFINITIONS[key].env];
  return env;
}

/** Runs `tsx main/cli.ts serve …`; resolves with its URL once it listens, or with its exit status and stderr. */
function serve(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ url?: string; code?: number | null; stderr: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line and no exit; stderr: ${err}`));
    }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], stderr: err, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      resolve({ code, stderr: err, stop });
    });
  });
}

describe('limits on the serve command line', () => {
  test('--approval-timeout 2s and the env variables show in GET state and settings, with where they came from', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-limits-'));
    dirs.push(dataDir);
    const env = cleanEnv({
      DEVICE_BRIDGE_QUEUE_DEPTH: '7',
      DEVICE_BRIDGE_APPROVAL_TIMEOUT: '9m',
      DEVICE_BRIDGE_CACHE_SIZE: '64MiB',
    });
    const run = await serve(
      [
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--adb',
        '127.0.0.1:1',
        '--approval-timeout',
        '2s',
        '--lease-max',
        'none',
        '--lease-idle',
        '45m',
      ],
      env,
    );
    try {
      assert.ok(run.url, `serve did not start: ${run.stderr}`);
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      const get = async (path: string): Promise<Json> => {
        const res = await fetch(`${run.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        return (await res.json()) as Json;
      };
      const state = await get('/admin/api/state');
      assert.equal(state.limits.approval_timeout_ms, 2000, 'the flag wins over DEVICE_BRIDGE_APPROVAL_TIMEOUT');
      assert.equal(state.limits.queue.max_depth, 7);
      assert.equal(state.limits.file_cache.max_bytes, 64 * 1024 * 1024);
      assert.deepEqual(state.limits.lease, {
        max_duration_ms: null,
        idle_timeout_ms: 45 * 60_000,
        disconnect_grace_ms: 600_000,
      });
      const settings = await get('/admin/api/settings');
      assert.deepEqual(settings.limit_sources.approval_timeout_ms, {
        from: 'start',
        start_option: '--approval-timeout',
      });
      assert.deepEqual(settings.limit_sources.queue_max_depth, {
        from: 'start',
        start_option: 'DEVICE_BRIDGE_QUEUE_DEPTH',
      });
      assert.deepEqual(settings.limit_sources.lease_max_duration_ms, { from: 'start', start_option: '--lease-max' });
      assert.deepEqual(settings.limit_sources.file_cache_ttl_ms, { from: 'default', start_option: null });
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });

  test('--approval-timeout banana exits 2 with a clear message; so does an out-of-range env value', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-limits-'));
    dirs.push(dataDir);
    const bad = await serve(
      ['--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1', '--approval-timeout', 'banana'],
      cleanEnv(),
    );
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /^device-bridge: --approval-timeout: "banana" is not a duration \(e\.g\. 90s, 2m, 1h30m, 8h\)\n\nUsage:/,
    );
    const env = await serve(
      ['--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1'],
      cleanEnv({ DEVICE_BRIDGE_CACHE_SIZE: '1MiB' }),
    );
    assert.equal(env.code, 2);
    assert.match(
      env.stderr,
      /^device-bridge: DEVICE_BRIDGE_CACHE_SIZE: 1 MiB is out of range; cache size must be from 16 MiB to 64 GiB\n/,
    );
  });

  test('every limit read from the command line reaches the core option that sets it at start', () => {
    const maxima = {} as Record<string, string>;
    for (const key of LIMIT_KEYS)
      maxima[LIMIT_DEFINITIONS[key].flag.slice(2)] =
        String(LIMIT_DEFINITIONS[key].max) + (LIMIT_DEFINITIONS[key].unit === 'duration' ? 'ms' : '');
    const read = limitsFromCommandLine((name) => maxima[name], {});
    const expected = {} as Record<string, number | null>;
    for (const key of LIMIT_KEYS) expected[key] = LIMIT_DEFINITIONS[key].max;
    assert.deepEqual(read.values, expected);
    const start = startLimits({ dataDir: 'unused', ...coreOptionsForLimits(read) });
    assert.deepEqual(start.values, expected as unknown as LimitValues);
    for (const key of LIMIT_KEYS) assert.equal(start.names[key], LIMIT_DEFINITIONS[key].flag);
    // Nothing given: nothing set, the saved values and defaults apply.
    assert.deepEqual(coreOptionsForLimits(limitsFromCommandLine(() => undefined, {})), {});
    assert.notDeepEqual(expected, defaultLimitValues());
  });
});
