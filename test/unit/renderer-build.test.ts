import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string; files: string[] }>;

async function loadBuilder(): Promise<BuildRenderer> {
  const url = pathToFileURL(resolve(__dirname, '../../scripts/build-renderer.mjs')).href;
  const mod = (await import(url)) as { buildRenderer: BuildRenderer };
  return mod.buildRenderer;
}

void describe('renderer build (web console + Electron window)', () => {
  let outDir = '';
  after(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  void test('bundles index.html, app.js and app.css that load under a strict CSP', async () => {
    outDir = await mkdtemp(join(tmpdir(), 'renderer-build-'));
    const buildRenderer = await loadBuilder();
    const result = await buildRenderer({ outDir });
    assert.deepEqual([...result.files].sort(), ['app.css', 'app.js', 'index.html']);
    for (const file of result.files) {
      const info = await stat(join(outDir, file));
      assert.ok(info.size > 0, `${file} is empty`);
    }

    const html = await readFile(join(outDir, 'index.html'), 'utf8');
    // Every <script> has a src; no inline <style>, style= attributes or event handlers.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.equal(scripts.length, 1, 'exactly one script tag');
    for (const [, attrs, body] of scripts) {
      assert.match(attrs ?? '', /\bsrc="app\.js"/);
      assert.equal((body ?? '').trim(), '', 'script tags carry no inline code');
    }
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle\s*=/i);
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handlers');
    // Relative URLs, so the same files work under /console/ and from the desktop app.
    assert.match(html, /<link rel="stylesheet" href="app\.css"/);
    assert.doesNotMatch(html, /(src|href)="\//);
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN or external font');

    const js = await readFile(join(outDir, 'app.js'), 'utf8');
    assert.doesNotMatch(js, /\beval\(/, 'no eval (CSP without unsafe-eval)');
    assert.doesNotMatch(js, /new Function\(/);
    assert.doesNotMatch(js, /\brequire\(["'](electron|node:|fs|path)/, 'no Node or Electron modules in the UI bundle');
    assert.ok(!js.includes('process.env.NODE_ENV'), 'NODE_ENV is replaced at build time');
    assert.ok(js.includes('data-testid') || js.includes('"data-testid"'), 'the app itself is in the bundle');

    const css = await readFile(join(outDir, 'app.css'), 'utf8');
    assert.doesNotMatch(css, /@import|url\(\s*["']?https?:/i, 'no external stylesheet or font');
    assert.match(css, /:focus-visible/, 'keyboard focus stays visible');
  });
});
