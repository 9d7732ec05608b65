/**
 * The `sync:` service of the simulated adbd (what `adb push/pull/ls` and adbkit's sync talk
 * to), backed by PhoneDevice.fs. Speaks the v1 requests (STAT, LIST, SEND, RECV, QUIT) and
 * the v2 ones adb 1.0.41 uses once the device advertises stat_v2/ls_v2 (STA2, LST2, LIS2
 * answered with DNT2). sendrecv_v2 (SND2/RCV2) is not advertised and not spoken.
 *
 * Every request is `id` (4 ASCII bytes) + u32 LE length + that many bytes; file contents
 * travel as DATA chunks of at most 64 KiB.
 */
import type { DeviceStream } from './adbd-stream';
import type { PhoneFileStat, PhoneFileSystem } from './phone-device';

/** Largest DATA chunk either side may send (adb's SYNC_DATA_MAX). */
export const SYNC_DATA_MAX = 64 * 1024;
/** Longest path adbd accepts in a request. */
export const SYNC_PATH_MAX = 1024;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const ENOENT = 2;
/** Bytes of a v2 stat record after its 4-byte id (error … ctime). */
const STAT_V2_BODY = 68;
/** Bytes of the DONE that ends a LIS2 listing after its id: a whole zeroed dent_v2. */
const DENT_V2_DONE_BODY = 72;
/** RECV output is written in batches of about this size (many DATA chunks per write). */
const RECV_BATCH = 1024 * 1024;

interface SyncRequest {
  id: string;
  arg: number;
}

/** Runs one sync session until the host quits, the stream closes or a request fails. */
export async function runSyncService(stream: DeviceStream, fs: PhoneFileSystem): Promise<void> {
  for (;;) {
    const request = await readRequest(stream);
    if (!request) return;
    if (request.id === 'QUIT') return;
    if (request.arg > SYNC_PATH_MAX) {
      await fail(stream, `path too long (${request.arg} bytes)`);
      return;
    }
    const body = await stream.read(request.arg);
    if (!body) return;
    const path = body.toString('utf8');
    switch (request.id) {
      case 'STAT':
        await stream.write(statV1(fs.stat(path)));
        break;
      case 'STA2':
      case 'LST2':
        // The simulated file system has no symlinks, so stat and lstat agree.
        await stream.write(statV2(request.id, fs.stat(path)));
        break;
      case 'LIST':
        await stream.write(listV1(fs, path));
        break;
      case 'LIS2':
        await stream.write(listV2(fs, path));
        break;
      case 'RECV':
        if (!(await sendFile(stream, fs, path))) return;
        break;
      case 'SEND':
        if (!(await receiveFile(stream, fs, path))) return;
        break;
      default:
        await fail(stream, `unknown sync command ${JSON.stringify(request.id)}`);
        return;
    }
  }
}

async function readRequest(stream: DeviceStream): Promise<SyncRequest | undefined> {
  const header = await stream.read(8);
  if (!header) return undefined;
  return { id: header.toString('latin1', 0, 4), arg: header.readUInt32LE(4) };
}

function idAndArg(id: string, arg: number): Buffer {
  const out = Buffer.alloc(8);
  out.write(id, 0, 4, 'latin1');
  out.writeUInt32LE(arg >>> 0, 4);
  return out;
}

async function fail(stream: DeviceStream, message: string): Promise<void> {
  const text = Buffer.from(message, 'utf8');
  await stream.write(Buffer.concat([idAndArg('FAIL', text.length), text]));
}

function statV1(stat: PhoneFileStat | undefined): Buffer {
  const out = Buffer.alloc(16);
  out.write('STAT', 0, 4, 'latin1');
  // A missing file is all zeros, as adbd answers (lstat failure is not reported otherwise).
  if (stat) {
    out.writeUInt32LE(stat.mode >>> 0, 4);
    out.writeUInt32LE(Math.min(stat.size, 0xffffffff), 8);
    out.writeUInt32LE(stat.mtime >>> 0, 12);
  }
  return out;
}

/** error u32, dev u64, ino u64, mode u32, nlink u32, uid u32, gid u32, size u64, a/m/ctime i64. */
function statV2Body(stat: PhoneFileStat | undefined, inode: number): Buffer {
  const out = Buffer.alloc(STAT_V2_BODY);
  if (!stat) {
    out.writeUInt32LE(ENOENT, 0);
    return out;
  }
  out.writeBigUInt64LE(1n, 4);
  out.writeBigUInt64LE(BigInt(inode), 12);
  out.writeUInt32LE(stat.mode >>> 0, 20);
  out.writeUInt32LE(1, 24);
  // uid/gid 2000 = the "shell" user, owner of files pushed to /sdcard and /data/local/tmp.
  out.writeUInt32LE(2000, 28);
  out.writeUInt32LE(2000, 32);
  out.writeBigUInt64LE(BigInt(stat.size), 36);
  out.writeBigInt64LE(BigInt(stat.mtime), 44);
  out.writeBigInt64LE(BigInt(stat.mtime), 52);
  out.writeBigInt64LE(BigInt(stat.mtime), 60);
  return out;
}

function statV2(id: string, stat: PhoneFileStat | undefined): Buffer {
  const head = Buffer.alloc(4);
  head.write(id, 0, 4, 'latin1');
  return Buffer.concat([head, statV2Body(stat, stat ? 1 : 0)]);
}

function isDirectory(stat: PhoneFileStat | undefined): boolean {
  return stat !== undefined && (stat.mode & S_IFMT) === S_IFDIR;
}

function listV1(fs: PhoneFileSystem, path: string): Buffer {
  const parts: Buffer[] = [];
  // adbd answers a missing folder with an empty listing, not an error.
  for (const entry of fs.list(path) ?? []) {
    const name = Buffer.from(entry.name, 'utf8');
    const dent = Buffer.alloc(20);
    dent.write('DENT', 0, 4, 'latin1');
    dent.writeUInt32LE(entry.stat.mode >>> 0, 4);
    dent.writeUInt32LE(Math.min(entry.stat.size, 0xffffffff), 8);
    dent.writeUInt32LE(entry.stat.mtime >>> 0, 12);
    dent.writeUInt32LE(name.length, 16);
    parts.push(dent, name);
  }
  const done = Buffer.alloc(20);
  done.write('DONE', 0, 4, 'latin1');
  parts.push(done);
  return Buffer.concat(parts);
}

function listV2(fs: PhoneFileSystem, path: string): Buffer {
  const parts: Buffer[] = [];
  let inode = 2;
  for (const entry of fs.list(path) ?? []) {
    const name = Buffer.from(entry.name, 'utf8');
    const head = Buffer.alloc(4);
    head.write('DNT2', 0, 4, 'latin1');
    const nameLength = Buffer.alloc(4);
    nameLength.writeUInt32LE(name.length, 0);
    parts.push(head, statV2Body(entry.stat, inode++), nameLength, name);
  }
  const done = Buffer.alloc(4 + DENT_V2_DONE_BODY);
  done.write('DONE', 0, 4, 'latin1');
  parts.push(done);
  return Buffer.concat(parts);
}

/** RECV: the file as DATA chunks then DONE, or FAIL (which ends the session, as in adbd). */
async function sendFile(stream: DeviceStream, fs: PhoneFileSystem, path: string): Promise<boolean> {
  const stat = fs.stat(path);
  const data = stat && (stat.mode & S_IFMT) === S_IFREG ? fs.read(path) : undefined;
  if (!data) {
    await fail(stream, isDirectory(stat) ? 'open failed: Is a directory' : 'open failed: No such file or directory');
    return false;
  }
  let batch: Buffer[] = [];
  let batchBytes = 0;
  for (let offset = 0; offset < data.length; offset += SYNC_DATA_MAX) {
    const chunk = data.subarray(offset, offset + SYNC_DATA_MAX);
    batch.push(idAndArg('DATA', chunk.length), chunk);
    batchBytes += chunk.length + 8;
    if (batchBytes >= RECV_BATCH) {
      await stream.write(Buffer.concat(batch));
      batch = [];
      batchBytes = 0;
    }
  }
  batch.push(idAndArg('DONE', 0));
  await stream.write(Buffer.concat(batch));
  return true;
}

/**
 * SEND "path,mode": DATA chunks until DONE(mtime), then OKAY. On failure the rest of the
 * upload is still read up to DONE so the host sees the FAIL, then the session ends.
 */
async function receiveFile(stream: DeviceStream, fs: PhoneFileSystem, spec: string): Promise<boolean> {
  const comma = spec.lastIndexOf(',');
  const path = comma >= 0 ? spec.slice(0, comma) : spec;
  const parsedMode = comma >= 0 ? Number.parseInt(spec.slice(comma + 1), 10) : Number.NaN;
  let mode = Number.isFinite(parsedMode) ? parsedMode : 0o644;
  if ((mode & S_IFMT) === 0) mode |= S_IFREG;
  let problem: string | undefined;
  if (path === '' || path.endsWith('/')) problem = `invalid path ${JSON.stringify(path)}`;
  else if (isDirectory(fs.stat(path))) problem = `couldn't create file: Is a directory`;
  else if ((mode & S_IFMT) !== S_IFREG) problem = 'only regular files can be pushed';

  const chunks: Buffer[] = [];
  for (;;) {
    const header = await readRequest(stream);
    if (!header) return false;
    if (header.id === 'DONE') {
      if (problem) break;
      try {
        fs.write(path, Buffer.concat(chunks), mode, header.arg);
      } catch (error) {
        problem = `couldn't create file: ${error instanceof Error ? error.message : String(error)}`;
        break;
      }
      await stream.write(idAndArg('OKAY', 0));
      return true;
    }
    if (header.id !== 'DATA') {
      await fail(stream, `expected DATA or DONE, got ${JSON.stringify(header.id)}`);
      return false;
    }
    if (header.arg > SYNC_DATA_MAX) {
      await fail(stream, `DATA chunk of ${header.arg} bytes exceeds ${SYNC_DATA_MAX}`);
      return false;
    }
    const chunk = await stream.read(header.arg);
    if (!chunk) return false;
    if (!problem) chunks.push(chunk);
  }
  await fail(stream, problem ?? 'push failed');
  return false;
}
