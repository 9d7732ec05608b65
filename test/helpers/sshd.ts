/**
 * A real OpenSSH server for tests: `/usr/sbin/sshd -D -e` with its own generated host key,
 * authorized_keys and config in a temp folder, on 127.0.0.1 only, run as the current user
 * (StrictModes off: the temp folder's modes are not a real home's). sshd cannot take port 0,
 * so a port the kernel reports free is chosen and sshd is started again on another one if
 * it was taken meanwhile. Forwarding is allowed only to `permitOpen`, the way a lab would
 * lock down the account the bridge uses.
 *
 * Run as root, sshd needs its privilege-separation folder /run/sshd (made by Debian's
 * service at boot); the helper creates it when missing, as that service would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServerRig } from './adb-server';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone } from '../../main/sim/phone';

export const SSHD = '/usr/sbin/sshd';

/** Why sshd tests cannot run here, or null when they can. */
export function sshdMissing(): string | null {
  if (!existsSync(SSHD)) return `${SSHD} is not installed (Debian package openssh-server)`;
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) return 'ssh-keygen is not installed';
  return null;
}

export interface SshKeyPair {
  privateKeyFile: string;
  publicKey: string;
  /** As `ssh-keygen -lf` prints it: SHA256:… */
  fingerprint: string;
}

/** Makes an ed25519 key pair without a passphrase in `dir`. */
export function makeKeyPair(dir: string, name: string): SshKeyPair {
  const file = join(dir, name);
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  const listed = spawnSync('ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' });
  const fingerprint = /SHA256:[A-Za-z0-9+/]+/.exec(listed.stdout)?.[0];
  if (!fingerprint) throw new Error(`ssh-keygen -lf printed no fingerprint: ${listed.stdout}`);
  return { privateKeyFile: file, publicKey: readFileSync(`${file}.pub`, 'utf8').trim(), fingerprint };
}

export interface SshdRig {
  port: number;
  user: string;
  dir: string;
  hostKey: SshKeyPair;
  /** A key the server accepts for `user`. */
  userKey: SshKeyPair;
  /** Kills sshd and every session it forked: the link drops at once. */
  kill(): Promise<void>;
  /** Stops (SIGSTOP) or resumes (SIGCONT) the sessions: a link that goes silent without closing. */
  freezeSessions(frozen: boolean): void;
  /** Starts sshd again on the same port with the same keys. */
  restart(): Promise<void>;
  log(): string;
  /** Kills and removes the temp folder. Idempotent. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Every process descended from `root` (read from /proc), deepest last. */
function descendantsOf(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the parent pid follows the last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(name), parent);
    } catch {
      // the process ended while we read
    }
  }
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = [...parentOf].filter(([, parent]) => frontier.includes(parent)).map(([pid]) => pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

function ensurePrivsepDir(): void {
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
}

export async function startSshd(options: { permitOpen: string; timeoutMs?: number }): Promise<SshdRig> {
  ensurePrivsepDir();
  const dir = mkdtempSync(join(tmpdir(), 'sshd-test-'));
  const hostKey = makeKeyPair(dir, 'host_key');
  const userKey = makeKeyPair(dir, 'user_key');
  writeFileSync(join(dir, 'authorized_keys'), `${userKey.publicKey}\n`, { mode: 0o600 });
  let child: ChildProcess | undefined;
  let output = '';
  let port = 0;
  const timeoutMs = options.timeoutMs ?? 10_000;

  const launch = async (wanted: number): Promise<'ok' | 'taken'> => {
    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        'ListenAddress 127.0.0.1',
        `Port ${wanted}`,
        `HostKey ${hostKey.privateKeyFile}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PidFile none',
        'AllowTcpForwarding local',
        `PermitOpen ${options.permitOpen}`,
        'X11Forwarding no',
        'PermitTTY no',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
    );
    const proc = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    proc.stderr?.setEncoding('utf8');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`sshd did not listen within ${timeoutMs} ms: ${output}`));
      }, timeoutMs);
      proc.stderr?.on('data', (text: string) => {
        output = (output + text).slice(-32_768);
        if (output.includes(`Server listening on 127.0.0.1 port ${wanted}`)) {
          clearTimeout(timer);
          resolve('ok');
        }
      });
      proc.once('exit', () => {
        clearTimeout(timer);
        if (/Address already in use/.test(output)) resolve('taken');
        else reject(new Error(`sshd exited: ${output}`));
      });
    });
  };

  const killGroup = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc?.pid || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // Each session sshd forks calls setsid(): a group kill would leave it (and the link) alive.
    const pids = [...descendantsOf(proc.pid), proc.pid];
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await exited;
  };

  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    if ((await launch(port)) === 'ok') break;
    if (attempt >= 4) throw new Error(`sshd found every port taken: ${output}`);
  }
  let stopped = false;
  return {
    port,
    user: userInfo().username,
    dir,
    hostKey,
    userKey,
    kill: killGroup,
    freezeSessions(frozen) {
      if (!child?.pid) return;
      for (const pid of descendantsOf(child.pid)) process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
    },
    async restart() {
      await killGroup();
      if ((await launch(port)) !== 'ok') throw new Error(`sshd could not listen on ${port} again: ${output}`);
    },
    log: () => output,
    async stop() {
      if (stopped) return;
      stopped = true;
      await killGroup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An ADB host as a lab has it: a private adb server with simulated phones behind a real sshd. */
export interface SshAdbHostRig {
  adb: AdbServerRig;
  farm: SimFarm;
  sshd: SshdRig;
  /** A temp folder for the test's keys and pins, removed by stop(). */
  scratch: string;
  stop(): Promise<void>;
}

/** Starts an ADB host reached over SSH with `count` simulated phones (instant profile). */
export async function startSshAdbHost(options: {
  count: number;
  serial: (index: number) => string;
  model: string;
  scratchPrefix: string;
}): Promise<SshAdbHostRig> {
  const adb = await startAdbServer();
  const farm = await startSimFarm({
    count: options.count,
    adb: { host: '127.0.0.1', port: adb.port },
    createPhone: (i) => createSimulatedPhone({ serial: options.serial(i), model: options.model, profile: 'instant' }),
  });
  const sshd = await startSshd({ permitOpen: `127.0.0.1:${adb.port}` });
  const scratch = mkdtempSync(join(tmpdir(), options.scratchPrefix));
  return {
    adb,
    farm,
    sshd,
    scratch,
    async stop() {
      await sshd.stop();
      await farm.stop();
      await adb.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
