#!/usr/bin/env node
/**
 * Builds the xagent UI reader (device/ui-reader/README.md) from its smali source into
 * resources/device/xagent-ui-reader.jar: `smali assemble` (Debian's libsmali-java) gives
 * classes.dex, and this script stores it in a zip with fixed timestamps and no extra fields, so
 * the same source always gives the same bytes (the bridge checks the phone's copy by hash).
 *
 *   node scripts/build-ui-reader.mjs           write the jar
 *   node scripts/build-ui-reader.mjs --check   exit 1 when the committed jar is not what the source builds
 *
 * Exit 3 when `smali` is not installed (the committed jar is used as it is).
 */
import { Buffer } from 'node:buffer';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(root, 'device', 'ui-reader', 'smali');
export const JAR = join(root, 'resources', 'device', 'xagent-ui-reader.jar');
/** Android 8.0: the oldest release the bridge supports. */
const API_LEVEL = '26';
/** MS-DOS date of 1980-01-01 00:00, the zip format's earliest: no build time in the bytes. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip of stored (uncompressed) entries: ART maps an uncompressed classes.dex straight from the jar. */
function storedZip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    // zipalign's rule: stored data starts on a 4-byte boundary, so ART can map the dex in place.
    const padding = (4 - ((offset + 30 + nameBytes.length) % 4)) % 4;
    const local = Buffer.alloc(30 + padding);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4); // version needed: 1.0
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(padding, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(10, 4); // made by: MS-DOS, 1.0
    central.writeUInt16LE(10, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local.subarray(0, 30), nameBytes, local.subarray(30), data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBytes, end]);
}

export function smaliInstalled() {
  return spawnSync('smali', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The jar the source builds, as bytes. */
export function buildUiReaderJar() {
  const work = mkdtempSync(join(tmpdir(), 'xagent-ui-reader-'));
  try {
    const dex = join(work, 'classes.dex');
    execFileSync('smali', ['assemble', '--api', API_LEVEL, '-o', dex, SOURCE], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return storedZip([{ name: 'classes.dex', data: readFileSync(dex) }]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!smaliInstalled()) {
    console.error('smali is not installed (Debian: apt-get install libsmali-java); the committed jar stays as it is');
    process.exit(3);
  }
  const built = buildUiReaderJar();
  if (process.argv.includes('--check')) {
    let committed = Buffer.alloc(0);
    try {
      committed = readFileSync(JAR);
    } catch {
      // missing: differs
    }
    if (!committed.equals(built)) {
      console.error(`${JAR} is not what device/ui-reader/smali builds; run node scripts/build-ui-reader.mjs`);
      process.exit(1);
    }
    console.log('ui reader jar matches its source');
  } else {
    mkdirSync(dirname(JAR), { recursive: true });
    writeFileSync(JAR, built);
    console.log(`wrote ${JAR} (${built.length} bytes)`);
  }
}
