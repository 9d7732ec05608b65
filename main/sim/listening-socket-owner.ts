/**
 * Whether a given process holds the socket listening on a TCP port: the proof that a server
 * answering on a port is the one we started and not someone else's that took the port first.
 * Linux reads /proc (no tools needed); macOS and the BSDs ask `lsof`. Anything else answers
 * `undefined` (cannot tell).
 */
import { spawn } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';

/** TCP state LISTEN in /proc/net/tcp{,6}. */
const TCP_LISTEN = '0A';

/** Inodes of the sockets listening on `port` (any address), or undefined without /proc/net. */
async function listeningInodes(port: number): Promise<Set<string> | undefined> {
  const inodes = new Set<string>();
  let readable = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = await readFile(table, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (!local || state !== TCP_LISTEN || !inode) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(inode);
    }
  }
  return readable ? inodes : undefined;
}

async function linuxOwner(pid: number, port: number): Promise<boolean | undefined> {
  const inodes = await listeningInodes(port);
  if (inodes === undefined) return undefined;
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return false; // the process is gone
  }
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined && inodes.has(inode)) return true;
  }
  return false;
}

/** `lsof -t` prints the pid and exits 0 when the process has that listener, exits 1 otherwise. */
function lsofOwner(pid: number, port: number, timeoutMs: number): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    const child = spawn('lsof', ['-nP', '-a', '-p', String(pid), `-iTCP:${port}`, '-sTCP:LISTEN', '-t'], {
      stdio: 'ignore',
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(undefined);
    }, timeoutMs);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined); // no lsof here
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? true : code === 1 ? false : undefined);
    });
  });
}

/**
 * True when process `pid` holds a socket listening on TCP `port`, false when it does not,
 * undefined when this platform cannot tell.
 */
export async function holdsListeningSocket(
  pid: number,
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<boolean | undefined> {
  if (process.platform === 'linux') return linuxOwner(pid, port);
  if (process.platform === 'darwin' || process.platform.endsWith('bsd'))
    return lsofOwner(pid, port, options.timeoutMs ?? 5_000);
  return undefined;
}
