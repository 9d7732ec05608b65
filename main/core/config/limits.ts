/** Input shape of the file cache limits (the cache module owns the defaults). */
export interface FileCacheLimitsInput {
  ttlMs?: number;
  maxBytes?: number;
  maxFiles?: number;
  cleanupIntervalMs?: number;
}
