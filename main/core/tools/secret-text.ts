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
import { compactTree, findElements, type UiNode } from '../android/ui-tree';
import type { RememberedTree } from './element-refs';
import { refNode, toSelector, TREE_MAX_NODES } from './targets';
import { secretFieldNotMasked } from './secret-field';
import type { ElementSelectorArgs } from './tool-definition';
import { secretForms } from '../secrets/lab-secrets';
import { toolFacts } from './catalogue';
import { mapStrings } from './typed-text';
import { FRAGMENT_MIN_CHARS, replaceFragments } from '../secrets/secret-fragments';

/** What the tools need of the lab's secrets (secrets/lab-secrets.ts is one). */
export interface SecretSource {
  /** Throws `secret_not_found` / `secret_out_of_scope` unless the secret may be typed on this phone. */
  check(name: string, deviceId: string): void;
  /** The value, for typing it on this phone now (throws like check). */
  reveal(name: string, deviceId: string): string;
  /** Every stored secret's name and value, to scrub what leaves the bridge. */
  values(): ReadonlyArray<{ name: string; value: string }>;
}

/**
 * Before the gate may hold a call typing a secret (it reads the screen anyway): the field it
 * would go into, as this read shows it, must be a password field. The element named by a
 * selector, a ref or an index, else the focused field; when neither can be told, the tool
 * decides when it runs. Only a call's own typing, or its batch's first step (later steps type
 * into what earlier ones leave).
 */
export function assertSecretFieldMasked(
  toolId: string,
  args: Readonly<Record<string, unknown>>,
  nodes: readonly UiNode[],
  last: RememberedTree | undefined,
): void {
  const first: unknown =
    toolFacts(toolId).policy === 'batch' && Array.isArray(args.steps)
      ? (args.steps as unknown[])[0]
      : { tool: toolId, arguments: args };
  if (!isRecord(first) || typeof first.tool !== 'string' || !isRecord(first.arguments)) return;
  const key = toolFacts(first.tool).secretArg;
  const name = key !== undefined ? first.arguments[key] : undefined;
  if (typeof name !== 'string') return;
  const step = first.arguments as { element?: ElementSelectorArgs; ref?: string };
  let field: UiNode | undefined;
  if (step.ref !== undefined) field = last ? refNode(last, step.ref) : undefined;
  else if (step.element) {
    const among =
      step.element.index !== undefined ? last?.nodes : compactTree(nodes, { maxNodes: TREE_MAX_NODES }).nodes;
    field = among ? findElements(among, toSelector(step.element))[0] : undefined;
  } else field = nodes.find((n) => n.focused);
  if (field && !field.password) throw secretFieldNotMasked(name, field.resourceId || field.className);
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
 * on the way to the phone (secretForms: raw, `%s` for spaces, base64), and each form's long
 * prefixes and suffixes (a field after a Backspace, a character inserted: secret-fragments.ts)
 * replaced by its placeholder. A form shorter than four characters is replaced only where a
 * whole string equals it.
 */
export function scrubSecrets<T>(value: T, secrets: ReadonlyArray<{ name: string; value: string }>): T {
  if (secrets.length === 0) return value;
  const byForm = new Map<string, string>();
  for (const secret of secrets) {
    for (const form of secretForms(secret.value))
      if (!byForm.has(form)) byForm.set(form, secretPlaceholder(secret.name));
  }
  const longFirst = [...byForm.keys()].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
  const scrubString = (s: string): string => {
    const whole = longFirst.find((f) => s === f || s.trim() === f);
    if (whole !== undefined) return byForm.get(whole)!;
    let out = s;
    // Whole forms first, so a piece of one form (the JSON form up to its first escape) never
    // cuts into another form's whole value.
    for (const form of longFirst) if (form.length >= FRAGMENT_MIN_CHARS) out = out.split(form).join(byForm.get(form));
    for (const form of longFirst) out = replaceFragments(out, form, byForm.get(form)!);
    return out;
  };
  return mapStrings(value, scrubString);
}
