/**
 * The lab's named secrets — a test account's password, a PIN — that an agent types by name
 * (android_type_text `secret`) and never sees (docs/REFERENCE.md "Secrets by reference"). They live in
 * `lab-secrets.json` in the data dir (0600), each value sealed with AES-256-GCM under a random
 * key of the data dir (`lab-secrets-key`, a 0600 file like the API key) with a fresh IV per
 * write, and the name bound in as associated data so a sealed value cannot be moved to
 * another name. Whoever holds the whole data dir holds the key too, as for every key here.
 *
 * Nothing here answers a value but `reveal`, which the typing tool calls at the moment it
 * types, for the phone it types on; `list` gives names, phones and times. The opened values
 * are also kept in memory for one purpose: what the bridge sends, logs or writes is scrubbed
 * of them (`forms`).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import {
  SECRET_MAX_COUNT,
  SECRET_MAX_DEVICES,
  SECRET_NAME_PATTERN,
  SECRET_VALUE_MAX_LENGTH,
  type AdminSecret,
} from '../../contract/admin-api';
import { BridgeError } from '../errors';
import { JsonFileStore } from '../store/json-file-store';
import { loadOrCreateSecret } from './secret-store';

const FILE_NAME = 'lab-secrets.json';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const MAX_DEVICE_ID_LENGTH = 256;

const sealedSchema = z.strictObject({
  name: z.string().regex(SECRET_NAME_PATTERN),
  devices: z.array(z.string().min(1).max(MAX_DEVICE_ID_LENGTH)).min(1).max(SECRET_MAX_DEVICES).nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
const fileSchema = z.strictObject({ version: z.literal(1), secrets: z.array(sealedSchema) });

type SealedSecret = z.infer<typeof sealedSchema>;
type SecretsFile = z.infer<typeof fileSchema>;

export interface LabSecretsOptions {
  dataDir: string;
  clock: () => number;
  /** A problem found at start (a damaged file kept aside, a value the key cannot open), in words without any value. */
  warn?: (message: string) => void;
}

/**
 * Every form a value may take on its way to a phone, for scrubbing and redaction: as typed,
 * JSON-escaped, as `input text` sends spaces (`%s`), and base64 (ADB Keyboard's broadcast).
 * Forms of a value shorter than 4 characters are only the value itself and its JSON form.
 * Their long prefixes and suffixes are scrubbed too (secret-fragments.ts).
 */
export function secretForms(value: string): string[] {
  const forms = [value, JSON.stringify(value).slice(1, -1)];
  if (value.length >= 4) {
    const bytes = Buffer.from(value, 'utf8');
    // base64 of the value from its 2nd and 3rd byte too: a suffix's own base64 is a suffix of
    // one of these three, whichever byte it starts at (secret-fragments.ts scrubs such pieces).
    forms.push(
      value.replaceAll(' ', '%s'),
      bytes.toString('base64'),
      bytes.subarray(1).toString('base64'),
      bytes.subarray(2).toString('base64'),
    );
  }
  return [...new Set(forms)];
}

export class LabSecrets {
  private readonly file: JsonFileStore<SecretsFile>;
  private readonly key: Buffer;
  /** The opened values by name; a sealed value the key cannot open is absent. */
  private readonly opened = new Map<string, string>();
  private formsCache: string[] | null = null;

  constructor(private readonly o: LabSecretsOptions) {
    this.key = Buffer.from(loadOrCreateSecret(o.dataDir, 'lab-secrets-key'), 'base64url');
    this.file = new JsonFileStore<SecretsFile>({
      path: join(o.dataDir, FILE_NAME),
      defaults: () => ({ version: 1, secrets: [] }),
      parse: (raw) => fileSchema.parse(raw),
      onCorrupt: ({ movedTo }) =>
        o.warn?.(`The secrets file was damaged; it was kept aside as ${movedTo} and no secret is stored now.`),
      mode: 0o600,
    });
    for (const sealed of this.file.get().secrets) {
      const value = this.open(sealed);
      if (value === null)
        o.warn?.(`The secret "${sealed.name}" cannot be opened with this data folder's key; store it again.`);
      else this.opened.set(sealed.name, value);
    }
  }

  /** Names, phones and times, by name; never a value. */
  list(): AdminSecret[] {
    return this.file
      .get()
      .secrets.map(({ name, devices, created_at, updated_at }) => ({
        name,
        devices: devices ? [...devices] : null,
        created_at,
        updated_at,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Stores a secret, or replaces the value and phones of the one with that name.
   * `devices` null: every phone. BridgeError `invalid_arguments` (with `field`) for a bad
   * name, value or list of phones; its message never holds the value.
   */
  set(name: string, value: string, devices: readonly string[] | null): { created: boolean; secret: AdminSecret } {
    checkName(name);
    if (value.length === 0) throw new BridgeError('invalid_arguments', 'value must not be empty', { field: 'value' });
    if (value.length > SECRET_VALUE_MAX_LENGTH)
      throw new BridgeError('invalid_arguments', `value is longer than ${SECRET_VALUE_MAX_LENGTH} characters`, {
        field: 'value',
      });
    // Everything that names the secret would show it otherwise.
    if (name.includes(value))
      throw new BridgeError('invalid_arguments', 'the name must not contain the value', { field: 'value' });
    const phones = devices === null ? null : checkDevices(devices);
    const now = this.o.clock();
    const previous = this.file.get().secrets.find((s) => s.name === name);
    if (!previous && this.file.get().secrets.length >= SECRET_MAX_COUNT) {
      throw new BridgeError(
        'invalid_arguments',
        `the bridge keeps at most ${SECRET_MAX_COUNT} secrets; delete one first`,
        { field: 'name' },
      );
    }
    const sealed: SealedSecret = {
      name,
      devices: phones,
      created_at: previous?.created_at ?? now,
      updated_at: now,
      ...this.seal(name, value),
    };
    this.file.update((draft) => {
      draft.secrets = [...draft.secrets.filter((s) => s.name !== name), sealed];
    });
    this.opened.set(name, value);
    this.formsCache = null;
    const { iv: _iv, tag: _tag, data: _data, ...shown } = sealed;
    return { created: previous === undefined, secret: { ...shown, devices: phones ? [...phones] : null } };
  }

  /** Deletes a secret; BridgeError `secret_not_found` when there is none by that name. */
  delete(name: string): void {
    if (!this.file.get().secrets.some((s) => s.name === name)) throw notFound(name);
    this.file.update((draft) => {
      draft.secrets = draft.secrets.filter((s) => s.name !== name);
    });
    this.opened.delete(name);
    this.formsCache = null;
  }

  /** Whether the secret exists and may be typed on this phone (BridgeError `secret_not_found` / `secret_out_of_scope`), without opening it. */
  check(name: string, deviceId: string): void {
    const sealed = this.file.get().secrets.find((s) => s.name === name);
    if (!sealed) throw notFound(name);
    if (sealed.devices !== null && !sealed.devices.includes(deviceId)) {
      throw new BridgeError(
        'secret_out_of_scope',
        `the secret "${name}" may not be typed on this phone; the person at the computer chooses its phones in Settings → Secrets`,
      );
    }
  }

  /** The value to type on this phone, for the typing tool only, at the moment it types. */
  reveal(name: string, deviceId: string): string {
    this.check(name, deviceId);
    const value = this.opened.get(name);
    if (value === undefined)
      throw new BridgeError(
        'secret_not_found',
        `the secret "${name}" cannot be opened with this data folder's key; store it again in Settings → Secrets`,
      );
    return value;
  }

  /** Every opened secret's name and value: what leaves the bridge is scrubbed of them. */
  values(): Array<{ name: string; value: string }> {
    return [...this.opened].map(([name, value]) => ({ name, value }));
  }

  /** Every form of every value (secretForms), for the logger and the audit trail's redaction. */
  forms(): readonly string[] {
    this.formsCache ??= [...this.opened.values()].flatMap(secretForms);
    return this.formsCache;
  }

  private seal(name: string, value: string): Pick<SealedSecret, 'iv' | 'tag' | 'data'> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.key, iv);
    cipher.setAAD(associatedData(name));
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  private open(sealed: SealedSecret): string | null {
    try {
      const decipher = createDecipheriv(CIPHER, this.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(associatedData(sealed.name));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

function associatedData(name: string): Buffer {
  return Buffer.from(`xagent-device-bridge lab secret\n${name}`, 'utf8');
}

function notFound(name: string): BridgeError {
  return new BridgeError(
    'secret_not_found',
    `no secret named "${name}" is stored at the bridge; the person at the computer adds it in Settings → Secrets`,
  );
}

/** Refuses a name that is not a secret's name (BridgeError `invalid_arguments`, field `name`). */
export function checkName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new BridgeError(
      'invalid_arguments',
      'name must be 1 to 64 letters, digits, ".", "-" or "_", starting with a letter or digit',
      { field: 'name' },
    );
  }
}

function checkDevices(devices: readonly string[]): string[] {
  const phones = [...new Set(devices)];
  if (phones.length === 0)
    throw new BridgeError('invalid_arguments', 'devices must name at least one phone, or be null for every phone', {
      field: 'devices',
    });
  if (phones.length > SECRET_MAX_DEVICES)
    throw new BridgeError('invalid_arguments', `devices may name at most ${SECRET_MAX_DEVICES} phones`, {
      field: 'devices',
    });
  if (phones.some((d) => d.length === 0 || d.length > MAX_DEVICE_ID_LENGTH)) {
    throw new BridgeError('invalid_arguments', `each device id must be 1 to ${MAX_DEVICE_ID_LENGTH} characters`, {
      field: 'devices',
    });
  }
  return phones;
}
