/**
 * Test rig: a private real adb server (see main/sim/private-adb-server.ts) plus `runAdb` to
 * drive the real adb CLI against it.
 */
import { spawn } from 'node:child_process';
import { ADB, startPrivateAdbServer, type AdbServerRig } from '../../main/sim/private-adb-server';

export type { AdbServerRig };
export const startAdbServer = startPrivateAdbServer;

export interface RunAdbOptions {
  /** Default 30 s; the CLI is killed past it and the call rejects. */
  timeoutMs?: number;
  input?: Buffer | string;
}

export interface RunAdbResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Runs the adb CLI against the rig's server with a deadline. */
export async function runAdb(rig: AdbServerRig, args: string[], options: RunAdbOptions = {}): Promise<RunAdbResult> {
  // A CLI call with no server behind it would fork a stray background server.
  if (!rig.running) throw new Error(`runAdb: the adb server on port ${rig.port} is not running`);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = spawn(ADB, ['-P', String(rig.port), ...args], {
    env: rig.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  return new Promise<RunAdbResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`adb ${args.join(' ')} timed out after ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(stdout), stderr, code: code ?? (signal ? 128 : 1) });
    });
  });
}
