// First step of `npm start`: makes sure Electron's binary is on disk before the desktop app
// runs. Electron's own installer (node_modules/electron/install.js) does the download; when
// it fails (offline, a proxy, a mirror, a full disk) this says in plain words what happened
// and what to do, instead of the installer's stack trace, and exits 1.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** A 100 MB download on a slow line fits; a proxy that never answers does not hang `npm start` forever. */
const INSTALL_DEADLINE_MS = 15 * 60 * 1000;
const OFFICIAL_MIRROR = 'https://github.com/electron/electron/releases/download/';

/** The executable's path inside Electron's dist folder, as electron/install.js names it. */
function platformPath(platform) {
  if (platform === 'darwin' || platform === 'mas') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/**
 * Whether `electron .` will find a binary: the same checks as electron/install.js
 * (dist/version, path.txt, the executable) or ELECTRON_OVERRIDE_DIST_PATH as electron/index.js reads it.
 * @param {string} electronDir node_modules/electron
 * @param {string} version the electron package's version
 * @param {NodeJS.ProcessEnv} env
 */
export function electronBinaryPresent(electronDir, version, env = process.env) {
  const executable = platformPath(env.npm_config_platform || process.platform);
  if (env.ELECTRON_OVERRIDE_DIST_PATH) return existsSync(join(env.ELECTRON_OVERRIDE_DIST_PATH, executable));
  try {
    if (
      readFileSync(join(electronDir, 'dist', 'version'), 'utf8')
        .trim()
        .replace(/^v/, '') !== version
    )
      return false;
    if (readFileSync(join(electronDir, 'path.txt'), 'utf8') !== executable) return false;
  } catch {
    return false;
  }
  return existsSync(join(electronDir, 'dist', executable));
}

/**
 * The error line of the installer's output: the first line that is not a stack frame,
 * e.g. `RequestError: getaddrinfo ENOTFOUND github.com`.
 * @param {string} output
 */
export function installerError(output) {
  const lines = output.split('\n').map((l) => l.trim());
  return lines.find((l) => l.length > 0 && !l.startsWith('at ')) ?? 'the installer failed without saying why';
}

/** @param {NodeJS.ProcessEnv} env */
function configuredProxy(env) {
  for (const name of [
    'GLOBAL_AGENT_HTTPS_PROXY',
    'HTTPS_PROXY',
    'https_proxy',
    'GLOBAL_AGENT_HTTP_PROXY',
    'HTTP_PROXY',
    'http_proxy',
    'npm_config_https_proxy',
    'npm_config_proxy',
  ]) {
    if (env[name]) return name;
  }
  return undefined;
}

/**
 * The cause in plain words, from the installer's error line; undefined when not recognised.
 * @param {string} error
 * @param {NodeJS.ProcessEnv} env
 */
export function explainCause(error, env = process.env) {
  const viaProxy = Boolean(env.ELECTRON_GET_USE_PROXY && configuredProxy(env));
  const host = /(?:ENOTFOUND|EAI_AGAIN)\s+(\S+)/.exec(error)?.[1];
  if (host)
    return `the name ${host} could not be resolved: no network, or DNS is blocked here${viaProxy ? ' (or the proxy address is wrong)' : ''}`;
  if (/\b407\b|proxy authentication/i.test(error))
    return 'the proxy asks for a user name and password (put them in the proxy URL: http://USER:PASSWORD@HOST:PORT)';
  if (/ETIMEDOUT|ESOCKETTIMEDOUT|TimeoutError|timed out/i.test(error))
    return `the connection timed out: offline, a firewall, or a proxy is needed${viaProxy ? ' (the proxy did not answer)' : ''}`;
  if (/ECONNREFUSED/.test(error))
    return viaProxy ? 'the proxy refused the connection (check its address and port)' : 'the connection was refused';
  if (/ECONNRESET|socket hang up|EPIPE/i.test(error))
    return 'the connection was cut off: a firewall or proxy in the way?';
  if (
    /self[- ]signed certificate|UNABLE_TO_GET_ISSUER_CERT|unable to verify the first certificate|CERT_|certificate/i.test(
      error,
    )
  ) {
    return "the server's TLS certificate was not trusted: a proxy that inspects HTTPS? Give Node its certificate with NODE_EXTRA_CA_CERTS=/path/to/ca.pem";
  }
  const status = /Response code (\d{3})/.exec(error)?.[1];
  if (status === '404') return 'the server has no such file (HTTP 404): check ELECTRON_MIRROR and ELECTRON_CUSTOM_DIR';
  if (status) return `the server answered HTTP ${status}`;
  if (/checksum/i.test(error))
    return 'the downloaded file does not match its checksum: an interrupted download, or a mirror serving another file';
  if (/ENOSPC/.test(error)) return 'the disk is full';
  if (/EACCES|EPERM/.test(error)) return 'no permission to write node_modules/electron or the download cache';
  return undefined;
}

/**
 * Where @electron/get keeps downloads when electron_config_cache is not set (its README).
 * @param {string} platform
 * @param {NodeJS.ProcessEnv} env
 */
function defaultCacheDir(platform, env) {
  if (platform === 'darwin') return '~/Library/Caches/electron';
  if (platform === 'win32') return '%LOCALAPPDATA%\\electron\\Cache';
  return env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, 'electron') : '~/.cache/electron';
}

/**
 * What `npm start` prints when Electron's binary could not be fetched: what happened (the
 * installer's own error in one line and its cause in plain words), the settings Electron's
 * installer honours, and that `npm run demo` / `npm run serve` need no Electron.
 * @param {{ error: string, version: string, platform: string, arch: string, env?: NodeJS.ProcessEnv, skipped?: boolean }} failure
 *   `skipped`: the installer did nothing because ELECTRON_SKIP_BINARY_DOWNLOAD is set.
 */
export function describeDownloadFailure({ error, version, platform, arch, env = process.env, skipped = false }) {
  const mirror = env.ELECTRON_MIRROR || env.npm_config_electron_mirror || OFFICIAL_MIRROR;
  const lines = [];
  if (skipped) {
    lines.push(
      `Electron ${version} is not on this computer, and ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it was not downloaded;`,
      'the desktop app cannot start.',
    );
    if (env.ELECTRON_OVERRIDE_DIST_PATH)
      lines.push(`ELECTRON_OVERRIDE_DIST_PATH=${env.ELECTRON_OVERRIDE_DIST_PATH} holds no Electron executable.`);
  } else {
    lines.push(
      `Electron's binary (Electron ${version} for ${platform}-${arch}) could not be downloaded, so the desktop app cannot start.`,
      `  from:   ${mirror}`,
      `  error:  ${error}`,
    );
    const cause = explainCause(error, env);
    if (cause) lines.push(`  cause:  ${cause}`);
    const proxy = configuredProxy(env);
    if (proxy && !env.ELECTRON_GET_USE_PROXY) {
      lines.push(
        `  note:   ${proxy} is set, but Electron's installer ignores proxies unless ELECTRON_GET_USE_PROXY=1 is set too.`,
      );
    }
  }
  lines.push(
    '',
    "What you can do (Electron's installer reads these environment variables; then run npm start again):",
    '  behind a proxy:     ELECTRON_GET_USE_PROXY=1 GLOBAL_AGENT_HTTPS_PROXY=http://HOST:PORT npm start   (or HTTPS_PROXY)',
    '  from a mirror:      ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/ npm start',
    `                      (ELECTRON_CUSTOM_DIR=... when the mirror's folders are not named v${version})`,
    `  download cache:     electron_config_cache=DIR keeps the downloaded zip (default ${defaultCacheDir(platform, env)});`,
    `                      it is read before the network: a copy from a computer that fetched Electron ${version} works offline`,
    '  Electron you have:  ELECTRON_SKIP_BINARY_DOWNLOAD=1 ELECTRON_OVERRIDE_DIST_PATH=/folder/with/electron npm start',
    '',
    'Without Electron: `npm run demo` (simulated phones) or `npm run serve` (your phones) run the same bridge',
    'and print a link to the same UI, which opens in your browser.',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Runs Electron's installer with a deadline; resolves to its exit status and what it printed.
 * @param {string} installScript
 */
function runInstaller(installScript) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [installScript], {
      cwd: dirname(installScript),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk) => {
      output = (output + chunk.toString()).slice(-64 * 1024);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      output += `\nError: the download did not finish within ${INSTALL_DEADLINE_MS / 60_000} minutes (timed out)\n`;
    }, INSTALL_DEADLINE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolvePromise({ code: 1, output: `${error.message}\n` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? 1, output });
    });
  });
}

async function main() {
  const electronDir = join(root, 'node_modules', 'electron');
  if (!existsSync(join(electronDir, 'package.json'))) {
    process.stderr.write(
      'Electron is not in node_modules: run `npm install` first (or `npm run demo` / `npm run serve`, which need no Electron).\n',
    );
    return 1;
  }
  const { version } = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8'));
  if (electronBinaryPresent(electronDir, version)) return 0;
  const platform = process.env.npm_config_platform || process.platform;
  const arch = process.env.npm_config_arch || process.arch;
  if (!process.env.ELECTRON_SKIP_BINARY_DOWNLOAD)
    process.stdout.write(`Fetching Electron ${version} for ${platform}-${arch} (once, about 100 MB)...\n`);
  const { code, output } = await runInstaller(join(electronDir, 'install.js'));
  if (code === 0 && electronBinaryPresent(electronDir, version)) return 0;
  const skipped = code === 0 && Boolean(process.env.ELECTRON_SKIP_BINARY_DOWNLOAD);
  process.stderr.write(
    `\n${describeDownloadFailure({ error: installerError(output), version, platform, arch, skipped })}`,
  );
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`ensure-electron: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
