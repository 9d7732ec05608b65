/**
 * Headless entry: `device-bridge serve | api-key | sim | demo` (DESIGN.md §9).
 * Same core as the desktop app, plus the web console on loopback behind the admin token.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createCore, defaultAdbServer, type Core } from './core/create-core';
import { loadOrCreateSecret } from './core/secrets/secret-store';
import { projectRoot } from './core/build-info';

interface ParsedArgs {
  command: string;
  flags: Map<string, string[]>;
}

const USAGE = `Usage:
  device-bridge serve [--host 127.0.0.1] [--port 8765] [--data-dir DIR] [--adb HOST:PORT]...
                      [--allow-remote-admin]
  device-bridge api-key [--data-dir DIR]       print the system API key for xAgent
  device-bridge admin-token [--data-dir DIR]   print the console/admin token
  device-bridge sim --devices N [--profile instant|usb-phone] [--adb HOST:PORT]
  device-bridge demo [--devices N] [--port 0]  private ADB server + simulated phones + bridge

Environment: DEVICE_BRIDGE_API_KEY, DEVICE_BRIDGE_ADMIN_TOKEN, DEVICE_BRIDGE_DATA_DIR,
ADB_SERVER_SOCKET (tcp:HOST:PORT), ANDROID_ADB_SERVER_PORT.`;

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [command = 'serve', ...rest] = argv;
  const flags = new Map<string, string[]>();
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? '';
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    let value: string;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (name === 'allow-remote-admin' || name === 'help') value = 'true';
    else {
      const next = rest[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      value = next;
      i += 1;
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { command, flags };
}

class UsageError extends Error {}

export function parseHostPort(text: string, defaultPort?: number): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text.trim());
  const port = match?.[2] !== undefined ? Number(match[2]) : defaultPort;
  if (!match?.[1] || port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`expected HOST:PORT, got ${JSON.stringify(text)}`);
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function one(flags: Map<string, string[]>, name: string): string | undefined {
  const values = flags.get(name);
  return values?.[values.length - 1];
}

function dataDirFrom(flags: Map<string, string[]>): string {
  return one(flags, 'data-dir') ?? process.env.DEVICE_BRIDGE_DATA_DIR ?? join(homedir(), '.xagent-device-bridge');
}

function consoleDir(): string | undefined {
  const dir = join(projectRoot(), 'dist', 'renderer');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

async function serve(flags: Map<string, string[]>): Promise<Core> {
  const portText = one(flags, 'port');
  const port = portText === undefined ? 8765 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
  const core = createCore({
    dataDir: dataDirFrom(flags),
    host: one(flags, 'host') ?? '127.0.0.1',
    port,
    adbServers: (flags.get('adb') ?? []).map((a) => parseHostPort(a)),
    ...(process.env.DEVICE_BRIDGE_API_KEY ? { apiKey: process.env.DEVICE_BRIDGE_API_KEY } : {}),
    ...(process.env.DEVICE_BRIDGE_ADMIN_TOKEN ? { adminToken: process.env.DEVICE_BRIDGE_ADMIN_TOKEN } : {}),
    allowRemoteAdmin: one(flags, 'allow-remote-admin') === 'true',
    consoleDir: consoleDir(),
  });
  const { host, port: actual } = await core.start();
  const shownHost = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`device-bridge listening on http://${shownHost}:${actual}\n`);
  process.stdout.write(`web console: ${core.url()}/console/#token=${core.adminToken()}\n`);
  process.stdout.write(`system API key for xAgent: device-bridge api-key --data-dir ${core.options.dataDir}\n`);
  return core;
}

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export async function main(argv: readonly string[]): Promise<void> {
  const { command, flags } = parseArgs(argv);
  if (flags.has('help') || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  switch (command) {
    case 'serve': {
      const core = await serve(flags);
      onSignals(() => core.stop());
      return;
    }
    case 'api-key':
      process.stdout.write(`${process.env.DEVICE_BRIDGE_API_KEY ?? loadOrCreateSecret(dataDirFrom(flags), 'api-key')}\n`);
      return;
    case 'admin-token':
      process.stdout.write(`${process.env.DEVICE_BRIDGE_ADMIN_TOKEN ?? loadOrCreateSecret(dataDirFrom(flags), 'admin-token')}\n`);
      return;
    case 'sim':
    case 'demo': {
      const { runSimCommand } = await import('./sim/sim-cli.js');
      const stop = await runSimCommand(command, flags, { parseHostPort, defaultAdb: defaultAdbServer, serve });
      onSignals(stop);
      return;
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof UsageError || error instanceof TypeError) {
      process.stderr.write(`device-bridge: ${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`device-bridge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
