/**
 * Headless entry: `device-bridge serve | api-key | admin-token | sim | demo | help`
 * (DESIGN.md §9). Same core as the desktop app, plus the web console on loopback behind the
 * admin token. `run(argv)` is the one way in: bin/device-bridge.js calls it, and so does
 * running this file directly (`node dist/main/cli.js`, `tsx main/cli.ts`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from './core/create-core';
import { announcePairings } from './cli-pairings';
import type { AdbServerAddress } from './core/config/core-options';
import { loadOrCreateSecret } from './core/secrets/secret-store';
import { projectRoot } from './core/build-info';
import { parseCommandLine, parseHostPort, UsageError, type ParsedFlags } from './cli-args';
import { coreOptionsForLimits, limitsFromCommandLine } from './cli-limits';
import { COMMANDS, DEFAULT_COMMAND, PROGRAM, usage, type CommandName } from './cli-commands';
import { consoleUrl, networkFromCommandLine, startBanner } from './cli-network';
import type { NetworkOptionsInput } from './core/config/network-options';
import { isSshTarget, parseSshTarget } from './core/devices/ssh/ssh-target';
import type { SshOptions } from './core/devices/ssh/ssh-tunnels';

/** The bridge's settings from BRIDGE_FLAGS, checked before anything starts. */
interface BridgeSettings {
  host: string;
  port: number;
  dataDir: () => string;
  allowRemoteAdmin: boolean;
  /** --no-phone-programs: stock commands only (phone-programs/phone-programs.ts). */
  phonePrograms: boolean;
  /** TLS, public URL, trusted proxies, --allow-from (cli-network.ts). */
  network: NetworkOptionsInput;
  /** Limits set by flags or env: they win over the values saved in Settings. */
  limits: ReturnType<typeof limitsFromCommandLine>;
}

function defaultDataDir(): string {
  return process.env.DEVICE_BRIDGE_DATA_DIR ?? join(homedir(), '.xagent-device-bridge');
}

function bridgeSettings(flags: ParsedFlags, defaults: { port: number; dataDir: () => string }): BridgeSettings {
  const dataDir = flags.value('data-dir');
  return {
    host: flags.value('host') ?? '127.0.0.1',
    port: flags.integer('port', { min: 0, max: 65535 }) ?? defaults.port,
    dataDir: dataDir === undefined ? defaults.dataDir : () => dataDir,
    allowRemoteAdmin: flags.has('allow-remote-admin'),
    phonePrograms: !flags.has('no-phone-programs'),
    network: networkFromCommandLine(flags, process.env),
    limits: limitsFromCommandLine((name) => flags.value(name), process.env),
  };
}

/** One --adb value: HOST:PORT, or ssh://USER@HOST[:PORT][?adb_port=N] (the ADB server on that host's loopback). */
function adbServerFromCommandLine(text: string): AdbServerAddress {
  if (!isSshTarget(text)) return parseHostPort(text, '--adb');
  try {
    const target = parseSshTarget(text);
    return {
      host: '127.0.0.1',
      port: target.adbPort,
      ssh: { user: target.user, host: target.host, port: target.port },
    };
  } catch (error) {
    throw new UsageError('invalid_value', `--adb: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** How ssh:// hosts sign in: --ssh-key, else ssh-agent; host keys by --ssh-known-hosts or ~/.ssh/known_hosts. */
function sshFromCommandLine(flags: ParsedFlags): SshOptions {
  const key = flags.value('ssh-key');
  const agent = process.env.SSH_AUTH_SOCK;
  return {
    ...(key !== undefined ? { privateKeyFile: key } : {}),
    ...(agent ? { agentSocket: agent } : {}),
    knownHostsFile: flags.value('ssh-known-hosts') ?? join(homedir(), '.ssh', 'known_hosts'),
  };
}

function consoleDir(): string | undefined {
  const dir = join(projectRoot(), 'dist', 'renderer');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

/**
 * Starts the bridge on the given ADB servers, prints where it listens, then announces each
 * pairing request as it arrives; resolves to the way to stop both.
 */
async function startBridge(
  settings: BridgeSettings,
  adbServers: AdbServerAddress[],
  banner: { temporaryDataDir?: boolean } = {},
  ssh?: SshOptions,
): Promise<{ stop(): Promise<void> }> {
  let core: Core;
  const limitOptions = coreOptionsForLimits(settings.limits);
  try {
    core = createCore({
      dataDir: settings.dataDir(),
      host: settings.host,
      port: settings.port,
      adbServers,
      ...(ssh ? { ssh } : {}),
      ...(process.env.DEVICE_BRIDGE_API_KEY
        ? { apiKey: process.env.DEVICE_BRIDGE_API_KEY, apiKeySource: 'env' as const }
        : {}),
      ...(process.env.DEVICE_BRIDGE_ADMIN_TOKEN ? { adminToken: process.env.DEVICE_BRIDGE_ADMIN_TOKEN } : {}),
      allowRemoteAdmin: settings.allowRemoteAdmin,
      network: settings.network,
      ...limitOptions,
      fastLane: { ...limitOptions.fastLane, portless: settings.phonePrograms },
      consoleDir: consoleDir(),
    });
  } catch (error) {
    // resolveCoreOptions refuses a bad option with a TypeError before anything starts.
    if (error instanceof TypeError) throw new UsageError('invalid_value', error.message);
    throw error;
  }
  try {
    const lines = startBanner(core, await core.start(), PROGRAM, banner);
    process.stdout.write(lines.out);
    if (lines.err) process.stderr.write(lines.err);
  } catch (error) {
    await core.stop();
    throw error;
  }
  const stopAnnouncing = announcePairings(core, consoleUrl(core), core.adminToken(), (line) =>
    process.stdout.write(`${line}\n`),
  );
  return {
    stop: async () => {
      stopAnnouncing();
      await core.stop();
    },
  };
}

/**
 * Catches SIGINT/SIGTERM from the moment a long-running command begins and returns where to
 * hand its stop function. The start-up lines are printed before that function exists; a
 * signal in between (a script that reads the listening line and stops the bridge at once)
 * still stops it cleanly with exit 0 instead of killing it. Once stopped it prints `stoppedLine`,
 * so the person at the terminal knows the Ctrl+C was heard and everything is down.
 */
function catchStopSignals(stoppedLine: string): (stop: () => Promise<void>) => void {
  let stop: (() => Promise<void>) | undefined;
  let requested = false;
  let stopping = false;
  const run = (): void => {
    if (!requested || !stop || stopping) return;
    stopping = true;
    stop().then(
      () => process.stdout.write(`${stoppedLine}\n`, () => process.exit(0)),
      (error: unknown) =>
        process.stderr.write(
          `${PROGRAM}: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`,
          () => process.exit(1),
        ),
    );
  };
  const handler = (): void => {
    requested = true;
    run();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return (given) => {
    stop = given;
    run();
  };
}

/** Runs one parsed command; serve, sim and demo return once started and run until a signal. */
async function runCommand(name: CommandName, flags: ParsedFlags): Promise<void> {
  switch (name) {
    case 'help':
      process.stdout.write(`${usage()}\n`);
      return;
    case 'serve': {
      const settings = bridgeSettings(flags, { port: 8765, dataDir: defaultDataDir });
      const adb = flags.values('adb').map(adbServerFromCommandLine);
      const onStop = catchStopSignals('device-bridge stopped');
      // Always: an ssh:// host may also be added while the bridge runs (Settings → Hosts).
      const bridge = await startBridge(settings, adb, {}, sshFromCommandLine(flags));
      onStop(() => bridge.stop());
      return;
    }
    case 'api-key':
      process.stdout.write(
        `${process.env.DEVICE_BRIDGE_API_KEY ?? loadOrCreateSecret(flags.value('data-dir') ?? defaultDataDir(), 'api-key')}\n`,
      );
      return;
    case 'admin-token':
      process.stdout.write(
        `${process.env.DEVICE_BRIDGE_ADMIN_TOKEN ?? loadOrCreateSecret(flags.value('data-dir') ?? defaultDataDir(), 'admin-token')}\n`,
      );
      return;
    case 'sim':
    case 'demo': {
      // The demo's own data folder (no --data-dir) holds its API key and admin token: it goes when the demo stops.
      let madeDir: string | undefined;
      const settings =
        name === 'demo'
          ? bridgeSettings(flags, {
              port: 0,
              dataDir: () => (madeDir = mkdtempSync(join(tmpdir(), 'device-bridge-demo-'))),
            })
          : undefined;
      const { runSimCommand } = await import('./sim/sim-cli.js');
      const onStop = catchStopSignals(
        name === 'demo'
          ? `device-bridge demo stopped: the bridge, its simulated phones and its ADB server${name === 'demo' && flags.value('data-dir') === undefined ? ', and its data folder deleted' : ''}`
          : 'simulated phones stopped and detached from adb',
      );
      const stop = await runSimCommand(name, flags, (adb) => {
        if (!settings) throw new Error('only demo starts the bridge');
        return startBridge(settings, [adb], { temporaryDataDir: flags.value('data-dir') === undefined });
      });
      onStop(async () => {
        await stop();
        if (madeDir !== undefined) rmSync(madeDir, { recursive: true, force: true });
      });
      return;
    }
  }
}

function exitWith(code: number, text: string): void {
  // Exit only once the message is out (stderr may be a pipe); a half-started command may
  // still hold timers or sockets, so this does not wait for the event loop to drain.
  process.stderr.write(text, () => process.exit(code));
}

/**
 * Runs a command line (`argv` without node and the script). Usage errors print the reason
 * and the usage and exit 2; other failures print one line and exit 1. serve, sim and demo
 * keep running after this resolves, until SIGINT or SIGTERM.
 */
export async function run(argv: readonly string[]): Promise<void> {
  try {
    const { command, flags, help } = parseCommandLine(argv, COMMANDS, DEFAULT_COMMAND);
    if (help) {
      process.stdout.write(`${usage()}\n`);
      return;
    }
    await runCommand(command.name, flags);
  } catch (error) {
    if (error instanceof UsageError) exitWith(2, `${PROGRAM}: ${error.message}\n\n${usage()}\n`);
    else exitWith(1, `${PROGRAM}: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

if (require.main === module) void run(process.argv.slice(2));
