/**
 * Tools that cannot work on the bound phone, marked in the Descriptor's `tools[]` with a
 * reason (docs/REFERENCE.md "Phone check"), so the agent does not keep trying what the phone refuses:
 *   - input refused (input_blocked: MIUI without "USB debugging (Security settings)") →
 *     the control tools that inject input are `denied_by_target` (target_permission_state
 *     `denied`) until an input call works again;
 *   - installs refused (install_blocked) → android_install_apk `denied_by_target` until an
 *     install works again;
 *   - the screen could not be read by the phone check (screen_unreadable) → android_ui_tree
 *     and android_wait_for `unavailable` until a UI tree is read again;
 *   - no Unicode keyboard (ADB Keyboard not enabled) → android_type_text stays `available`
 *     with a reason: plain ASCII only.
 * A refusal mark also goes when the phone check runs after it ("Check again" on the card, or
 * the phone coming back): the check cannot inject input or install to find out, so a person
 * who changed the setting and checks again lets the agent try again. The tools taken away are
 * not offered to the agent (spec §9), so a working call alone could never clear them.
 * Only the spec's own fields are used (status, target_permission_state, reason: schema
 * xagent.connection.v2 `tool`); a Descriptor with a tool that is not available says
 * `degraded` ("bound with some capabilities degraded", spec §9) instead of `connected`.
 */
import type { AdminPhoneCheck } from '../../contract/admin-api';
import type { DescriptorToolStatus, TargetPermissionState } from '../../contract/wire-schemas';
import { TOOLS, toolIdsWhere } from '../tools/catalogue';

export interface ToolMark {
  status: DescriptorToolStatus;
  targetPermissionState: TargetPermissionState;
  reason: string;
}

/** The tools whose work is injected input (`input tap|swipe|text|keyevent`). */
const INPUT_TOOLS = toolIdsWhere((f) => f.screenInput === true);
/** The tools that need the UI tree. */
const TREE_TOOLS = toolIdsWhere((f) => f.readsTree === true);
/** The tool that types text (marked when only ASCII can be typed). */
const TYPING_TOOLS = toolIdsWhere((f) => f.policy === 'type');
/** The tools that act on the phone (kind `control`): refused while a person has taken the phone over. */
const CONTROL_TOOLS = TOOLS.filter((t) => t.kind === 'control').map((t) => t.id);
/** The tools that show the agent the screen (ToolFacts `seesScreen`): refused while a person holds the phone unwatched. */
const SCREEN_TOOLS = toolIdsWhere((f) => f.seesScreen === true);
/** The tool that installs apps (marked after the phone refused an install). */
const INSTALL_TOOLS = toolIdsWhere((f) => f.policy === 'install');

export interface MarkFacts {
  /** The latest phone check, or null before the first. */
  check: AdminPhoneCheck | null;
  /**
   * The last input refused with input_blocked since input last worked, or null. `fix` is the
   * fix phrase the refusal carried (a fixed phrase of android/phone-fixes.ts, never the phone's
   * output: Descriptors carry display-level text only, spec §9).
   */
  inputRefusal: { at: number; fix: string | null } | null;
  /** The last install refused with install_blocked since installs last worked, or null. */
  installRefusal: { at: number; fix: string | null } | null;
  /** When a UI tree was last read by a tool call (ms), or null. */
  treeReadAt: number | null;
  /** A person has taken the phone over at the computer (takeover/takeover.ts), or null. */
  takenOver?: { since: number; by: string; agentMayWatch?: boolean } | null;
}

/** The marks for one phone; empty when every tool can work. */
export function toolMarks(facts: MarkFacts): Map<string, ToolMark> {
  const marks = new Map<string, ToolMark>();
  const checkedSince = (refusal: { at: number } | null): boolean =>
    refusal !== null && facts.check !== null && facts.check.checked_at > refusal.at;
  const inputRefusal = checkedSince(facts.inputRefusal) ? null : facts.inputRefusal;
  const installRefusal = checkedSince(facts.installRefusal) ? null : facts.installRefusal;
  const row = (id: string): AdminPhoneCheck['checks'][number] | undefined =>
    facts.check?.checks.find((c) => c.id === id);

  const unicode = row('unicode_typing');
  if (unicode?.status === 'problem') {
    const reason = `plain ASCII text only (no Unicode keyboard on the phone; other text is refused with unicode_input_unavailable). Fix: ${unicode.fix ?? 'install and enable ADB Keyboard'}`;
    for (const id of TYPING_TOOLS) marks.set(id, { status: 'available', targetPermissionState: 'granted', reason });
  }

  if (inputRefusal) {
    const reason = `the phone refuses injected input (taps, swipes, typing, keys). Fix: ${inputRefusal.fix ?? 'allow USB debugging to inject input in Developer options, then try again'}`;
    for (const id of INPUT_TOOLS)
      marks.set(id, { status: 'denied_by_target', targetPermissionState: 'denied', reason });
  }

  const tree = row('ui_tree_readable');
  if (
    tree?.status === 'problem' &&
    !(facts.treeReadAt !== null && facts.check !== null && facts.treeReadAt >= facts.check.checked_at)
  ) {
    const reason = `the phone's screen could not be read by the phone check; android_screenshot still works. Fix: ${tree.fix ?? 'check again'}`;
    for (const id of TREE_TOOLS) marks.set(id, { status: 'unavailable', targetPermissionState: 'unknown', reason });
  }

  if (installRefusal) {
    const reason = `the phone refused the last install. Fix: ${installRefusal.fix ?? 'see the phone check'}`;
    for (const id of INSTALL_TOOLS)
      marks.set(id, { status: 'denied_by_target', targetPermissionState: 'denied', reason });
  }

  // Last, so it says what happens now. The tools stay `available` (the connection stays
  // `connected` and the agent keeps its tools): a call answers human_in_control at once and
  // works again after the hand-back, which pushes a Descriptor without this note.
  if (facts.takenOver) {
    const watched = facts.takenOver.agentMayWatch === true;
    const reason = `human_in_control: a person has taken this phone over at the computer; control calls are refused until they hand it back${watched ? ' (they let the agent watch the screen meanwhile)' : ', and so are screen reads (other observation calls still work)'}`;
    for (const id of CONTROL_TOOLS) marks.set(id, { status: 'available', targetPermissionState: 'granted', reason });
    if (!watched) {
      const hidden =
        'human_in_control: a person holds this phone at the computer and did not let the agent watch; the screen, its tree, recordings and the log are refused until they hand it back';
      for (const id of SCREEN_TOOLS)
        marks.set(id, { status: 'available', targetPermissionState: 'granted', reason: hidden });
    }
  }
  return marks;
}

/** Whether any mark takes a tool away (a note on an available tool does not). */
export function degrades(marks: ReadonlyMap<string, ToolMark>): boolean {
  for (const mark of marks.values()) if (mark.status !== 'available') return true;
  return false;
}
