/**
 * What `npm start` says when Electron's binary cannot be downloaded (scripts/ensure-electron.mjs):
 * the installer's own error in one line, its cause in plain words, the settings Electron's
 * installer honours, and the way to the same bridge without Electron. Pure functions: no
 * network, nothing downloaded.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Failure {
  error: string;
  version: string;
  platform: string;
  arch: string;
  env?: NodeJS.ProcessEnv;
  skipped?: boolean;
}
interface EnsureElectron {
  describeDownloadFailure: (failure: Failure) => string;
  explainCause: (error: string, env?: NodeJS.ProcessEnv) => string | undefined;
  installerError: (output: string) => string;
}

const ROOT = resolve(__dirname, '..', '..');
const load = async (): Promise<EnsureElectron> =>
  (await import(pathToFileURL(join(ROOT, 'scripts', 'ensure-electron.mjs')).href)) as EnsureElectron;

/** The installer's output seen here without a network (Electron 41, @electron/get 2). */
const OFFLINE_OUTPUT = `RequestError: getaddrinfo ENOTFOUND github.com
    at ClientRequest.<anonymous> (/work/main/node_modules/got/dist/source/core/index.js:970:111)
    at Object.onceWrapper (node:events:639:26)
    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:122:26)
`;
const BASE = { version: '41.7.1', platform: 'linux', arch: 'x64' };
const REMEDIES = [
  'ELECTRON_GET_USE_PROXY=1',
  'GLOBAL_AGENT_HTTPS_PROXY=',
  'ELECTRON_MIRROR=',
  'ELECTRON_CUSTOM_DIR=',
  'electron_config_cache=',
  'ELECTRON_SKIP_BINARY_DOWNLOAD=1',
  'ELECTRON_OVERRIDE_DIST_PATH=',
  'npm run demo',
  'npm run serve',
];

describe('ensure-electron message', () => {
  test('installerError keeps the error line and drops the stack', async () => {
    const { installerError } = await load();
    assert.equal(installerError(OFFLINE_OUTPUT), 'RequestError: getaddrinfo ENOTFOUND github.com');
    assert.equal(installerError('\n\n'), 'the installer failed without saying why');
  });

  test('offline (ENOTFOUND): names the host, the cause, every remedy, and has no stack trace', async () => {
    const { describeDownloadFailure, installerError } = await load();
    const text = describeDownloadFailure({ ...BASE, error: installerError(OFFLINE_OUTPUT), env: {} });
    assert.match(text, /Electron's binary \(Electron 41\.7\.1 for linux-x64\) could not be downloaded/);
    assert.match(text, /from: +https:\/\/github\.com\/electron\/electron\/releases\/download\//);
    assert.match(text, /error: +RequestError: getaddrinfo ENOTFOUND github\.com\n/);
    assert.match(text, /cause: +the name github\.com could not be resolved: no network, or DNS is blocked/);
    for (const remedy of REMEDIES) assert.ok(text.includes(remedy), `mentions ${remedy}`);
    assert.ok(!/\n\s+at /.test(text), 'no stack frames');
    assert.ok(!text.includes('note:'), 'no proxy note when no proxy is set');
  });

  test('a proxy set without ELECTRON_GET_USE_PROXY is pointed out: the installer ignores it', async () => {
    const { describeDownloadFailure } = await load();
    const text = describeDownloadFailure({
      ...BASE,
      error: 'RequestError: connect ETIMEDOUT 140.82.121.3:443',
      env: { HTTPS_PROXY: 'http://proxy.lab:3128' },
    });
    assert.match(text, /cause: +the connection timed out/);
    assert.match(
      text,
      /note: +HTTPS_PROXY is set, but Electron's installer ignores proxies unless ELECTRON_GET_USE_PROXY=1 is set too/,
    );
    // Set through npm's own config, too.
    assert.match(
      describeDownloadFailure({ ...BASE, error: 'x', env: { npm_config_https_proxy: 'http://p:1' } }),
      /note: +npm_config_https_proxy is set/,
    );
  });

  test('proxy errors: refused, authentication, TLS interception', async () => {
    const { explainCause } = await load();
    const proxied = { ELECTRON_GET_USE_PROXY: '1', GLOBAL_AGENT_HTTPS_PROXY: 'http://proxy.lab:3128' };
    assert.match(
      explainCause('RequestError: connect ECONNREFUSED 10.0.0.1:3128', proxied) ?? '',
      /the proxy refused the connection/,
    );
    assert.match(
      explainCause('HTTPError: Response code 407 (Proxy Authentication Required)', proxied) ?? '',
      /USER:PASSWORD@HOST:PORT/,
    );
    assert.match(
      explainCause('RequestError: self-signed certificate in certificate chain', proxied) ?? '',
      /NODE_EXTRA_CA_CERTS/,
    );
    assert.match(
      explainCause('RequestError: getaddrinfo EAI_AGAIN proxy.lab', proxied) ?? '',
      /proxy\.lab could not be resolved.*proxy address is wrong/,
    );
  });

  test('mirror and disk problems', async () => {
    const { explainCause, describeDownloadFailure } = await load();
    assert.match(explainCause('HTTPError: Response code 404 (Not Found)') ?? '', /HTTP 404.*ELECTRON_MIRROR/);
    assert.match(explainCause('HTTPError: Response code 503 (Service Unavailable)') ?? '', /HTTP 503/);
    assert.match(
      explainCause('Error: Generated checksum for "electron-v41.7.1-linux-x64.zip" did not match expected checksum.') ??
        '',
      /checksum/,
    );
    assert.match(explainCause('Error: ENOSPC: no space left on device, write') ?? '', /disk is full/);
    assert.equal(explainCause('Error: something new'), undefined);
    const mirrored = describeDownloadFailure({
      ...BASE,
      error: 'HTTPError: Response code 404 (Not Found)',
      env: { ELECTRON_MIRROR: 'https://mirror.lab/electron/' },
    });
    assert.match(mirrored, /from: +https:\/\/mirror\.lab\/electron\//);
    assert.ok(!describeDownloadFailure({ ...BASE, error: 'Error: something new', env: {} }).includes('cause:'));
  });

  test('ELECTRON_SKIP_BINARY_DOWNLOAD without a binary says so instead of blaming the network', async () => {
    const { describeDownloadFailure } = await load();
    const text = describeDownloadFailure({
      ...BASE,
      error: '',
      skipped: true,
      env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ELECTRON_OVERRIDE_DIST_PATH: '/opt/nowhere' },
    });
    assert.match(text, /ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it was not downloaded/);
    assert.match(text, /ELECTRON_OVERRIDE_DIST_PATH=\/opt\/nowhere holds no Electron executable/);
    assert.ok(!text.includes('could not be downloaded'));
  });
});
