/**
 * The commands of `device-bridge` and the flags each one reads, declared once: the parser
 * (cli-args.ts) refuses anything not listed here, and the usage text is printed from it.
 * A new setting of the bridge goes into BRIDGE_FLAGS (serve and demo both take it) and is
 * read in cli.ts where the core's options are built.
 */
import { formatUsage, type CommandSpec, type FlagSpec } from './cli-args';
import { NETWORK_FLAGS } from './cli-network';
import { LIMIT_FLAGS } from './cli-limits';
import { LIMIT_DEFINITIONS, LIMIT_KEYS } from './contract/limits';

export const PROGRAM = 'device-bridge';

const DATA_DIR_FLAG = {
  name: 'data-dir',
  kind: 'value',
  placeholder: 'DIR',
  help: 'state folder (default $DEVICE_BRIDGE_DATA_DIR, else ~/.xagent-device-bridge)',
} as const satisfies FlagSpec;

/** Settings of the bridge itself, taken by both `serve` and `demo`; then its changeable limits (cli-limits.ts). */
export const BRIDGE_FLAGS = [
  { name: 'host', kind: 'value', placeholder: 'HOST', help: 'bind address (default 127.0.0.1)' },
  {
    name: 'port',
    kind: 'value',
    placeholder: 'PORT',
    help: 'port of all planes and the console (default 8765; 0 = any free port)',
  },
  DATA_DIR_FLAG,
  { name: 'allow-remote-admin', kind: 'boolean', help: 'let non-loopback clients use the admin API and console' },
  {
    name: 'no-phone-programs',
    kind: 'boolean',
    help: 'never run scrcpy-server or the snapshot helper on phones: stock adb commands only',
  },
  ...NETWORK_FLAGS,
  ...LIMIT_FLAGS,
] as const satisfies readonly FlagSpec[];

/** Simulated phones, taken by `sim` and `demo`. */
const SIM_FLAGS = [
  { name: 'devices', kind: 'value', placeholder: 'N', help: 'how many simulated phones, 1-64 (default 1; demo 3)' },
  {
    name: 'profile',
    kind: 'value',
    placeholder: 'instant|usb-phone',
    help: 'timing of the simulated phones (default instant)',
  },
  {
    name: 'quirks',
    kind: 'value',
    placeholder: 'a,b',
    help: 'named ways real phones fail, carried by every simulated phone (main/sim/QUIRKS.md)',
  },
] as const satisfies readonly FlagSpec[];

export const COMMANDS = [
  {
    name: 'serve',
    summary: 'run the headless bridge and its web console (the default command)',
    flags: [
      ...BRIDGE_FLAGS,
      {
        name: 'adb',
        kind: 'value',
        repeatable: true,
        placeholder: 'HOST:PORT|ssh://USER@HOST[:PORT]',
        help: "an ADB server to take phones from; ssh:// reaches the ADB server on that host's loopback through SSH (default: ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)",
      },
      {
        name: 'ssh-key',
        kind: 'value',
        placeholder: 'PATH',
        help: 'private key for ssh:// ADB hosts (default: the keys in ssh-agent, SSH_AUTH_SOCK)',
      },
      {
        name: 'ssh-known-hosts',
        kind: 'value',
        placeholder: 'PATH',
        help: "known_hosts file that pins ssh:// hosts' keys (default ~/.ssh/known_hosts; a host it does not list is pinned on first use)",
      },
    ],
  },
  { name: 'api-key', summary: 'print the system API key to paste into xAgent', flags: [DATA_DIR_FLAG] },
  { name: 'admin-token', summary: 'print the console/admin token', flags: [DATA_DIR_FLAG] },
  {
    name: 'sim',
    summary: 'attach simulated phones to an ADB server until stopped',
    flags: [
      ...SIM_FLAGS,
      {
        name: 'adb',
        kind: 'value',
        placeholder: 'HOST:PORT',
        help: 'the ADB server to attach them to (default as for serve)',
      },
    ],
  },
  {
    name: 'demo',
    summary:
      'a private ADB server, simulated phones and the bridge (port 0 and a new temporary data folder unless given)',
    flags: [...SIM_FLAGS, ...BRIDGE_FLAGS],
  },
  { name: 'help', summary: 'print this text', flags: [] },
] as const satisfies readonly CommandSpec[];

export type CommandName = (typeof COMMANDS)[number]['name'];

export const DEFAULT_COMMAND: CommandName = 'serve';

const ENVIRONMENT = `Environment: DEVICE_BRIDGE_API_KEY, DEVICE_BRIDGE_ADMIN_TOKEN, DEVICE_BRIDGE_DATA_DIR,
ADB_SERVER_SOCKET (tcp:HOST:PORT), ANDROID_ADB_SERVER_PORT,
DEVICE_BRIDGE_TLS_CERT + DEVICE_BRIDGE_TLS_KEY, DEVICE_BRIDGE_PUBLIC_URL (flags win over them).
Limits: ${LIMIT_KEYS.map((key) => LIMIT_DEFINITIONS[key].env).join(', ')}
take the same values as their flags (durations like 90s, 2m, 8h; sizes like 256MiB, 1GiB;
none for no cap). A flag wins over its variable; both win over a value saved in Settings.
Unknown commands and flags are refused with exit status 2.`;

/** The usage text printed by `help`, `--help` and after a refused command line. */
export function usage(): string {
  return formatUsage(PROGRAM, COMMANDS, ENVIRONMENT);
}
