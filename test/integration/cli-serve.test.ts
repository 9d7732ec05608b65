import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('device-bridge serve --port 0 prints the listening line, keeps a 0600 key, and exits cleanly on SIGTERM with a "stopped" line', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-'));
  const env = { ...process.env };
  delete env.DEVICE_BRIDGE_API_KEY;
  delete env.DEVICE_BRIDGE_ADMIN_TOKEN;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'main/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1'],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${err}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
    });
    const key = readFileSync(join(dataDir, 'api-key'), 'utf8').trim();
    assert.ok(key.length >= 32);
    assert.equal(statSync(join(dataDir, 'api-key')).mode & 0o777, 0o600);
    assert.ok(!out.includes(key) && !err.includes(key), 'the API key is never printed');
    const health = await fetch(`${url}/health`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(health.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    // The terminal says the Ctrl+C was heard and the bridge is down.
    assert.match(out, /\ndevice-bridge stopped\n$/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
