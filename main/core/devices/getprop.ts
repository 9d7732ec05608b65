/**
 * `getprop` output, `[key]: [value]` per line: what both the ADB server link (identity at
 * connect) and the phone's facts (android/device-info.ts) read.
 */

/** Parses `getprop` output into a map (other lines ignored). */
export function parseGetprop(output: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^\[([^\]]+)\]:\s*\[(.*)\]\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) props.set(match[1], match[2]);
  }
  return props;
}
