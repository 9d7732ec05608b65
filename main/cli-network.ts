/**
 * The network flags of `serve` and `demo` (docs/REFERENCE.md "For labs"): TLS in the bridge
 * (`--tls-cert/--tls-key`, or `--tls self-signed`), the public URL behind a proxy, trusted
 * proxies and `--allow-from`, with their env variables (a flag wins over its variable);
 * and the start-up lines that say how the bridge faces the network: the certificate's
 * fingerprint, the base URL for xAgent, the console link, a command that prints the API key
 * (as typed where the program was started), and the clear-text warning.
 */
import { join, resolve } from 'node:path';
import { UsageError, type FlagSpec } from './cli-args';
import { projectRoot } from './core/build-info';
import type { NetworkOptionsInput } from './core/config/network-options';
import type { Core } from './core/create-core';

export const NETWORK_FLAGS = [
  {
    name: 'tls-cert',
    kind: 'value',
    placeholder: 'FILE',
    help: 'PEM certificate (chain): https/wss on the same port, reloaded when renewed (with --tls-key; env DEVICE_BRIDGE_TLS_CERT)',
  },
  {
    name: 'tls-key',
    kind: 'value',
    placeholder: 'FILE',
    help: 'PEM private key of --tls-cert (env DEVICE_BRIDGE_TLS_KEY)',
  },
  {
    name: 'tls',
    kind: 'value',
    placeholder: 'self-signed',
    help: "https/wss with this machine's own certificate, made once in the data dir; prints its SHA-256 fingerprint",
  },
  {
    name: 'public-url',
    kind: 'value',
    placeholder: 'URL',
    help: 'base URL xAgent is given behind a reverse proxy, e.g. https://lab.example/devices (env DEVICE_BRIDGE_PUBLIC_URL)',
  },
  {
    name: 'trust-proxy',
    kind: 'value',
    repeatable: true,
    placeholder: 'CIDR',
    help: 'believe X-Forwarded-For from this proxy (otherwise the header is ignored)',
  },
  {
    name: 'allow-from',
    kind: 'value',
    repeatable: true,
    placeholder: 'CIDR',
    help: 'only these clients reach /ws, /health and /files (403 otherwise)',
  },
] as const satisfies readonly FlagSpec[];

/** Reads the network flags (ParsedFlags, or a stand-in in tests). */
export interface NetworkFlagReader {
  value(name: 'tls-cert' | 'tls-key' | 'tls' | 'public-url'): string | undefined;
  values(name: 'trust-proxy' | 'allow-from'): readonly string[];
}

/**
 * The core's network options from flags and environment. Half a TLS pair, or both kinds of
 * TLS, is a UsageError (exit 2); URLs and CIDRs are checked by the core's options.
 */
export function networkFromCommandLine(flags: NetworkFlagReader, env: NodeJS.ProcessEnv): NetworkOptionsInput {
  const tls = flags.value('tls');
  if (tls !== undefined && tls !== 'self-signed')
    throw new UsageError(
      'invalid_value',
      `--tls takes only self-signed (got ${JSON.stringify(tls)}); for your own certificate use --tls-cert FILE --tls-key FILE`,
    );
  const flagCert = flags.value('tls-cert');
  const flagKey = flags.value('tls-key');
  if (tls !== undefined && (flagCert !== undefined || flagKey !== undefined)) {
    throw new UsageError('invalid_value', '--tls self-signed and --tls-cert/--tls-key exclude each other: choose one');
  }
  const fromEnv = (name: string): string | undefined => (env[name]?.trim() ? env[name]?.trim() : undefined);
  // Flags decide as a pair: a --tls-cert on the command line never meets a key from the environment.
  const fromFlags = flagCert !== undefined || flagKey !== undefined;
  const certFile = fromFlags ? flagCert : fromEnv('DEVICE_BRIDGE_TLS_CERT');
  const keyFile = fromFlags ? flagKey : fromEnv('DEVICE_BRIDGE_TLS_KEY');
  const [certName, keyName] = fromFlags
    ? ['--tls-cert', '--tls-key']
    : ['DEVICE_BRIDGE_TLS_CERT', 'DEVICE_BRIDGE_TLS_KEY'];
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError(
      'invalid_value',
      `${certFile === undefined ? certName : keyName} is missing: ${certName} and ${keyName} go together`,
    );
  }
  const publicUrl = flags.value('public-url') ?? fromEnv('DEVICE_BRIDGE_PUBLIC_URL');
  const trustProxy = flags.values('trust-proxy');
  const allowFrom = flags.values('allow-from');
  return {
    ...(tls === 'self-signed'
      ? { tls: 'self-signed' as const }
      : certFile !== undefined && keyFile !== undefined && tls === undefined
        ? { tls: { certFile, keyFile } }
        : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(trustProxy.length ? { trustProxy } : {}),
    ...(allowFrom.length ? { allowFrom } : {}),
  };
}

/** The web console's address, ending in `/console/`: through the proxy only when remote admin is allowed, else this machine's. */
export function consoleUrl(core: Pick<Core, 'url' | 'options'>): string {
  const publicUrl = core.options.network.publicUrl;
  return `${publicUrl !== undefined && core.options.allowRemoteAdmin ? publicUrl : core.url()}/console/`;
}

/**
 * How to run this program again, as typed in the terminal it was started from: in the
 * project's folder `npx <program>` finds the package's own bin; anywhere else npx would look
 * the name up in the registry, so the bin is named by its path.
 */
export function commandAsTyped(program: string, cwd: string, root = projectRoot()): string {
  return resolve(cwd) === resolve(root) ? `npx ${program}` : `node ${shellWord(join(root, 'bin', `${program}.js`))}`;
}

/** A word a POSIX shell reads back unchanged: as it is when it is plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The lines printed once the bridge listens: where, with which certificate, what to give xAgent; warnings go to stderr. */
export function startBanner(
  core: Pick<Core, 'url' | 'publicUrl' | 'tls' | 'warnings' | 'adminToken' | 'options'>,
  listening: { host: string; port: number },
  program: string,
  options: { temporaryDataDir?: boolean; cwd?: string } = {},
): { out: string; err: string } {
  const tls = core.tls();
  const shownHost = listening.host.includes(':') ? `[${listening.host}]` : listening.host;
  const lines = [`${program} listening on ${tls ? 'https' : 'http'}://${shownHost}:${listening.port}`];
  if (tls) {
    const made =
      tls.source === 'self-signed' ? (tls.created ? 'self-signed, made now' : 'self-signed') : 'from --tls-cert';
    lines.push(`TLS certificate SHA-256 fingerprint: ${tls.fingerprint256} (${made}; ${tls.certFile})`);
  }
  const publicUrl = core.options.network.publicUrl;
  if (publicUrl !== undefined) lines.push(`xAgent base URL: ${publicUrl}`);
  lines.push(`web console: ${consoleUrl(core)}#token=${core.adminToken()}`);
  lines.push(
    `system API key for xAgent: ${commandAsTyped(program, options.cwd ?? process.cwd())} api-key --data-dir ${shellWord(core.options.dataDir)}`,
  );
  lines.push(
    options.temporaryDataDir
      ? `stop: Ctrl+C (the demo's data folder ${core.options.dataDir}, its API key and admin token included, is deleted then)`
      : 'stop: Ctrl+C',
  );
  const err = core
    .warnings()
    .map((w) => `${program}: WARNING: ${w}\n`)
    .join('');
  return { out: `${lines.join('\n')}\n`, err };
}
