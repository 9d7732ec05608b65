/**
 * The admin state as UTF-8 bytes for GET /admin/api/state, reusing each phone's bytes while
 * its entry reads the same. With 256 phones the answer is ~430 KiB, and turning its JSON into
 * UTF-8 cost about as much as building the state: every label holds "···" (not ASCII), which
 * takes V8's slow path for the whole text. Each entry is still built and serialised on every
 * request and compared with the last text sent for that phone, so an answer can never be stale:
 * only the encoding of an unchanged entry is skipped. The bytes are exactly
 * `Buffer.from(JSON.stringify(state))`.
 */
import { randomBytes } from 'node:crypto';
import type { AdminDevice, AdminState } from '../../contract/admin-api';

export class AdminStateEncoder {
  private readonly entries = new Map<string, { text: string; bytes: Buffer }>();
  /** Stands for the devices array while the rest is serialised; random, so no value can contain it. */
  private readonly marker = `devices-${randomBytes(12).toString('hex')}`;

  encode(state: AdminState): Buffer {
    const text = JSON.stringify({ ...state, devices: this.marker });
    const at = text.indexOf(`"${this.marker}"`);
    if (at < 0) return Buffer.from(JSON.stringify(state), 'utf8');
    const parts: Buffer[] = [Buffer.from(`${text.slice(0, at)}[`, 'utf8')];
    const seen = new Set<string>();
    state.devices.forEach((device, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(this.entryBytes(device));
      seen.add(device.device_id);
    });
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
    parts.push(Buffer.from(`]${text.slice(at + this.marker.length + 2)}`, 'utf8'));
    return Buffer.concat(parts);
  }

  private entryBytes(device: AdminDevice): Buffer {
    const text = JSON.stringify(device);
    const last = this.entries.get(device.device_id);
    if (last?.text === text) return last.bytes;
    const bytes = Buffer.from(text, 'utf8');
    this.entries.set(device.device_id, { text, bytes });
    return bytes;
  }
}

const COMMA = Buffer.from(',');
