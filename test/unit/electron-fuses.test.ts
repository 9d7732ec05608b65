/**
 * The desktop package's Electron fuses (electron-builder.yml `electronFuses`), as Electron's
 * security checklist recommends: the packaged binary cannot run as plain Node.js or take
 * NODE_OPTIONS / --inspect, loads its code only from its own integrity-checked asar, and
 * encrypts cookies. Read from the file itself: a fuse flipped or dropped fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** The `electronFuses:` block's `key: true|false` lines (the file keeps it flat, two-space indented). */
function fuses(): Record<string, boolean> {
  const text = readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8');
  const block = /^electronFuses:\n((?: {2}\S.*\n?)+)/m.exec(text)?.[1];
  assert.ok(block, 'electron-builder.yml has an electronFuses block');
  const out: Record<string, boolean> = {};
  for (const line of block.split('\n')) {
    const m = /^ {2}([A-Za-z]+):\s*(true|false)\s*$/.exec(line);
    if (m?.[1]) out[m[1]] = m[2] === 'true';
  }
  return out;
}

test('the packaged app cannot be run as plain Node.js and loads only its own checked code', () => {
  assert.deepEqual(fuses(), {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
  });
});

test('every fuse named is one electron-builder knows', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'node_modules/app-builder-lib/scheme.json'), 'utf8')) as {
    definitions: Record<string, { properties?: Record<string, unknown> }>;
  };
  const known = Object.keys(schema.definitions.FuseOptionsV1?.properties ?? {});
  for (const name of Object.keys(fuses()))
    assert.ok(known.includes(name), `${name} is not an electron-builder fuse option`);
});
