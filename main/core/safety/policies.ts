/**
 * Per-phone safety policy: a decision (allow / ask / deny) per risk class, defaults for every
 * phone, overrides per device_id, the person's additions to the sensitive-app list, and how
 * typed text is kept in the audit trail (`audit_typed_text`).
 * Stored in state.json (`policies`); `PUT /admin/api/policies` bodies are checked strictly
 * here, at the edge, with messages that name the wrong field.
 */
import type { AdminPolicies, AuditTypedText, PolicyDecision } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { StateStore } from '../store/state-store';
import { DEFAULT_DECISIONS, RISK_CLASSES, isRiskClass, type RiskClass } from './risk-classes';
import type { DevicePolicy } from './policy-engine';

const DECISIONS: readonly PolicyDecision[] = ['allow', 'ask', 'deny'];
const TYPED_TEXT_FORMS: readonly AuditTypedText[] = ['digest', 'full'];
const FIELDS = ['defaults', 'per_device', 'sensitive_apps', 'audit_typed_text'];
/** Typed text in the audit trail unless someone chooses otherwise: length and keyed hash only. */
export const DEFAULT_AUDIT_TYPED_TEXT: AuditTypedText = 'digest';
const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
export const MAX_SENSITIVE_APPS = 500;
export const MAX_DEVICE_OVERRIDES = 1000;

function invalid(message: string): BridgeError {
  return new BridgeError('invalid_arguments', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseDecisions(value: unknown, where: string): Partial<Record<RiskClass, PolicyDecision>> {
  if (!isObject(value)) throw invalid(`${where} must be an object of risk class → allow | ask | deny`);
  const out: Partial<Record<RiskClass, PolicyDecision>> = {};
  for (const [key, decision] of Object.entries(value)) {
    if (!isRiskClass(key))
      throw invalid(`${where}.${key.slice(0, 60)} is not a risk class (known: ${RISK_CLASSES.join(', ')})`);
    if (typeof decision !== 'string' || !DECISIONS.includes(decision as PolicyDecision))
      throw invalid(`${where}.${key} must be allow, ask or deny`);
    out[key] = decision as PolicyDecision;
  }
  return out;
}

export interface StoredPolicies {
  defaults: Partial<Record<RiskClass, PolicyDecision>>;
  perDevice: Record<string, Partial<Record<RiskClass, PolicyDecision>>>;
  sensitiveApps: string[];
  auditTypedText: AuditTypedText;
}

/** Strict check of a PUT body; throws BridgeError('invalid_arguments') naming the field. */
export function parsePolicies(body: unknown): StoredPolicies {
  if (!isObject(body)) throw invalid('policies must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!FIELDS.includes(key)) throw invalid(`unknown field ${key.slice(0, 60)} (expected ${FIELDS.join(', ')})`);
  }
  const defaults = parseDecisions(body.defaults ?? {}, 'defaults');
  const perDeviceRaw = body.per_device ?? {};
  if (!isObject(perDeviceRaw)) throw invalid('per_device must be an object of device_id → decisions');
  const entries = Object.entries(perDeviceRaw);
  if (entries.length > MAX_DEVICE_OVERRIDES)
    throw invalid(`per_device may hold at most ${MAX_DEVICE_OVERRIDES} phones`);
  const perDevice: StoredPolicies['perDevice'] = {};
  for (const [deviceId, decisions] of entries) {
    // eslint-disable-next-line no-control-regex
    if (deviceId.length === 0 || deviceId.length > 256 || /[\u0000-\u001f]/.test(deviceId))
      throw invalid('per_device keys must be device ids of 1 to 256 printable characters');
    perDevice[deviceId] = parseDecisions(decisions, `per_device.${deviceId.slice(0, 60)}`);
  }
  const appsRaw = body.sensitive_apps ?? [];
  if (!Array.isArray(appsRaw)) throw invalid('sensitive_apps must be an array of package names');
  if (appsRaw.length > MAX_SENSITIVE_APPS)
    throw invalid(`sensitive_apps may hold at most ${MAX_SENSITIVE_APPS} packages`);
  const sensitiveApps: string[] = [];
  appsRaw.forEach((pkg, i) => {
    if (typeof pkg !== 'string' || pkg.length > 255 || !PACKAGE_RE.test(pkg))
      throw invalid(`sensitive_apps[${i}] is not an Android package name (like com.example.bank)`);
    if (!sensitiveApps.includes(pkg)) sensitiveApps.push(pkg);
  });
  const typedText = body.audit_typed_text ?? DEFAULT_AUDIT_TYPED_TEXT;
  if (typeof typedText !== 'string' || !TYPED_TEXT_FORMS.includes(typedText as AuditTypedText))
    throw invalid('audit_typed_text must be digest or full');
  return { defaults, perDevice, sensitiveApps, auditTypedText: typedText as AuditTypedText };
}

/** Reads and writes the policies in state.json; a damaged entry falls back to the defaults. */
export class PolicyStore {
  /**
   * The last stored entry read and its checked form: every control call's gate and audit line
   * asks, and `put` is the only writer (it replaces the entry, so a new object means new policies).
   */
  private parsed: { raw: ReturnType<StateStore['get']>['policies']; value: StoredPolicies } | undefined;

  constructor(private readonly store: StateStore) {}

  stored(): StoredPolicies {
    const raw = this.store.get().policies;
    if (this.parsed?.raw === raw) return this.parsed.value;
    let value: StoredPolicies;
    try {
      value = parsePolicies({
        defaults: raw.defaults ?? {},
        per_device: raw.per_device ?? {},
        sensitive_apps: raw.sensitive_apps ?? [],
        audit_typed_text: raw.audit_typed_text,
      });
    } catch {
      value = { defaults: {}, perDevice: {}, sensitiveApps: [], auditTypedText: DEFAULT_AUDIT_TYPED_TEXT };
    }
    this.parsed = { raw, value };
    return value;
  }

  /** The API view: every class in `defaults` (built-in values filled in). */
  get(): AdminPolicies {
    const s = this.stored();
    return {
      defaults: { ...DEFAULT_DECISIONS, ...s.defaults },
      per_device: s.perDevice,
      sensitive_apps: s.sensitiveApps,
      audit_typed_text: s.auditTypedText,
    };
  }

  put(body: unknown): AdminPolicies {
    const parsed = parsePolicies(body);
    this.store.update((state) => {
      state.policies = {
        defaults: parsed.defaults,
        per_device: parsed.perDevice,
        sensitive_apps: parsed.sensitiveApps,
        audit_typed_text: parsed.auditTypedText,
      };
    });
    return this.get();
  }

  /** How typed text goes into the audit trail from now on. */
  auditTypedText(): AuditTypedText {
    return this.stored().auditTypedText;
  }

  /** The effective decisions for one phone: built-in ← defaults ← per-device overrides. */
  forDevice(deviceId: string): DevicePolicy {
    const s = this.stored();
    return {
      decisions: { ...DEFAULT_DECISIONS, ...s.defaults, ...(s.perDevice[deviceId] ?? {}) },
      sensitiveApps: s.sensitiveApps,
    };
  }
}
