/**
 * Finds a phone by the words a person types for it (a lab claim's `device` field). People
 * name a phone as they see it or as it is printed on its back: "Pixel 7", "4F2A", "pixel 7
 * 4f2a", the label with its "···" or without, the serial, the device id. Case, spaces and the
 * suffix mark are forgiven.
 *
 * The one rule: the words are tried against the most precise names first (device id, serial,
 * full label), then the serial's last characters, then the model or maker and model; the first
 * kind that matches anything decides. One phone there is the answer; several are ambiguous,
 * and the caller gets their labels to ask again. So "Pixel 7" never picks one of two Pixels
 * by chance, while "Pixel 7 4F2A" still finds one.
 *
 * A TCP phone's adb serial is its network address: it matches only when typed whole (as
 * before), never by its last characters, so probing cannot learn an address piece by piece.
 */
import type { DeviceRecord } from './device-registry';
import { deviceHint, displayName, transportOf } from './device-registry';

/** The fewest trailing serial characters that may name a phone ("4F2A" is four). */
export const MIN_SUFFIX_CHARS = 3;

export type PhoneLookup =
  | { kind: 'found'; device: DeviceRecord }
  | { kind: 'ambiguous'; candidates: DeviceRecord[] }
  | { kind: 'unknown'; candidates: DeviceRecord[] };

/** Lower case, the suffix mark ("···", "...", "…") and punctuation between words dropped, spaces collapsed. */
export function normalizeWords(words: string): string {
  return words
    .toLowerCase()
    .replace(/···|\.\.\.|…|·/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The same, with no spaces at all: serials and ids are compared this way ("4f 2a" is "4f2a"). */
function compact(words: string): string {
  return normalizeWords(words).replace(/ /g, '');
}

/** The phone's own serial characters that the label's hint comes from, if any may be matched by suffix. */
function suffixSource(device: DeviceRecord): string | null {
  if (transportOf(device.serial) === 'usb') return compact(device.serial);
  return device.hardwareSerial ? compact(device.hardwareSerial) : null;
}

function hintTail(device: DeviceRecord): string {
  return compact(deviceHint(device));
}

function exactly(device: DeviceRecord, wantedCompact: string): boolean {
  const names = [device.deviceId, device.serial, device.hardwareSerial ?? ''].filter((n) => n !== '');
  if (names.some((n) => compact(n) === wantedCompact)) return true;
  // The label with or without its mark: "Pixel 7 ···4F2A", "Pixel 7 4F2A", "pixel7 4f2a".
  return compact(displayName(device)) === wantedCompact;
}

function bySuffix(device: DeviceRecord, wantedCompact: string): boolean {
  if (wantedCompact.length < MIN_SUFFIX_CHARS) return false;
  if (hintTail(device) === wantedCompact) return true;
  const source = suffixSource(device);
  return source !== null && source.endsWith(wantedCompact);
}

function byModel(device: DeviceRecord, wantedCompact: string): boolean {
  const model = device.model ? compact(device.model) : '';
  if (model === '') return false;
  const maker = device.manufacturer ? compact(device.manufacturer) : '';
  return model === wantedCompact || (maker !== '' && maker + model === wantedCompact);
}

/**
 * The phone the words name among `devices` (gone phones are never candidates). `unknown`
 * carries every phone still present, so the caller can offer their labels.
 */
export function lookUpPhone(devices: readonly DeviceRecord[], words: string): PhoneLookup {
  const present = devices.filter((d) => d.state !== 'gone');
  const wantedCompact = compact(words);
  if (wantedCompact === '') return { kind: 'unknown', candidates: present };
  const tiers: Array<(d: DeviceRecord) => boolean> = [
    (d) => exactly(d, wantedCompact),
    (d) => bySuffix(d, wantedCompact),
    (d) => byModel(d, wantedCompact),
  ];
  for (const matches of tiers) {
    const hits = present.filter(matches);
    if (hits.length === 1 && hits[0]) return { kind: 'found', device: hits[0] };
    if (hits.length > 1) return { kind: 'ambiguous', candidates: hits };
  }
  return { kind: 'unknown', candidates: present };
}
