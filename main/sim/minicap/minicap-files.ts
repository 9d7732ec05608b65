/**
 * What a simulated phone knows about minicap's real files: the SHA-256 of every binary,
 * shared library and the APK in the `@u4/minicap-prebuilt` package, with the ABI and SDK each
 * was built for. A file pushed to the phone is minicap only when its bytes are one of these;
 * the phone then behaves as that build would on its ABI and SDK (minicap-command.ts).
 * Hashed once per process, on first use (about 40 files, 25 MB).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getPrebuilt } from '@u4/minicap-prebuilt';

/** The ABIs minicap is built for, with what the linker needs to know of each. */
export const MINICAP_ABIS = {
  'arm64-v8a': { bits: 64, machine: 'EM_AARCH64', machineNumber: 183 },
  'armeabi-v7a': { bits: 32, machine: 'EM_ARM', machineNumber: 40 },
  x86: { bits: 32, machine: 'EM_386', machineNumber: 3 },
  x86_64: { bits: 64, machine: 'EM_X86_64', machineNumber: 62 },
} as const;

export type MinicapAbi = keyof typeof MINICAP_ABIS;

export type MinicapFile =
  | { kind: 'binary'; abi: MinicapAbi; pie: boolean }
  | { kind: 'library'; abi: MinicapAbi; sdk: number }
  | { kind: 'apk' };

interface MinicapIndex {
  byHash: Map<string, MinicapFile>;
  /** SDK levels the package ships a minicap.so for, per ABI. */
  librarySdks: Map<MinicapAbi, number[]>;
}

let index: MinicapIndex | undefined;

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function buildIndex(): MinicapIndex {
  const byHash = new Map<string, MinicapFile>();
  const librarySdks = new Map<MinicapAbi, number[]>();
  for (const abi of Object.keys(MINICAP_ABIS) as MinicapAbi[]) {
    for (const [name, pie] of [
      ['minicap', true],
      ['minicap-nopie', false],
    ] as const) {
      const path = getPrebuilt(`${abi}/bin/${name}`);
      // minicap and minicap-nopie are the same bytes for some ABIs: the PIE one wins.
      const hash = sha256(readFileSync(path));
      if (!byHash.has(hash)) byHash.set(hash, { kind: 'binary', abi, pie });
    }
    const libRoot = getPrebuilt(`${abi}/lib`);
    const sdks: number[] = [];
    for (const dir of existsSync(libRoot) ? readdirSync(libRoot) : []) {
      const sdk = /^android-(\d+)$/.exec(dir)?.[1];
      const file = join(libRoot, dir, 'minicap.so');
      if (sdk === undefined || !existsSync(file)) continue;
      sdks.push(Number(sdk));
      byHash.set(sha256(readFileSync(file)), { kind: 'library', abi, sdk: Number(sdk) });
    }
    librarySdks.set(
      abi,
      sdks.sort((a, b) => a - b),
    );
  }
  byHash.set(sha256(readFileSync(getPrebuilt('noarch/minicap.apk'))), { kind: 'apk' });
  return { byHash, librarySdks };
}

/** Which minicap file these bytes are, or undefined when they are none of the package's. */
export function identifyMinicapFile(data: Buffer): MinicapFile | undefined {
  index ??= buildIndex();
  return index.byHash.get(sha256(data));
}

/** Whether the package has a minicap.so for this ABI and SDK. */
export function minicapLibraryExists(abi: MinicapAbi, sdk: number): boolean {
  index ??= buildIndex();
  return index.librarySdks.get(abi)?.includes(sdk) ?? false;
}
