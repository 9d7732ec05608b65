/**
 * The bridge's durable state (state.json in the data dir): the runtime instance id, channels
 * with their bindings and leases, remembered LAN phones, admin settings and the limits people
 * changed (`settings.limits`). One file, written
 * atomically on every change; a corrupt file is moved aside and reported.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { JsonFileStore } from './json-file-store';

const leaseSchema = z.object({
  startedAt: z.number(),
  maxUntil: z.number().nullable(),
  idleTimeoutMs: z.number().nullable(),
  lastActivityAt: z.number(),
});

/** Who holds a binding and how it bound (contract AdminBindingHolder); bindings made before it was kept have none. */
const holderSchema = z.object({
  how: z.enum(['approved', 'access_code', 'access_code_approved']),
  requestedAt: z.number().nullable(),
  /** The pairing code both screens showed. */
  code: z.string().nullable(),
  message: z.string().nullable(),
  requester: z.string().nullable(),
  claimedAs: z.string().nullable(),
  clientAddress: z.string().nullable(),
});

const bindingSchema = z.object({
  deviceId: z.string(),
  displayName: z.string(),
  accountHint: z.string(),
  boundAt: z.number(),
  flowId: z.string(),
  lease: leaseSchema,
  /** Terminal outcome kept so the Descriptor stays truthful until the channel re-authenticates. */
  ended: z.enum(['revoked', 'expired']).nullable().default(null),
  holder: holderSchema.nullable().catch(null).default(null),
});

/** A binding that ended, for the console's history (bounded: BINDING_HISTORY_MAX, newest first). */
const endedBindingSchema = z.object({
  channelId: z.string(),
  deviceId: z.string(),
  displayName: z.string(),
  boundAt: z.number(),
  flowId: z.string(),
  endedAt: z.number(),
  end: z.enum(['logout', 'revoked', 'max_duration', 'idle', 'offline', 'runtime_lease_expired']),
  holder: holderSchema.nullable(),
  lastAction: z.object({ toolId: z.string(), at: z.number(), outcome: z.string() }).nullable(),
});

const channelSchema = z.object({
  id: z.string(),
  connectorId: z.string(),
  createdAt: z.number(),
  binding: bindingSchema.nullable(),
});

const lanDeviceSchema = z.object({
  address: z.string(),
  addedAt: z.number(),
  adbServer: z.string(),
});

const accessCodeSchema = z.object({
  /** device_id, or '*' for the whole pool */
  scope: z.string(),
  salt: z.string(),
  hash: z.string(),
  requireApproval: z.boolean(),
});

const turnoverSettingsSchema = z.object({
  claims: z.boolean().catch(true),
  approvals: z.boolean().catch(false),
  clearData: z.array(z.string()).catch([]),
  devices: z.record(z.string(), z.enum(['on', 'off'])).catch({}),
});

/**
 * Settings people changed while the bridge ran. `limits` holds the limits of
 * main/contract/limits.ts by key; each value is checked where it is read (config/live-limits.ts),
 * so one damaged value is dropped with a warning instead of setting the whole file aside.
 */
const settingsSchema = z
  .object({
    limits: z.record(z.string(), z.unknown()).catch({}).default({}),
    /** The UI's language (Settings → Language); absent or unknown reads as 'system'. */
    language: z.enum(['system', 'en', 'zh-CN']).optional().catch(undefined),
    /** What a lease's end puts back on its phone (handover/handover.ts). */
    turnover: turnoverSettingsSchema.optional().catch(undefined),
    /** The screen stream's consent (main/core/stream/screen-streams.ts): lab-wide default and each phone's choice. */
    screenStream: z
      .object({
        default: z.enum(['ask', 'on']).catch('ask'),
        devices: z.record(z.string(), z.enum(['on', 'off'])).catch({}),
      })
      .optional()
      .catch(undefined),
    /**
     * The open-ports helper's consent (main/core/helper/helper-manager.ts): each phone whose
     * person said yes to appium-uiautomator2-server's open ports. A new key: a yes given under
     * the old `fastLane` setting (whose words did not say what it exposes, and which had a
     * lab-wide "on") is not carried over.
     */
    uia2Server: z
      .object({ devices: z.record(z.string(), z.enum(['on', 'off'])).catch({}) })
      .optional()
      .catch(undefined),
    /**
     * ADB hosts a person added at runtime (Settings → Hosts, `POST /admin/api/hosts`;
     * devices/adb-hosts.ts), started again at every start. `url` is the host's canonical
     * address; `keyPath` the key file it signs in with (null: the start options' key or ssh-agent).
     */
    adbHosts: z
      .array(z.object({ url: z.string(), keyPath: z.string().nullable().catch(null), addedAt: z.number().catch(0) }))
      .optional()
      .catch(undefined),
    /** The phones whose person turned the port-less programs off (phone-programs/phone-programs.ts); on elsewhere. */
    phonePrograms: z
      .object({ devices: z.record(z.string(), z.enum(['on', 'off'])).catch({}) })
      .optional()
      .catch(undefined),
  })
  .catch({ limits: {} });

/** What a running lease left on its phone, for the turnover at its end (handover/lease-effects.ts). */
const leaseEffectsSchema = z.object({
  deviceId: z.string(),
  flowId: z.string().default('unknown'),
  installed: z.array(z.string()).default([]),
  installedUsers: z.record(z.string(), z.number().int()).catch({}).default({}),
  appsAtStart: z.array(z.string()).nullable().catch(null).default(null),
  appsUser: z.number().int().nullable().catch(null).default(null),
  launched: z.array(z.string()).default([]),
  pushed: z.array(z.string()).default([]),
  permissions: z
    .array(z.object({ package: z.string(), permission: z.string(), grantedBefore: z.boolean() }))
    .default([]),
  clipboardSet: z.boolean().default(false),
});

const stateSchema = z.object({
  version: z.literal(1),
  connector: z.object({
    connectorId: z.string().nullable(),
    lastSeenAt: z.number().nullable(),
    /**
     * The last time any xAgent completed hello, kept when its runtime lease expires: until one
     * has, the console opens on its connect guide. Absent in files written before it existed.
     */
    lastHelloAt: z.number().nullable().default(null),
  }),
  channels: z.record(z.string(), channelSchema),
  lanDevices: z.array(lanDeviceSchema).default([]),
  accessCodes: z.array(accessCodeSchema).default([]),
  policies: z.record(z.string(), z.unknown()).default({}),
  settings: settingsSchema.default({ limits: {} }),
  /** Per channel whose lease runs or ended before its turnover ran. */
  leaseEffects: z.record(z.string(), leaseEffectsSchema).catch({}).default({}),
  /** A phone whose turnover failed stays out of new bindings until a person retries or dismisses it. */
  turnoverFailed: z.record(z.string(), z.number()).catch({}).default({}),
  // A damaged history is dropped rather than setting the whole file aside.
  bindingHistory: z.array(endedBindingSchema).catch([]).default([]),
});

export type PersistedState = z.infer<typeof stateSchema>;
export type PersistedChannel = z.infer<typeof channelSchema>;
export type PersistedBinding = z.infer<typeof bindingSchema>;
export type PersistedLease = z.infer<typeof leaseSchema>;
export type PersistedHolder = z.infer<typeof holderSchema>;
export type PersistedEndedBinding = z.infer<typeof endedBindingSchema>;
export type PersistedLanDevice = z.infer<typeof lanDeviceSchema>;
export type PersistedAccessCode = z.infer<typeof accessCodeSchema>;

export function emptyState(): PersistedState {
  return {
    version: 1,
    connector: { connectorId: null, lastSeenAt: null, lastHelloAt: null },
    channels: {},
    lanDevices: [],
    accessCodes: [],
    policies: {},
    settings: { limits: {} },
    leaseEffects: {},
    turnoverFailed: {},
    bindingHistory: [],
  };
}

export class StateStore extends JsonFileStore<PersistedState> {
  constructor(dataDir: string, onCorrupt?: (info: { path: string; movedTo: string; reason: string }) => void) {
    super({
      path: join(dataDir, 'state.json'),
      defaults: emptyState,
      // One readable line for the warning the UI shows (zod's own message is a JSON dump).
      parse: (raw) => {
        const result = stateSchema.safeParse(raw);
        if (result.success) return result.data;
        const issue = result.error.issues[0];
        throw new Error(
          `unexpected contents at ${issue?.path.join('.') || 'the top level'}: ${issue?.message ?? 'invalid'}`,
        );
      },
      ...(onCorrupt ? { onCorrupt } : {}),
    });
  }
}
