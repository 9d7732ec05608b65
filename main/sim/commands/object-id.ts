/** A stable identity-hash-like hex id for a window or record (what `dumpsys` prints inside `Window{…}`, `ActivityRecord{…}`). */
export function objectId(seed: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h & 0xfffffff).toString(16).padStart(7, '0');
}
