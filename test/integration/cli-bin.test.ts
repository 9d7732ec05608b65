/**
 * The installed command, as a user runs it: `node bin/device-bridge.js …` against the
 * compiled dist/ (built here when missing or stale). serve answers on the port it prints,
 * sim attaches phones to a real (private) adb server, demo shows its phones in the admin
 * state and announces a pairing request with its code, the API key command it prints works
 * as typed, every one stops cleanly on SIGTERM; unknown flags and commands exit 2 with the
 * usage; a checkout that was never built says to run `npm run build`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { BIN, ROOT, ensureBuilt } from '../helpers/built-cli';
import { cleanAdbEnv } from '../../main/sim/private-adb-server';
import { waitForDeviceStates } from '../../main/sim/adb-host-client';
import { XAgentClient } from '../helpers/xagent-client';

/** Deadline for one expected line or exit. */
const WAIT_MS = 30_000;

interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects at the deadline or if the process ends first. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit status (or the signal's name) within the deadline. */
  exited(timeoutMs?: number): Promise<number | string>;
}

const started: CliProcess[] = [];
const tempDirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** `node <bin> ...args` with no key, token, data dir or adb server inherited from the test's environment. */
function runCli(args: string[], bin = BIN): CliProcess {
  const env = cleanAdbEnv({});
  delete env.DEVICE_BRIDGE_API_KEY;
  delete env.DEVICE_BRIDGE_ADMIN_TOKEN;
  delete env.DEVICE_BRIDGE_DATA_DIR;
  const child = spawn(process.execPath, [bin, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ended = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const proc: CliProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (pattern, timeoutMs = WAIT_MS) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const match = pattern.exec(out);
          if (!match) return false;
          finish();
          resolve(match);
          return true;
        };
        const onData = (): void => void check();
        const onEnd = (): void => {
          if (check()) return;
          finish();
          reject(
            new Error(
              `device-bridge ${args.join(' ')} ended before printing ${String(pattern)}; stdout: ${out}; stderr: ${err}`,
            ),
          );
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `no ${String(pattern)} within ${timeoutMs} ms from device-bridge ${args.join(' ')}; stdout: ${out}; stderr: ${err}`,
            ),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          child.stdout.off('data', onData);
          child.off('close', onEnd);
        };
        child.stdout.on('data', onData);
        child.once('close', onEnd);
        check();
      }),
    exited: (timeoutMs = WAIT_MS) =>
      Promise.race([
        ended,
        new Promise<never>((_, reject) => {
          const timer = setTimeout(
            () =>
              reject(new Error(`device-bridge ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${err}`)),
            timeoutMs,
          );
          void ended.then(() => clearTimeout(timer));
        }),
      ]),
  };
  if (child.exitCode === null) started.push(proc);
  return proc;
}

/** Polls `fn` until it returns a value (no fixed sleeps beyond the poll interval). */
async function eventually<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let rig: AdbServerRig;
let rigStarted = false;

before(async () => {
  await ensureBuilt();
  rig = await startAdbServer();
  rigStarted = true;
});

after(async () => {
  for (const proc of started)
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await Promise.all(started.map((p) => p.exited(5_000).catch(() => undefined)));
  if (rigStarted) await rig.stop();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('bin/device-bridge.js', () => {
  test('serve --port 0 prints where it listens, answers there, and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir('cli-bin-serve-');
    const cli = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--adb', `127.0.0.1:${rig.port}`]);
    const [, url] = await cli.waitForStdout(/device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    assert.ok(url);
    const card = await fetch(`${url}/connector-card.json`);
    assert.equal(card.status, 200);
    assert.equal(((await card.json()) as { connector_card_id?: string }).connector_card_id, 'device.adb');
    const key = readFileSync(join(dataDir, 'api-key'), 'utf8').trim();
    const health = await fetch(`${url}/health`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(health.status, 200);
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(), 0, cli.stderr());
  });

  test('sim --devices 2 --adb attaches two phones adb lists as device, and detaches them on SIGTERM', async () => {
    const cli = runCli(['sim', '--devices', '2', `--adb=127.0.0.1:${rig.port}`]);
    const [, list] = await cli.waitForStdout(/2 simulated phone\(s\) attached to adb at 127\.0\.0\.1:\d+: (.+)\n/);
    const serials = (list ?? '').split(', ');
    assert.equal(serials.length, 2);
    // adb's device tracker wakes these waits (adb's own list is read on each change).
    await waitForDeviceStates(rig, serials, 'device', { timeoutMs: WAIT_MS });
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(), 0, cli.stderr());
    await waitForDeviceStates(rig, serials, (state) => state !== 'device', { timeoutMs: WAIT_MS });
  });

  test('demo --devices 1 starts its own adb server, a phone and the bridge whose admin state lists the phone', async () => {
    const cli = runCli(['demo', '--devices', '1', '--data-dir', tempDir('cli-bin-demo-')]);
    const [, url] = await cli.waitForStdout(/device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const [, token] = await cli.waitForStdout(/web console: \S+\/console\/#token=(\S+)\n/);
    await eventually(async () => {
      const response = await fetch(`${url ?? ''}/admin/api/state`, {
        headers: { Authorization: `Bearer ${token ?? ''}` },
      });
      assert.equal(response.status, 200);
      const state = (await response.json()) as { devices: { state: string }[] };
      return state.devices.length === 1 && state.devices[0]?.state === 'device' ? true : undefined;
    }, 'the demo phone in the admin state');
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(), 0, cli.stderr());
  });

  test('demo without --data-dir says how to stop it and prints commands that work as typed; its data folder goes at stop', async () => {
    const cli = runCli(['demo', '--devices', '1']);
    const [, apiKeyCommand, dataDir] = await cli.waitForStdout(
      /system API key for xAgent: (npx device-bridge api-key --data-dir (\S+))\n/,
    );
    await cli.waitForStdout(
      /stop: Ctrl\+C \(the demo's data folder \S+, its API key and admin token included, is deleted then\)\n/,
    );
    assert.ok(apiKeyCommand && dataDir);
    assert.ok(existsSync(join(dataDir, 'api-key')), 'the key lives in the demo folder while it runs');
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(), 0, cli.stderr());
    assert.equal(existsSync(dataDir), false, 'no key or token left behind');
    // The terminal says the demo heard the Ctrl+C and what went with it.
    await cli.waitForStdout(/device-bridge demo stopped: [^\n]*, and its data folder deleted\n/);
  });

  test('demo: the printed API key command works as typed, and a pairing request is announced with its code and console link', async () => {
    const cli = runCli(['demo', '--devices', '1']);
    const [, url] = await cli.waitForStdout(/device-bridge listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const [, token] = await cli.waitForStdout(/web console: \S+\/console\/#token=(\S+)\n/);
    const [, command] = await cli.waitForStdout(/system API key for xAgent: (.+)\n/);
    await cli.waitForStdout(/stop: Ctrl\+C/);
    // Run exactly as printed, by a shell, where the demo was started (the project's folder).
    const printed = await new Promise<string>((resolve, reject) => {
      execFile('/bin/sh', ['-c', command ?? ''], { cwd: ROOT, timeout: WAIT_MS }, (error, stdout, stderr) =>
        error ? reject(new Error(`${command ?? ''}: ${error.message} ${stderr}`)) : resolve(stdout),
      );
    });
    const apiKey = printed.trim();
    assert.match(apiKey, /^\S{32,}$/);

    const client = await XAgentClient.connect(url ?? '', apiKey);
    try {
      await client.hello();
      const opened = await client.openChannel('');
      const channelId = String(opened.payload?.connector_channel_id);
      const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
      const code = String(started.payload?.qr_code_text);
      assert.match(code, /^[A-Z0-9-]{4,}$/);
      const [line, shownCode, link] = await cli.waitForStdout(
        /Pairing request from xAgent \(channel cch_\S+\) for a phone you pick — code (\S+); approve it in the console: (\S+)\n/,
      );
      assert.equal(shownCode, code, `the code xAgent shows: ${line ?? ''}`);
      assert.equal(link, `${url ?? ''}/console/#/pairings?token=${token ?? ''}`);
      assert.equal(cli.stdout().split('Pairing request from').length - 1, 1, 'announced once');
    } finally {
      await client.close();
    }
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(), 0, cli.stderr());
  });

  test('an unknown flag exits 2 naming the nearest flag, with the usage, before starting anything', async () => {
    const cli = runCli(['serve', '--prot', '9000']);
    assert.equal(await cli.exited(), 2);
    assert.match(cli.stderr(), /^device-bridge: unknown flag --prot for serve \(did you mean --port\?\)\n/);
    assert.match(cli.stderr(), /Usage: device-bridge <command>/);
    assert.equal(cli.stdout(), '', 'nothing started, nothing printed on stdout');
  });

  test('a flag of another command and an unknown command exit 2', async () => {
    const wrong = runCli(['api-key', '--port', '1']);
    assert.equal(await wrong.exited(), 2);
    assert.match(wrong.stderr(), /unknown flag --port for api-key/);
    const unknown = runCli(['launch']);
    assert.equal(await unknown.exited(), 2);
    assert.match(unknown.stderr(), /^device-bridge: unknown command launch\n/);
    assert.match(unknown.stderr(), /Usage: device-bridge <command>/);
  });

  test('help prints the usage and exits 0', async () => {
    const cli = runCli(['help']);
    assert.equal(await cli.exited(), 0);
    assert.match(cli.stdout(), /^Usage: device-bridge <command> \[flags\]/);
  });

  test('a checkout without dist/ says in one line to run npm run build, and exits 1', async () => {
    const unbuilt = tempDir('cli-bin-unbuilt-');
    mkdirSync(join(unbuilt, 'bin'));
    const bin = join(unbuilt, 'bin', 'device-bridge.js');
    copyFileSync(BIN, bin);
    const cli = runCli(['serve'], bin);
    assert.equal(await cli.exited(), 1);
    assert.match(
      cli.stderr(),
      /^device-bridge: not built yet \(.+dist\/main\/cli\.js is missing\); run `npm run build` in .+ first\n$/,
    );
  });
});
