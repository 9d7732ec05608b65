/**
 * The policy engine's classifier: before a call runs, which risk classes it falls into and
 * why — from the tool itself (installs, file pushes, non-web URLs, reading the clipboard,
 * changing an app's permissions or clearing its data), the app in front, being launched or
 * changed (sensitive-app list), and what the action touches on screen (password fields,
 * payment / transfer / delete-account / factory-reset words, FLAG_SECURE windows). Pure
 * functions over facts the screen probe read; the gate turns classes into a decision.
 */
import type { PolicyDecision } from '../../contract/admin-api';
import { compactTree, findElements, type UiNode } from '../android/ui-tree';
import { refNode, toSelector } from '../tools/targets';
import type { RememberedTree } from '../tools/element-refs';
import type { ElementSelectorArgs, ToolFacts } from '../tools/tool-definition';
import { DEFAULT_DECISIONS, riskLevel, strictest, type RiskClass, type RiskLevel } from './risk-classes';
import {
  LAUNCHER_PACKAGE,
  SENSITIVE_ICON_LABELS,
  SETTINGS_PACKAGES,
  SETTINGS_SENSITIVE_LABELS,
  appLabel,
  sensitiveAppReason,
  settingsActivityIsSensitive,
} from './sensitive-apps';
import { sensitiveWord, sensitiveWordKind } from './screen-words';
import { reasonInEnglish, sameReason, type PolicyReason, type ReasonCode } from './reasons';
import { isPermissionPrompt } from '../android/system-dialogs';
import type { ScreenFacts } from '../android/screen-probe';
import { toolFacts } from '../tools/catalogue';

/** Keys that only move away from what is on screen (or change volume); never sensitive. */
const ESCAPE_KEYS = new Set([
  'home',
  'back',
  'app_switch',
  'recents',
  'escape',
  'volume_up',
  'volume_down',
  'volume_mute',
  'mic_mute',
  'power',
  'sleep',
  'wakeup',
  'notifications',
  'media_play_pause',
  'media_stop',
  'media_next',
  'media_previous',
  'media_rewind',
  'media_fast_forward',
  'media_play',
  'media_pause',
  'brightness_down',
  'brightness_up',
]);

/** A Settings page with these labels anywhere on it is a security / account page. */
const SETTINGS_PAGE_LABELS =
  /\b(screen lock|factory reset|reset options|erase all data|device admin(?:istrators| apps)?|encryption|add account|remove account)\b|锁屏密码|屏幕锁定|恢复出厂|清除所有数据|添加账户|删除账户/i;

export interface CallFacts {
  toolId: string;
  kind: 'observation' | 'control';
  args: Readonly<Record<string, unknown>>;
}

/**
 * The arguments the policy reads. A call's arguments passed its tool's strict schema at the
 * edge (tools/invoke-handler.ts), a batch's steps each their own tool's, so each field present
 * has the type its schema gives it; this is the one place that says so.
 */
interface JudgedArgs {
  x?: number;
  y?: number;
  element?: ElementSelectorArgs;
  ref?: string;
  key?: string;
  url?: string;
  package?: string;
  activity?: string;
  /** A lab secret's name (android_type_text `secret`): typed like a password. */
  secret?: string;
  permission?: string;
  steps?: ReadonlyArray<{ tool: string; arguments: JudgedArgs }>;
}

export interface ScreenNeeds {
  /** Read the app in front and its window flags. */
  window: boolean;
  /** Read the UI tree (password fields, words, tap targets). */
  tree: boolean;
}

export interface Classification {
  classes: RiskClass[];
  /** Why, as codes with parameters (the console words them in the person's language). */
  why: PolicyReason[];
  /** The same reasons in English: what the agent hears and the audit trail keeps. */
  reasons: string[];
  risk: RiskLevel;
  /** Text typed by this call goes (or may go) into a password field: never echo or log it. */
  secretText: boolean;
  /** What a tap, long press or typing acts on, as resolved here (null for other tools and batches). */
  target: ResolvedTarget | null;
}

/** The element or point a call acts on, for the approval's sentence and its marker on the screenshot. */
export interface ResolvedTarget {
  /** What a person reads on it; null when it has no words (or was not found and the call named none). */
  label: string | null;
  /** Where it is, in screen pixels; null when it was not found on the screen read. */
  bounds: [number, number, number, number] | null;
  /** The point the call gave by coordinates, else null. */
  point: [number, number] | null;
}

interface Step {
  toolId: string;
  facts: ToolFacts;
  args: JudgedArgs;
}

function stepsOf(call: CallFacts): Step[] {
  const facts = toolFacts(call.toolId);
  const args = call.args as JudgedArgs;
  if (facts.policy !== 'batch') return [{ toolId: call.toolId, facts, args }];
  return (args.steps ?? []).map((step) => ({ toolId: step.tool, facts: toolFacts(step.tool), args: step.arguments }));
}

function stepNeeds(step: Step): ScreenNeeds {
  switch (step.facts.policy) {
    case 'launch':
    case 'stop':
    case 'url':
    case 'install':
    case 'push':
    case 'clipboard_read':
    case 'clipboard_write':
    case 'grant':
    case 'revoke':
    case 'clear_data':
      return { window: false, tree: false };
    case 'key':
      return step.args.key !== undefined && ESCAPE_KEYS.has(step.args.key)
        ? { window: false, tree: false }
        : { window: true, tree: true };
    default:
      return { window: true, tree: true };
  }
}

/** What the classifier needs to read from the phone for this call (nothing for observation). */
export function screenNeeds(call: CallFacts): ScreenNeeds {
  if (call.kind === 'observation') return { window: false, tree: false };
  const needs = stepsOf(call).map(stepNeeds);
  return { window: needs.some((n) => n.window), tree: needs.some((n) => n.tree) };
}

/** The classes a screen read can add; when all of them are `allow`, reading is skipped. */
export const SCREEN_CLASSES: readonly RiskClass[] = [
  'sensitive_app',
  'password_field',
  'sensitive_screen',
  'secure_screen',
  'unreadable_screen',
];

function urlScheme(url: string | undefined): string | null {
  if (url === undefined) return null;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url.trim());
  return match?.[1] ? match[1].toLowerCase() : null;
}

/**
 * The label a person would read on a node: its text, description and id; a node without
 * text of its own (a clickable row or button container) also shows its children's text,
 * except children that are tappable targets of their own.
 */
export function labelOf(nodes: readonly UiNode[], node: UiNode, options: { withId?: boolean } = {}): string {
  const parts = [node.text, node.contentDesc];
  if (options.withId !== false) parts.push(node.resourceId.slice(node.resourceId.indexOf('/') + 1));
  const start = nodes.indexOf(node);
  if (!node.text && !node.contentDesc && start >= 0) {
    let skipBelow = Number.POSITIVE_INFINITY;
    for (let i = start + 1, n = 0; i < nodes.length && n < 30; i++, n++) {
      const child = nodes[i];
      if (!child || child.depth <= node.depth) break;
      if (child.depth > skipBelow) continue;
      skipBelow = Number.POSITIVE_INFINITY;
      if (child.clickable || child.longClickable) {
        skipBelow = child.depth;
        continue;
      }
      parts.push(child.text, child.contentDesc);
    }
  }
  return parts.filter((p) => p).join(' · ');
}

function contains(node: UiNode, x: number, y: number): boolean {
  const [l, t, r, b] = node.bounds;
  return x >= l && x < r && y >= t && y < b;
}

function area(node: UiNode): number {
  return Math.max(0, node.bounds[2] - node.bounds[0]) * Math.max(0, node.bounds[3] - node.bounds[1]);
}

/** The node a tap at x,y lands on: the smallest clickable node there, else the smallest node. */
export function nodeAt(nodes: readonly UiNode[], x: number, y: number): UiNode | undefined {
  const under = nodes.filter((n) => contains(n, x, y));
  const smallest = (list: UiNode[]): UiNode | undefined =>
    list.reduce<UiNode | undefined>((best, n) => (!best || area(n) < area(best) ? n : best), undefined);
  return smallest(under.filter((n) => n.clickable || n.longClickable)) ?? smallest(under);
}

/**
 * The element a step acts on, resolved the way the tool will resolve it. A ref names an element
 * of the channel's last tree (whether it still holds is the tool's check, before anything is sent).
 */
function targetOf(
  step: Step,
  fresh: readonly UiNode[] | null,
  last: RememberedTree | undefined,
): UiNode | undefined | 'unknown' {
  const { element, ref, x, y } = step.args;
  if (ref !== undefined) return (last && refNode(last, ref)) ?? 'unknown';
  if (element) {
    const nodes = element.index !== undefined ? last?.nodes : fresh;
    if (!nodes) return 'unknown';
    try {
      return findElements(nodes, toSelector(element))[0] ?? 'unknown';
    } catch {
      return 'unknown';
    }
  }
  if (x !== undefined && y !== undefined) {
    if (!fresh) return 'unknown';
    return nodeAt(fresh, x, y) ?? 'unknown';
  }
  return undefined;
}

export interface ClassifyInput {
  call: CallFacts;
  /** What the probe read; null when nothing was read. */
  screen: ScreenFacts | null;
  /** The channel's last UI tree (what `index` selectors and element refs refer to). */
  lastTree?: RememberedTree | undefined;
  userApps: readonly string[];
}

export function classify(input: ClassifyInput): Classification {
  const { call, screen } = input;
  const classes = new Set<RiskClass>([call.kind === 'observation' ? 'observation' : 'control']);
  const why: PolicyReason[] = [];
  let stepTool: string | undefined;
  const add = (
    cls: RiskClass,
    code: ReasonCode,
    params: Record<string, string | number> = {},
    forStep: boolean = true,
  ): void => {
    classes.add(cls);
    const reason: PolicyReason = {
      code,
      params,
      ...(forStep && stepTool !== undefined ? { step_tool: stepTool } : {}),
    };
    if (!why.some((r) => sameReason(r, reason))) why.push(reason);
  };
  let secretText = false;
  let target: ResolvedTarget | null = null;
  const done = (): Classification => {
    const list = [...classes];
    return { classes: list, why, reasons: why.map(reasonInEnglish), risk: riskLevel(list), secretText, target };
  };
  if (call.kind === 'observation') return done();

  const steps = stepsOf(call);
  const needs = screenNeeds(call);
  // The same numbering the tools use to resolve selectors.
  const fresh = screen?.nodes ? compactTree(screen.nodes, { maxNodes: 3000 }).nodes : null;
  const front = screen?.window?.package ?? null;
  const inSettings = front !== null && SETTINGS_PACKAGES.has(front);
  const screenWords = (): string | null => {
    for (const node of fresh ?? []) {
      if (!(node.clickable || node.longClickable)) continue;
      const word = sensitiveWord(labelOf(fresh ?? [], node));
      if (word) return word;
    }
    return null;
  };
  const addScreenWord = (word: string): void =>
    add('sensitive_screen', `screen_${sensitiveWordKind(word)}` as const, { word });

  if (needs.window || needs.tree) {
    if (screen === null) {
      // Not read because no screen class can change the decision; typed text stays secret.
      secretText = steps.some((s) => s.facts.policy === 'type');
    } else {
      if (screen.problems.length > 0 && screen.fatal === null)
        add('unreadable_screen', 'screen_unchecked', { problems: screen.problems.join('; ') });
      if (front) {
        const app = sensitiveAppReason(front, input.userApps);
        if (app) add('sensitive_app', app.code, app.params);
        if (inSettings && settingsActivityIsSensitive(screen.window?.activity ?? null))
          add('sensitive_app', 'settings_page');
        if (inSettings && fresh?.some((n) => SETTINGS_PAGE_LABELS.test(n.text))) add('sensitive_app', 'settings_page');
        // The runtime permission prompt: a tap on it may grant an app the camera, location,
        // contacts … (BACK and HOME, which deny or leave it, need no screen read at all).
        if (isPermissionPrompt(front, screen.window?.activity ?? null)) add('sensitive_app', 'permission_prompt');
      }
      if (screen.window?.secure) add('secure_screen', 'secure_screen');
    }
  }

  for (const [stepIndex, step] of steps.entries()) {
    stepTool = steps.length > 1 ? step.toolId : undefined;
    switch (step.facts.policy) {
      case 'install':
        add('install_app', 'install_app');
        break;
      case 'push':
        add('push_file', 'push_file');
        break;
      case 'url': {
        const scheme = urlScheme(step.args.url);
        if (scheme !== 'http' && scheme !== 'https') {
          if (scheme === null) add('non_web_url', 'non_web_url_no_scheme');
          else add('non_web_url', 'non_web_url', { scheme });
        }
        break;
      }
      case 'launch': {
        const pkg = step.args.package ?? '';
        const app = sensitiveAppReason(pkg, input.userApps);
        if (app) add('sensitive_app', app.code, app.params);
        if (
          SETTINGS_PACKAGES.has(pkg) &&
          step.args.activity !== undefined &&
          settingsActivityIsSensitive(step.args.activity)
        ) {
          add('sensitive_app', 'opens_settings_page');
        }
        break;
      }
      case 'stop':
      case 'clipboard_write':
        break;
      case 'clipboard_read':
        add('clipboard_read', 'clipboard_read');
        break;
      case 'grant':
      case 'revoke': {
        const pkg = step.args.package ?? '';
        add('permission_change', step.facts.policy === 'grant' ? 'grants_permission' : 'revokes_permission', {
          permission: step.args.permission ?? '',
          app: appName(pkg),
          package: pkg,
        });
        const app = sensitiveAppReason(pkg, input.userApps);
        if (app) add('sensitive_app', app.code, app.params);
        break;
      }
      case 'clear_data': {
        const pkg = step.args.package ?? '';
        add('clear_app_data', 'clears_app_data', { app: appName(pkg), package: pkg });
        const app = sensitiveAppReason(pkg, input.userApps);
        if (app) add('sensitive_app', app.code, app.params);
        break;
      }
      case 'key': {
        const key = step.args.key ?? '';
        if (ESCAPE_KEYS.has(key)) break;
        const focused = fresh?.find((n) => n.focused);
        if (key === 'paste' && focused?.password) add('password_field', 'pastes_into_password');
        const word = screenWords();
        if (word) addScreenWord(word);
        break;
      }
      case 'type': {
        const found = targetOf(step, fresh, input.lastTree);
        const focused = fresh?.find((n) => n.focused && (n.password || /edit|text/i.test(n.className)));
        const anyPassword = fresh?.some((n) => n.password) ?? false;
        if (steps.length === 1)
          target = resolved(step, found === undefined ? (focused ?? 'unknown') : found, fresh, input.lastTree, 'field');
        let password: boolean;
        if (found === 'unknown') password = fresh === null || anyPassword;
        else if (found) password = found.password;
        else if (focused) password = focused.password;
        else password = fresh === null || anyPassword;
        if (stepIndex > 0) {
          // Earlier steps of the batch may have moved focus or the screen: any password field
          // on the screen counts, and the text is never logged since its field is unknown.
          password = fresh === null || anyPassword || (found !== undefined && found !== 'unknown' && found.password);
          secretText = true;
        }
        const secretName = step.facts.secretArg !== undefined ? step.args.secret : undefined;
        if (secretName !== undefined) {
          // A lab secret is a password wherever it goes: the same class, the same decision.
          secretText = true;
          add('password_field', 'types_secret', { secret: secretName });
        } else if (password) {
          secretText = true;
          add('password_field', fresh === null ? 'types_password_unchecked' : 'types_password');
        }
        const word = found && found !== 'unknown' ? sensitiveWord(labelOf(fresh ?? [], found)) : null;
        const screenWord = word ?? screenWords();
        if (screenWord) addScreenWord(screenWord);
        break;
      }
      case 'point': {
        const found = targetOf(step, fresh, input.lastTree);
        if (steps.length === 1) target = resolved(step, found ?? 'unknown', fresh, input.lastTree, 'tap');
        if (found && found !== 'unknown') {
          // A tap that lands on no tappable element acts on nothing in particular: only the
          // node's own words count, not everything drawn inside it.
          const nodes = fresh?.includes(found) ? fresh : (input.lastTree?.nodes ?? []);
          const tappable = found.clickable || found.longClickable;
          const ownWords = [found.text, found.contentDesc].filter((p) => p).join(' · ');
          const label = tappable ? labelOf(nodes, found) : ownWords;
          // People read the words on it; its id (which also counts for the words) only when it has none.
          const shown = ((tappable ? labelOf(nodes, found, { withId: false }) : ownWords) || label).slice(0, 60);
          const word = sensitiveWord(label);
          if (word) add('sensitive_screen', `taps_${sensitiveWordKind(word)}` as const, { label: shown, word });
          if (inSettings && SETTINGS_SENSITIVE_LABELS.test(label))
            add('sensitive_app', 'opens_settings_row', { label: shown });
          if (front !== null && LAUNCHER_PACKAGE.test(front) && SENSITIVE_ICON_LABELS.test(label))
            add('sensitive_app', 'opens_from_home', { label: shown });
        } else if (found === 'unknown') {
          const word = screenWords();
          if (word) addScreenWord(word);
        }
        break;
      }
      default: {
        // Swipes and anything else acting on the whole screen.
        const word = screenWords();
        if (word) addScreenWord(word);
      }
    }
  }
  return done();
}

/** An app's name for a reason: the list's name for it, else its package. */
function appName(pkg: string): string {
  return appLabel(pkg) ?? pkg;
}

/** The words of a selector that named an element the screen read did not find. */
function selectorWords(element: ElementSelectorArgs | undefined): string | null {
  if (!element) return null;
  const words = element.text ?? element.text_contains ?? element.content_desc ?? element.resource_id ?? null;
  return words === null ? null : words.slice(0, 120);
}

/**
 * What a single-step tap, long press or typing acts on, for the person: the element's words
 * (a field by its description or id: its text is what was typed before), its bounds, the point.
 */
function resolved(
  step: Step,
  found: UiNode | 'unknown',
  fresh: readonly UiNode[] | null,
  last: RememberedTree | undefined,
  as: 'tap' | 'field',
): ResolvedTarget {
  const { x, y } = step.args;
  const point: [number, number] | null = x !== undefined && y !== undefined ? [x, y] : null;
  if (found === 'unknown') return { label: selectorWords(step.args.element), bounds: null, point };
  const nodes = fresh?.includes(found) ? fresh : (last?.nodes ?? []);
  const idTail = found.resourceId.slice(found.resourceId.indexOf('/') + 1);
  const label =
    as === 'field'
      ? found.contentDesc || (found.password ? '' : found.text) || idTail
      : labelOf(nodes, found, { withId: false });
  return { label: label ? label.slice(0, 120) : null, bounds: [...found.bounds], point };
}

export interface DevicePolicy {
  decisions: Record<RiskClass, PolicyDecision>;
  sensitiveApps: readonly string[];
}

/** The decision for a classified call, and which classes asked for it. */
export function decideFor(
  classes: readonly RiskClass[],
  policy: DevicePolicy,
): { decision: PolicyDecision; asking: RiskClass[]; denying: RiskClass[] } {
  const per = classes.map((c) => ({ c, d: policy.decisions[c] ?? DEFAULT_DECISIONS[c] }));
  return {
    decision: strictest(per.map((p) => p.d)),
    asking: per.filter((p) => p.d === 'ask').map((p) => p.c),
    denying: per.filter((p) => p.d === 'deny').map((p) => p.c),
  };
}
