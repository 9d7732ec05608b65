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
  sensitiveAppReason,
  settingsActivityIsSensitive,
} from './sensitive-apps';
import { sensitiveWord } from './screen-words';
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
  reasons: string[];
  risk: RiskLevel;
  /** Text typed by this call goes (or may go) into a password field: never echo or log it. */
  secretText: boolean;
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
export function labelOf(nodes: readonly UiNode[], node: UiNode): string {
  const parts = [node.text, node.contentDesc, node.resourceId.slice(node.resourceId.indexOf('/') + 1)];
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
  const reasons: string[] = [];
  const add = (cls: RiskClass, reason: string): void => {
    classes.add(cls);
    if (!reasons.includes(reason)) reasons.push(reason);
  };
  let secretText = false;
  if (call.kind === 'observation') return { classes: [...classes], reasons, risk: 'low', secretText };

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

  if (needs.window || needs.tree) {
    if (screen === null) {
      // Not read because no screen class can change the decision; typed text stays secret.
      secretText = steps.some((s) => s.facts.policy === 'type');
    } else {
      if (screen.problems.length > 0 && screen.fatal === null)
        add('unreadable_screen', `not checked: ${screen.problems.join('; ')}`);
      if (front) {
        const why = sensitiveAppReason(front, input.userApps);
        if (why) add('sensitive_app', `app in front: ${why}`);
        if (inSettings && settingsActivityIsSensitive(screen.window?.activity ?? null))
          add('sensitive_app', 'Settings → a security or account page is in front');
        if (inSettings && fresh?.some((n) => SETTINGS_PAGE_LABELS.test(n.text)))
          add('sensitive_app', 'Settings → a security or account page is in front');
        // The runtime permission prompt: a tap on it may grant an app the camera, location,
        // contacts … (BACK and HOME, which deny or leave it, need no screen read at all).
        if (isPermissionPrompt(front, screen.window?.activity ?? null))
          add(
            'sensitive_app',
            'a permission prompt is in front: answering it can grant an app access (camera, location, contacts …)',
          );
      }
      if (screen.window?.secure) add('secure_screen', 'the window in front blocks screenshots (FLAG_SECURE)');
    }
  }

  for (const [stepIndex, step] of steps.entries()) {
    const prefix = steps.length > 1 ? `${step.toolId.replace(/^android_/, '')} step: ` : '';
    switch (step.facts.policy) {
      case 'install':
        add('install_app', 'installs an app');
        break;
      case 'push':
        add('push_file', 'copies a file onto the phone');
        break;
      case 'url': {
        const scheme = urlScheme(step.args.url);
        if (scheme !== 'http' && scheme !== 'https')
          add('non_web_url', `${prefix}opens a non-web link (${scheme ?? 'no'} scheme), which can start any app`);
        break;
      }
      case 'launch': {
        const pkg = step.args.package ?? '';
        const why = sensitiveAppReason(pkg, input.userApps);
        if (why) add('sensitive_app', `${prefix}launches ${why}`);
        if (
          SETTINGS_PACKAGES.has(pkg) &&
          step.args.activity !== undefined &&
          settingsActivityIsSensitive(step.args.activity)
        ) {
          add('sensitive_app', `${prefix}opens a Settings security or account page`);
        }
        break;
      }
      case 'stop':
      case 'clipboard_write':
        break;
      case 'clipboard_read':
        add('clipboard_read', 'reads the phone’s clipboard, which may hold a password or a one-time code');
        break;
      case 'grant':
      case 'revoke': {
        const pkg = step.args.package ?? '';
        const what = `${step.facts.policy === 'grant' ? 'grants' : 'revokes'} ${step.args.permission ?? 'a runtime permission'} ${step.facts.policy === 'grant' ? 'to' : 'of'} ${pkg}`;
        add('permission_change', what);
        const why = sensitiveAppReason(pkg, input.userApps);
        if (why) add('sensitive_app', `changes a sensitive app: ${why}`);
        break;
      }
      case 'clear_data': {
        const pkg = step.args.package ?? '';
        add('clear_app_data', `erases all data of ${pkg} (accounts, settings, files) and resets its permissions`);
        const why = sensitiveAppReason(pkg, input.userApps);
        if (why) add('sensitive_app', `changes a sensitive app: ${why}`);
        break;
      }
      case 'key': {
        const key = step.args.key ?? '';
        if (ESCAPE_KEYS.has(key)) break;
        const focused = fresh?.find((n) => n.focused);
        if (key === 'paste' && focused?.password) add('password_field', `${prefix}pastes into a password field`);
        const word = screenWords();
        if (word) add('sensitive_screen', `${prefix}the screen offers "${word}"`);
        break;
      }
      case 'type': {
        const target = targetOf(step, fresh, input.lastTree);
        const focused = fresh?.find((n) => n.focused && (n.password || /edit|text/i.test(n.className)));
        const anyPassword = fresh?.some((n) => n.password) ?? false;
        let password: boolean;
        if (target === 'unknown') password = fresh === null || anyPassword;
        else if (target) password = target.password;
        else if (focused) password = focused.password;
        else password = fresh === null || anyPassword;
        if (stepIndex > 0) {
          // Earlier steps of the batch may have moved focus or the screen: any password field
          // on the screen counts, and the text is never logged since its field is unknown.
          password = fresh === null || anyPassword || (target !== undefined && target !== 'unknown' && target.password);
          secretText = true;
        }
        const secretName = step.facts.secretArg !== undefined ? step.args.secret : undefined;
        if (secretName !== undefined) {
          // A lab secret is a password wherever it goes: the same class, the same decision.
          secretText = true;
          add('password_field', `${prefix}types the lab secret "${secretName}"`);
        } else if (password) {
          secretText = true;
          add(
            'password_field',
            `${prefix}types into a password field${fresh === null ? ' (the screen could not be checked)' : ''}`,
          );
        }
        const word = target && target !== 'unknown' ? sensitiveWord(labelOf(fresh ?? [], target)) : null;
        const screenWord = word ?? screenWords();
        if (screenWord) add('sensitive_screen', `${prefix}the screen offers "${screenWord}"`);
        break;
      }
      case 'point': {
        const target = targetOf(step, fresh, input.lastTree);
        if (target && target !== 'unknown') {
          // A tap that lands on no tappable element acts on nothing in particular: only the
          // node's own words count, not everything drawn inside it.
          const label =
            target.clickable || target.longClickable
              ? labelOf(fresh?.includes(target) ? fresh : (input.lastTree?.nodes ?? []), target)
              : [target.text, target.contentDesc].filter((p) => p).join(' · ');
          const word = sensitiveWord(label);
          if (word) add('sensitive_screen', `${prefix}taps "${label.slice(0, 60)}" ("${word}")`);
          if (inSettings && SETTINGS_SENSITIVE_LABELS.test(label))
            add('sensitive_app', `${prefix}opens Settings → "${label.slice(0, 60)}"`);
          if (front !== null && LAUNCHER_PACKAGE.test(front) && SENSITIVE_ICON_LABELS.test(label))
            add('sensitive_app', `${prefix}opens "${label.slice(0, 60)}" from the home screen`);
        } else if (target === 'unknown') {
          const word = screenWords();
          if (word) add('sensitive_screen', `${prefix}the screen offers "${word}"`);
        }
        break;
      }
      default: {
        // Swipes and anything else acting on the whole screen.
        const word = screenWords();
        if (word) add('sensitive_screen', `${prefix}the screen offers "${word}"`);
      }
    }
  }
  const list = [...classes];
  return { classes: list, reasons, risk: riskLevel(list), secretText };
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
