/**
 * The files' wiring: the cache of screenshots and files in the data dir, with the limits
 * Settings → Limits gives at start (a start option has already won over the saved value), and
 * the signer of their download URLs.
 */
import { join } from 'node:path';
import { FileCache, type FileCacheLimits } from './file-cache';
import { UrlSigner } from './signed-url';

export interface FilesPorts {
  options: { dataDir: string; fileCache: Partial<FileCacheLimits> };
  limits: { file_cache_ttl_ms: number; file_cache_max_bytes: number; file_cache_max_files: number };
  signingKey: Buffer;
  clock: () => number;
}

export function wireFiles(ports: FilesPorts): { files: FileCache; signer: UrlSigner } {
  const { options, limits, clock } = ports;
  const files = new FileCache({
    dir: join(options.dataDir, 'cache'),
    limits: {
      ...options.fileCache,
      ttlMs: limits.file_cache_ttl_ms,
      maxBytes: limits.file_cache_max_bytes,
      maxFiles: limits.file_cache_max_files,
    },
    clock,
  });
  return { files, signer: new UrlSigner(ports.signingKey, clock) };
}
