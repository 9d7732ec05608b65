// Builds the React UI (renderer/) for both shells: bundles renderer/src/main.tsx into
// app.js and renderer/src/styles.css into app.css with esbuild, and copies index.html.
// Output uses relative URLs so it works under /console/ and from the Electron app.
// No inline code and no eval, so it runs under a strict CSP.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds the renderer into `outDir` (default dist/renderer): index.html, app.js, app.css.
 * @param {{ outDir?: string, minify?: boolean, sourcemap?: boolean }} [options]
 * @returns {Promise<{ outDir: string, files: string[] }>}
 */
export async function buildRenderer(options = {}) {
  const outDir = resolve(options.outDir ?? join(root, 'dist', 'renderer'));
  const minify = options.minify ?? true;
  await mkdir(outDir, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: [
      { in: 'renderer/src/main.tsx', out: 'app' },
      { in: 'renderer/src/styles.css', out: 'app' },
    ],
    outdir: outDir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    minify,
    sourcemap: options.sourcemap ?? !minify,
    legalComments: minify ? 'none' : 'inline',
    define: { 'process.env.NODE_ENV': JSON.stringify(minify ? 'production' : 'development') },
    logLevel: 'warning',
  });
  await copyFile(join(root, 'renderer', 'index.html'), join(outDir, 'index.html'));
  const html = await readFile(join(outDir, 'index.html'), 'utf8');
  if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html) || /<style[\s>]/i.test(html) || /\sstyle=/i.test(html)) {
    throw new Error('renderer/index.html must not contain inline scripts or styles (strict CSP)');
  }
  return { outDir, files: ['index.html', 'app.js', 'app.css'] };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outFlag = process.argv.indexOf('--out-dir');
  const outDir = outFlag !== -1 ? process.argv[outFlag + 1] : undefined;
  const dev = process.argv.includes('--dev');
  buildRenderer({ outDir, minify: !dev }).then(
    (result) => console.log(`renderer built into ${result.outDir}`),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
