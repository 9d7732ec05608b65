/**
 * The browser tests' shared setup: the console built once per file into a temporary folder
 * (scripts/build-renderer.mjs, not minified, so failures read), and Debian's Chromium through
 * playwright-core (never downloaded; CHROMIUM_PATH overrides /usr/bin/chromium), headless
 * without a sandbox as CI runs it. And `eventually`, the browser tests' poll with a deadline.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string }>;

/** Builds the console into a new temporary folder (its name starts with `prefix`) and launches Chromium. */
export async function startConsoleBrowser(prefix: string): Promise<{ browser: Browser; buildDir: string }> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
  const buildDir = mkdtempSync(join(tmpdir(), prefix));
  const { buildRenderer } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href)) as {
    buildRenderer: BuildRenderer;
  };
  await buildRenderer({ outDir: buildDir, minify: false });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  return { browser, buildDir };
}

/** Closes what startConsoleBrowser started (either may be missing when the start failed). */
export async function stopConsoleBrowser(browser: Browser | undefined, buildDir: string): Promise<void> {
  await browser?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
}

/** Polls `fn` every 50 ms until it answers something truthy, else fails naming `what`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
