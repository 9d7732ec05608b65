/**
 * Typing a lab secret by name (android_type_text `secret`, docs/REFERENCE.md "Secrets by reference").
 * The call's record holds only the name, so the journal, the audit trail, the approval card
 * and the phone view's timeline can hold nothing else; the value is asked for inside the
 * tool's run, just before it is typed, and goes nowhere but the phone.
 *
 * What the phone shows afterwards is another way out: a secret typed into a field that is
 * not a password field is in every later UI tree. So every ack the bridge answers, from any
 * tool, is scrubbed of every stored secret's value (`[secret: lab-login]` in its place).
 * Pixels are not: a screenshot shows what the phone shows (type secrets into password fields).
 */
import { BridgeError } from '../errors';
import { secretForms } from '../secrets/lab-secrets';
import { toolFacts } from './catalogue';
import { scrubTypedText } from './typed-text';

/** What the tools need of the lab's secrets (secrets/lab-secrets.ts is one). */
export interface SecretSource {
  /** Throws `secret_not_found` / `secret_out_of_scope` unless the secret may be typed on this phone. */
  check(name: string, deviceId: string): void;
  /** The value, for typing it on this phone now (throws like check). */
  reveal(name: string, deviceId: string): string;
  /** Every stored secret's name and value, to scrub what leaves the bridge. */
  values(): ReadonlyArray<{ name: string; value: string }>;
}

/** What stands where a secret's value would have been. */
export function secretPlaceholder(name: string): string {
  return `[secret: ${name}]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The secret names a call types (its own, or its batch steps'), in order. */
export function secretNames(toolId: string, args: Readonly<Record<string, unknown>>): string[] {
  const named = (id: string, a: unknown): string[] => {
    const key = toolFacts(id).secretArg;
    const name = key !== undefined && isRecord(a) ? a[key] : undefined;
    return typeof name === 'string' ? [name] : [];
  };
  if (toolFacts(toolId).policy !== 'batch') return named(toolId, args);
  if (!Array.isArray(args.steps)) return [];
  return args.steps.flatMap((step: unknown) =>
    isRecord(step) && typeof step.tool === 'string' ? named(step.tool, step.arguments) : [],
  );
}

/** Refuses a call naming a secret that is not stored or not for this phone, before it waits its turn. */
export function checkSecretNames(
  source: SecretSource | undefined,
  toolId: string,
  args: Readonly<Record<string, unknown>>,
  deviceId: string,
): void {
  for (const name of secretNames(toolId, args)) {
    if (!source) throw new BridgeError('secret_not_found', 'this bridge keeps no secrets');
    source.check(name, deviceId);
  }
}

/**
 * A deep copy of `value` (an ack) with every stored secret's value, in each form it may take
 * on the way to the phone (secretForms: raw, `%s` for spaces, base64), replaced by its
 * placeholder. A form shorter than four characters is replaced only where a whole string
 * equals it (typed-text.ts scrubTypedText).
 */
export function scrubSecrets<T>(value: T, secrets: ReadonlyArray<{ name: string; value: string }>): T {
  if (secrets.length === 0) return value;
  const byForm = new Map<string, string>();
  for (const secret of secrets) {
    for (const form of secretForms(secret.value))
      if (!byForm.has(form)) byForm.set(form, secretPlaceholder(secret.name));
  }
  return scrubTypedText(value, [...byForm.keys()], (form) => byForm.get(form) ?? secretPlaceholder('?'));
}
