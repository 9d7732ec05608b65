/**
 * What a simulated app is: its package, activities (screens), colours, how each screen
 * builds its view tree and how it reacts to taps, ENTER in a field and scrolling. Apps only
 * see the small contexts defined here; the screen machine owns tasks, focus and history.
 */
import type { Layout } from './layout';
import type { Rgb } from './colors';
import type { UiNode } from './ui-node';

/** Text of one editable field: cursor position and whether everything is selected. */
export interface FieldState {
  text: string;
  cursor: number;
  allSelected: boolean;
}

/** Per-package values that survive until `pm clear` (a tiny SharedPreferences). */
export class AppData {
  private readonly values = new Map<string, string | number | boolean>();

  str(key: string, fallback = ''): string {
    const v = this.values.get(key);
    return typeof v === 'string' ? v : fallback;
  }

  num(key: string, fallback = 0): number {
    const v = this.values.get(key);
    return typeof v === 'number' ? v : fallback;
  }

  bool(key: string, fallback = false): boolean {
    const v = this.values.get(key);
    return typeof v === 'boolean' ? v : fallback;
  }

  set(key: string, value: string | number | boolean): void {
    this.values.set(key, value);
  }

  delete(key: string): void {
    this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
  }

  entries(): Array<[string, string | number | boolean]> {
    return [...this.values.entries()];
  }
}

/** One activity instance on a task's back stack. */
export interface ScreenEntry {
  screen: string;
  params: Readonly<Record<string, string>>;
  /** Per-instance state (scroll offsets, messages) that dies with the activity. */
  state: AppData;
}

/** The parts of the phone an app may look at or change. */
export interface AppEnv {
  readonly layout: Layout;
  readonly model: string;
  readonly androidVersion: string;
  readonly buildId: string;
  batteryLevel(): number;
  getGlobalSetting(key: string): string | undefined;
  putGlobalSetting(key: string, value: string): void;
  /** Apps with a launcher icon, in launcher order. */
  launcherApps(): Array<{ pkg: string; label: string; color: Rgb }>;
  /** Recent tasks, most recent first. */
  recentTasks(): Array<{ taskId: number; pkg: string; label: string; color: Rgb }>;
}

export interface BuildContext {
  readonly env: AppEnv;
  readonly layout: Layout;
  readonly pkg: string;
  readonly entry: ScreenEntry;
  /** Persistent per-package values. */
  readonly data: AppData;
  /** The field's state in this task (created empty on first use). */
  field(id: string): FieldState;
  readonly focusedField: string | undefined;
}

export interface ActionContext extends BuildContext {
  /** Starts another screen of the same app on top of this one. */
  open(screen: string, params?: Record<string, string>): void;
  /** Finishes this screen (BACK); the root screen goes to the background. */
  finish(): void;
  /** Finishes every screen above the task root. */
  popToRoot(): void;
  focus(fieldId: string | undefined): void;
  setField(id: string, text: string): void;
  /** Launcher/recents: bring an app to the front as its icon would. */
  launchPackage(pkg: string): void;
  openTask(taskId: number): void;
  clearRecents(): void;
  /** Toast.makeText(…).show() from this app (toasts.ts): LENGTH_SHORT unless `durationMs` says otherwise. */
  toast(text: string, options?: { durationMs?: number; delayMs?: number }): void;
}

export interface ScreenDef {
  /** Fully qualified activity class. */
  activity: string;
  /** Can `am start -n` start it directly. */
  exported?: boolean;
  /** FLAG_SECURE: screenshots of it are black. */
  secure?: boolean;
  /** The children of the content frame (android:id/content). */
  build(ctx: BuildContext): UiNode[];
  /** A new instance of the screen was created (restore saved values into fields). */
  onCreate?(ctx: ActionContext): void;
  /** An intent reached the screen while it was already on top (e.g. a new URL). */
  onNewIntent?(params: Readonly<Record<string, string>>, ctx: ActionContext): void;
  onAction?(action: string, ctx: ActionContext): void;
  /** ENTER (IME action) in a single-line field. Default: move to the next field. */
  onSubmit?(fieldId: string, ctx: ActionContext): boolean;
  /** A swipe over a scrollable node: `dy` > 0 moves the content up (reveals later rows). */
  onScroll?(node: UiNode, dy: number, ctx: ActionContext): void;
}

export interface AppDef {
  pkg: string;
  label: string;
  system: boolean;
  /** Has a LAUNCHER activity (icon on the home screen, `monkey -c LAUNCHER` works). */
  launchable: boolean;
  header: Rgb;
  background: Rgb;
  screens: Readonly<Record<string, ScreenDef>>;
  launchScreen: string;
}
