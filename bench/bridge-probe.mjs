/**
 * Loaded into the bridge process the bench spawns (`--expose-gc --import bench/bridge-probe.mjs`;
 * plain JavaScript, so the compiled bridge loads it without tsx too):
 * on SIGUSR2 it runs a full garbage collection and writes process.memoryUsage() to the file
 * named by BENCH_PROBE_FILE. Reading RSS right after a collection tells retained memory apart
 * from garbage V8 has not collected yet, which is what "flat after a load run" is about.
 * Without the variable (or without --expose-gc) it does nothing.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_PROBE_FILE;
const collect = globalThis.gc;

if (target && typeof collect === 'function') {
  process.on('SIGUSR2', () => {
    collect();
    writeFileSync(target, JSON.stringify({ ...process.memoryUsage(), at: Date.now() }));
  });
}
