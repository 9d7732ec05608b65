/**
 * Turns injected input into UI changes, as the window manager and views would: taps hit
 * the topmost clickable node (or focus a text field), a still touch held ≥ 500 ms is a long
 * press (selects a field's text), swipes scroll the scrollable view under the finger (a
 * swipe up from the navigation bar goes home), keys go to the system (HOME, BACK,
 * APP_SWITCH, POWER, volume) or to the focused field, and typed or committed text edits it.
 * PASTE pastes the clipboard into the focused field, read as the app in front (which Android
 * 10+ let read it).
 */
import type { ActionContext } from './app-types';
import { KEYCODE, keyChar } from './keycodes';
import type { ScreenMachine, Task } from './screen-machine';
import { deleteBackward, deleteForward, insertText, moveCursor, selectAll, setText } from './text-field';
import { hitTest, scrollableAt, type UiNode } from './ui-node';
import { DIALOG_ACTION_PREFIX, type DialogAnswer } from './system-dialogs';
import { fieldOrder, findFieldNode } from './window-builder';

export interface GestureRecord {
  kind: 'tap' | 'long-press' | 'swipe' | 'drag';
  x: number;
  y: number;
  x2?: number;
  y2?: number;
  /** resource-id, else text, else class of the node the gesture landed on. */
  target?: string | undefined;
}

/** ViewConfiguration long-press timeout used to tell a long press from a tap. */
export const LONG_PRESS_MS = 500;

export class InputDispatcher {
  lastGesture: GestureRecord | undefined;
  volume = 7;

  constructor(
    private readonly m: ScreenMachine,
    private readonly clipboard?: { readAs(pkg: string): string | undefined },
  ) {}

  tap(x: number, y: number): void {
    if (!this.m.awake) return;
    const window = this.m.window();
    const hit = this.inNavBar(y) ? undefined : hitTest(window.root, x, y);
    this.lastGesture = { kind: 'tap', x, y, target: describe(hit) };
    if (!hit) return;
    if (hit.action?.startsWith(DIALOG_ACTION_PREFIX)) {
      this.m.answerSystemDialog(hit.action.slice(DIALOG_ACTION_PREFIX.length) as DialogAnswer);
      return;
    }
    // Under a system dialog, the app's views take no taps.
    if (this.m.systemDialog() !== undefined) return;
    const { task, ctx, def } = this.front();
    if (hit.fieldId) {
      if (task.focused !== hit.fieldId) {
        task.focused = hit.fieldId;
        moveCursor(this.m.fieldOf(task, hit.fieldId), 'end');
      }
      this.m.touch();
      return;
    }
    if (hit.action) {
      def.onAction?.(hit.action, ctx);
      this.m.touch();
    }
  }

  longPress(x: number, y: number): void {
    if (!this.m.awake) return;
    const hit = hitTest(this.m.window().root, x, y);
    this.lastGesture = { kind: 'long-press', x, y, target: describe(hit) };
    if (!hit?.fieldId) return;
    const { task } = this.front();
    task.focused = hit.fieldId;
    selectAll(this.m.fieldOf(task, hit.fieldId));
    this.m.touch();
  }

  swipe(x1: number, y1: number, x2: number, y2: number, durationMs: number): void {
    if (!this.m.awake) return;
    const slop = this.m.layout.dp(8);
    if (Math.abs(x2 - x1) <= slop && Math.abs(y2 - y1) <= slop) {
      if (durationMs >= LONG_PRESS_MS) this.longPress(x1, y1);
      else this.tap(x1, y1);
      return;
    }
    const root = this.m.window().root;
    const scroller = scrollableAt(root, x1, y1);
    this.lastGesture = { kind: 'swipe', x: x1, y: y1, x2, y2, target: describe(scroller) };
    if (this.inNavBar(y1) && y1 - y2 > this.m.layout.dp(40)) {
      this.m.goHome();
      return;
    }
    if (!scroller) return;
    const { ctx, def } = this.front();
    def.onScroll?.(scroller, y1 - y2, ctx);
    this.m.touch();
  }

  dragAndDrop(x1: number, y1: number, x2: number, y2: number): void {
    if (!this.m.awake) return;
    const hit = hitTest(this.m.window().root, x1, y1);
    this.lastGesture = { kind: 'drag', x: x1, y: y1, x2, y2, target: describe(hit) };
  }

  key(code: number): void {
    if (!this.m.awake) {
      if (code === KEYCODE.POWER || code === KEYCODE.WAKEUP) this.m.setAwake(true);
      return;
    }
    switch (code) {
      case KEYCODE.HOME:
        return this.m.goHome();
      case KEYCODE.BACK:
        return this.m.back();
      case KEYCODE.APP_SWITCH:
        return this.m.toggleRecents();
      case KEYCODE.POWER:
      case KEYCODE.SLEEP:
        return this.m.setAwake(false);
      case KEYCODE.VOLUME_UP:
        this.volume = Math.min(15, this.volume + 1);
        return;
      case KEYCODE.VOLUME_DOWN:
        this.volume = Math.max(0, this.volume - 1);
        return;
      case KEYCODE.VOLUME_MUTE:
        this.volume = 0;
        return;
      default:
        this.fieldKey(code);
    }
  }

  /** `input text` after %s decoding: ENTER and TAB characters act as keys. */
  typeText(text: string): void {
    let run = '';
    const flush = (): void => {
      if (run) this.commitText(run);
      run = '';
    };
    for (const ch of text) {
      if (ch === '\n' || ch === '\t') {
        flush();
        this.key(ch === '\n' ? KEYCODE.ENTER : KEYCODE.TAB);
      } else {
        run += ch;
      }
    }
    flush();
  }

  /** InputConnection.commitText (what an IME such as ADB Keyboard does). */
  commitText(text: string): void {
    const focused = this.focusedField();
    if (!focused) return;
    insertText(focused.field, text);
    this.m.touch();
  }

  clearFocusedText(): void {
    const focused = this.focusedField();
    if (!focused) return;
    setText(focused.field, '');
    this.m.touch();
  }

  selectAllInFocused(): void {
    const focused = this.focusedField();
    if (!focused) return;
    selectAll(focused.field);
    this.m.touch();
  }

  /** IME editor action (ENTER on a single-line field): submit, else move to the next field. */
  editorAction(): void {
    const focused = this.focusedField();
    if (!focused) return;
    const { task, ctx, def } = this.front();
    if (!def.onSubmit?.(focused.id, ctx)) this.focusNext(task);
    this.m.touch();
  }

  private fieldKey(code: number): void {
    const focused = this.focusedField();
    if (!focused) return;
    const { field, node } = focused;
    switch (code) {
      case KEYCODE.ENTER:
        if (node.multiline) insertText(field, '\n');
        else return this.editorAction();
        break;
      case KEYCODE.TAB:
        this.focusNext(this.front().task);
        break;
      case KEYCODE.DEL:
        deleteBackward(field);
        break;
      case KEYCODE.FORWARD_DEL:
        deleteForward(field);
        break;
      case KEYCODE.PASTE: {
        // TextView pastes the primary clip's text; the app in front may read it on any Android.
        const text = this.clipboard?.readAs(this.m.window().pkg);
        if (text === undefined) return;
        insertText(field, text);
        break;
      }
      case KEYCODE.DPAD_LEFT:
        moveCursor(field, 'left');
        break;
      case KEYCODE.DPAD_RIGHT:
        moveCursor(field, 'right');
        break;
      case KEYCODE.MOVE_HOME:
      case KEYCODE.DPAD_UP:
        moveCursor(field, 'home');
        break;
      case KEYCODE.MOVE_END:
      case KEYCODE.DPAD_DOWN:
        moveCursor(field, 'end');
        break;
      default: {
        const ch = keyChar(code);
        if (ch === undefined) return;
        insertText(field, ch);
      }
    }
    this.m.touch();
  }

  private focusNext(task: Task): void {
    const order = fieldOrder(this.m.window().root);
    const index = task.focused ? order.indexOf(task.focused) : -1;
    const next = order[index + 1];
    if (next) {
      task.focused = next;
      moveCursor(this.m.fieldOf(task, next), 'end');
    }
  }

  private focusedField(): { id: string; field: ReturnType<ScreenMachine['fieldOf']>; node: UiNode } | undefined {
    if (this.m.isRecents()) return undefined;
    const task = this.m.frontTask();
    if (!task.focused) return undefined;
    const node = findFieldNode(this.m.window().root, task.focused);
    if (!node) return undefined;
    return { id: task.focused, field: this.m.fieldOf(task, task.focused), node };
  }

  private front(): { task: Task; ctx: ActionContext; def: ReturnType<ScreenMachine['screenDef']> } {
    const task = this.m.frontTask();
    const entry = this.m.frontEntry();
    return { task, ctx: this.m.actionContext(task, entry), def: this.m.screenDef(task.app, entry) };
  }

  private inNavBar(y: number): boolean {
    return y >= this.m.layout.height - this.m.layout.navBarHeight;
  }
}

function describe(node: UiNode | undefined): string | undefined {
  if (!node) return undefined;
  return node.resourceId || node.text || node.contentDesc || node.className;
}
