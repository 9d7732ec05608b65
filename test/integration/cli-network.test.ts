/**
 * The network flags through the real CLI process: `--tls self-signed` prints a fingerprint
 * that matches the certificate served (to a client trusting only that certificate) and
 * stays the same across restarts; a non-loopback bind in clear text prints the warning;
 * a bad certificate file exits 1 naming it; half a TLS pair is a usage error (exit 2).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { urlRequest } from '../helpers/url-request';

interface CliRun {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const clean = { ...process.env, ...env };
  delete clean.DEVICE_BRIDGE_API_KEY;
  delete clean.DEVICE_BRIDGE_ADMIN_TOKEN;
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', ...args], {
    env: clean,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

/**
 * Resolves once stdout (or stderr) holds `pattern` (the listening banner is written in one
 * piece). stdout and stderr are two pipes with no order between them, so a line on one is
 * awaited on that one, never assumed to have arrived with the other.
 */
function waitForOutput(
  run: CliRun,
  pattern: RegExp,
  timeoutMs = 30_000,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpExecArray> {
  const source = stream === 'stdout' ? run.child.stdout : run.child.stderr;
  const text = stream === 'stdout' ? run.out : run.err;
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const match = pattern.exec(text());
      if (!match) return;
      clearTimeout(timer);
      source?.off('data', check);
      resolve(match);
    };
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `no ${String(pattern)} on ${stream} within ${timeoutMs} ms; stdout: ${run.out()} stderr: ${run.err()}`,
          ),
        ),
      timeoutMs,
    );
    source?.on('data', check);
    void run.exited.then((code) => reject(new Error(`exited ${String(code)} before ${String(pattern)}: ${run.err()}`)));
    check();
  });
}

async function stopCli(run: CliRun): Promise<void> {
  if (run.child.exitCode !== null) return;
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
}

function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

const BANNER =
  /device-bridge listening on (https:\/\/127\.0\.0\.1:(\d+))\nTLS certificate SHA-256 fingerprint: ([0-9A-F:]{95}) \(([^;]+); ([^)]+)\)\n/;

void describe('device-bridge serve with network flags', () => {
  void test('--tls self-signed prints the fingerprint of the certificate it serves, the same after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-tls-'));
    try {
      const first = runCli([
        'serve',
        '--tls',
        'self-signed',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--adb',
        '127.0.0.1:1',
      ]);
      let fingerprint: string;
      try {
        const [, url, port, printed, how, certFile] = await waitForOutput(first, BANNER);
        fingerprint = printed!;
        assert.equal(how, 'self-signed, made now');
        assert.equal(certFile, join(dataDir, 'tls', 'self-signed-cert.pem'));
        // A client that trusts only this certificate (as an xAgent host told to trust it would).
        const trusted = readFileSync(certFile, 'utf8');
        assert.equal(await servedFingerprint(Number(port), trusted), fingerprint);
        const card = await urlRequest(`${url!}/connector-card.json`, { ca: trusted });
        assert.equal(card.status, 200);
        assert.equal(first.err().includes('WARNING'), false, first.err());
      } finally {
        await stopCli(first);
      }

      const second = runCli([
        'serve',
        '--tls',
        'self-signed',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--adb',
        '127.0.0.1:1',
      ]);
      try {
        const [, , port, printed, how] = await waitForOutput(second, BANNER);
        assert.equal(printed, fingerprint, 'kept in the data dir: the same fingerprint to pin');
        assert.equal(how, 'self-signed');
        assert.equal(
          await servedFingerprint(Number(port), readFileSync(join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8')),
          fingerprint,
        );
      } finally {
        await stopCli(second);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  void test('a non-loopback bind in clear text prints the warning; --public-url prints the base URL for xAgent', async (t) => {
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    if (!lan) {
      t.skip('this machine has no non-loopback IPv4 address');
      return;
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-warn-'));
    try {
      const clear = runCli(['serve', '--host', lan, '--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1']);
      try {
        await waitForOutput(clear, /listening on http:\/\//);
        await waitForOutput(clear, /system API key for xAgent/);
        await waitForOutput(
          clear,
          new RegExp(
            `device-bridge: WARNING: The bridge listens on ${lan.replace(/\./g, '\\.')} over plain HTTP\\. .*system API key .*--tls self-signed`,
          ),
          30_000,
          'stderr',
        );
      } finally {
        await stopCli(clear);
      }
      const proxied = runCli(
        ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1'],
        { DEVICE_BRIDGE_PUBLIC_URL: 'https://lab.example/devices/' },
      );
      try {
        await waitForOutput(
          proxied,
          /xAgent base URL: https:\/\/lab\.example\/devices\nweb console: http:\/\/127\.0\.0\.1:\d+\/console\//,
        );
        assert.equal(proxied.err().includes('WARNING'), false, proxied.err());
      } finally {
        await stopCli(proxied);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  void test('a bad certificate file exits 1 naming it; half a TLS pair exits 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-cli-bad-'));
    try {
      const missing = join(dataDir, 'missing-cert.pem');
      const bad = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--adb', '127.0.0.1:1'], {
        DEVICE_BRIDGE_TLS_CERT: missing,
        DEVICE_BRIDGE_TLS_KEY: join(dataDir, 'key.pem'),
      });
      assert.equal(await bad.exited, 1);
      assert.equal(bad.err(), `device-bridge: TLS certificate ${missing} cannot be read (no such file)\n`);
      const half = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--tls-cert', missing]);
      assert.equal(await half.exited, 2);
      assert.match(half.err(), /^device-bridge: --tls-key is missing: --tls-cert and --tls-key go together\n\nUsage:/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
