/**
 * The phone's UI state machine: tasks and their back stacks, what is in front (home,
 * recents or a task), focus and text fields, the display's power state, and what taps,
 * swipes, keys and typed text do to it. Every change bumps `version`, which keys the
 * window and frame caches so an unchanged screen is never rebuilt or re-rendered.
 */
import {
  AppData,
  type ActionContext,
  type AppDef,
  type AppEnv,
  type FieldState,
  type ScreenDef,
  type ScreenEntry,
} from './app-types';
import type { Rgb } from './colors';
import { LAUNCHER_PKG, launcherApp } from './app-launcher';
import type { Layout } from './layout';
import { emptyField, setText } from './text-field';
import { walk, type UiNode } from './ui-node';
import { buildDecor } from './window-builder';
import { systemDialogWindow, type DialogAnswer, type SystemDialogKind } from './system-dialogs';
import { ToastQueue } from './toasts';

export interface Task {
  id: number;
  app: AppDef;
  stack: ScreenEntry[];
  fields: Map<string, FieldState>;
  focused: string | undefined;
}

export interface ScreenWindow {
  pkg: string;
  activity: string;
  screen: string;
  taskId: number;
  secure: boolean;
  root: UiNode;
  header: Rgb;
  background: Rgb;
  /** A system dialog over the app (system-dialogs.ts): its window title for `dumpsys window`. */
  title?: string;
  /** Under a dialog that is no activity (ANR), the app whose record stays focused. */
  focusedApp?: { pkg: string; activity: string } | null;
}

/** Outcome of an activity start, mapped by `am` onto ActivityManager.START_* messages. */
export type StartResult = 'started' | 'delivered-to-top' | 'task-to-front' | 'class-not-found' | 'no-launcher-activity';

export interface AppResolver {
  get(pkg: string): AppDef | undefined;
  /** Apps with a launcher icon, in home-screen order. */
  launchable(): AppDef[];
}

export type EnvBase = Omit<AppEnv, 'launcherApps' | 'recentTasks' | 'layout'>;

type Foreground = { kind: 'home' } | { kind: 'recents'; previous: Foreground } | { kind: 'task'; taskId: number };

const HOME_TASK_ID = 1;

export class ScreenMachine {
  version = 0;
  awake = true;
  readonly env: AppEnv;
  /** Toasts the apps showed (NotificationManagerService's queue); a toast does not change the window. */
  readonly toasts = new ToastQueue();
  private readonly tasks: Task[] = []; // most recent last
  private readonly homeTask: Task;
  private readonly recentsEntry: ScreenEntry = { screen: 'recents', params: {}, state: new AppData() };
  private readonly storage = new Map<string, AppData>();
  private foreground: Foreground = { kind: 'home' };
  private nextTaskId = 12;
  private cached: { version: number; window: ScreenWindow } | undefined;
  private readonly changeListeners = new Set<() => void>();
  /** The phone's language for the screen model's strings (zh-cn quirk); undefined: as built. */
  private translate: ((text: string) => string) | undefined;
  /** A system dialog over the app in front, until a tap (or BACK) answers it. */
  private dialog: { kind: SystemDialogKind; onAnswer: ((answer: DialogAnswer) => void) | undefined } | undefined;

  constructor(
    readonly layout: Layout,
    private readonly apps: AppResolver,
    base: EnvBase,
  ) {
    this.env = {
      ...base,
      layout,
      launcherApps: () => this.apps.launchable().map((a) => ({ pkg: a.pkg, label: a.label, color: a.header })),
      recentTasks: () =>
        [...this.tasks]
          .reverse()
          .map((t) => ({ taskId: t.id, pkg: t.app.pkg, label: t.app.label, color: t.app.header })),
      putGlobalSetting: (key, value) => {
        base.putGlobalSetting(key, value);
        this.touch();
      },
    };
    this.homeTask = {
      id: HOME_TASK_ID,
      app: launcherApp,
      stack: [{ screen: 'home', params: {}, state: new AppData() }],
      fields: new Map(),
      focused: undefined,
    };
  }

  /**
   * Shows the screen model's strings through `translate` (a phone in another language), or
   * as built when undefined. Typed text in fields is never translated.
   */
  setTranslate(translate: ((text: string) => string) | undefined): void {
    if (this.translate === translate) return;
    this.translate = translate;
    this.touch();
  }

  /** Shows a system dialog over the app in front (undefined: none); `onAnswer` hears how it was answered. */
  setSystemDialog(kind: SystemDialogKind | undefined, onAnswer?: (answer: DialogAnswer) => void): void {
    if (this.dialog?.kind === kind) return;
    this.dialog = kind === undefined ? undefined : { kind, onAnswer };
    this.touch();
  }

  systemDialog(): SystemDialogKind | undefined {
    return this.dialog?.kind;
  }

  /** A dialog button was tapped (or BACK pressed): Close app stops the app; the dialog goes. */
  answerSystemDialog(answer: DialogAnswer): void {
    const dialog = this.dialog;
    if (!dialog) return;
    this.dialog = undefined;
    if (answer === 'anr-close') this.forceStop(this.frontTask().app.pkg);
    this.touch();
    dialog.onAnswer?.(answer);
  }

  /** Marks the screen changed (invalidates window and frame caches) and tells whoever watches. */
  touch(): void {
    this.version++;
    for (const listener of [...this.changeListeners]) listener();
  }

  /** Calls `listener` after every screen change until the returned function is called. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  dataFor(pkg: string): AppData {
    let data = this.storage.get(pkg);
    if (!data) {
      data = new AppData();
      this.storage.set(pkg, data);
    }
    return data;
  }

  /** The task whose window is in front (the home task for home and recents). */
  frontTask(): Task {
    if (this.foreground.kind === 'task') {
      const id = this.foreground.taskId;
      const task = this.tasks.find((t) => t.id === id);
      if (task) return task;
    }
    return this.homeTask;
  }

  frontEntry(): ScreenEntry {
    if (this.foreground.kind === 'recents') return this.recentsEntry;
    const task = this.frontTask();
    return task.stack[task.stack.length - 1] ?? this.homeTask.stack[0]!;
  }

  isRecents(): boolean {
    return this.foreground.kind === 'recents';
  }

  allTasks(): readonly Task[] {
    return this.tasks;
  }

  /** The front window, rebuilt only when the state changed. */
  window(): ScreenWindow {
    if (this.cached?.version === this.version) return this.cached.window;
    const task = this.frontTask();
    const entry = this.frontEntry();
    const def = this.screenDef(task.app, entry);
    const content = def.build(this.buildContext(task, entry));
    if (this.translate) for (const node of content) translateTree(node, this.translate);
    const window: ScreenWindow = {
      pkg: task.app.pkg,
      activity: def.activity,
      screen: entry.screen,
      taskId: task.id,
      secure: def.secure === true,
      root: buildDecor(this.layout, content, task.app.header, task.app.background),
      header: task.app.header,
      background: task.app.background,
    };
    const dialog =
      this.dialog &&
      systemDialogWindow(
        this.dialog.kind,
        { pkg: window.pkg, label: task.app.label, activity: window.activity },
        this.layout,
      );
    const front: ScreenWindow = dialog
      ? {
          ...window,
          pkg: dialog.pkg,
          activity: dialog.activity,
          screen: dialog.screen,
          secure: false,
          root: dialog.root,
          title: dialog.title,
          focusedApp: dialog.focusedApp,
        }
      : window;
    this.cached = { version: this.version, window: front };
    return front;
  }

  screenDef(app: AppDef, entry: ScreenEntry): ScreenDef {
    const def = app.screens[entry.screen] ?? app.screens[app.launchScreen];
    if (!def) throw new Error(`app ${app.pkg} has no screen ${entry.screen}`);
    return def;
  }

  // --- navigation -------------------------------------------------------------------------

  goHome(): void {
    this.foreground = { kind: 'home' };
    this.touch();
  }

  toggleRecents(): void {
    this.foreground =
      this.foreground.kind === 'recents' ? this.foreground.previous : { kind: 'recents', previous: this.foreground };
    this.touch();
  }

  back(): void {
    // BACK answers a system dialog: the permission prompt as "Don't allow", ANR as "Wait".
    if (this.dialog) {
      this.answerSystemDialog(this.dialog.kind === 'permission' ? 'deny' : 'anr-wait');
      return;
    }
    if (this.foreground.kind === 'recents') {
      this.foreground = this.foreground.previous;
    } else if (this.foreground.kind === 'task') {
      const task = this.frontTask();
      if (task.stack.length > 1) {
        task.stack.pop();
        task.focused = undefined;
      } else {
        // Android 12+: BACK on a task root moves the task behind home instead of finishing it.
        this.foreground = { kind: 'home' };
      }
    }
    this.touch();
  }

  /** What tapping the app's icon (or `monkey -c LAUNCHER`) does. */
  launchApp(pkg: string): StartResult {
    if (pkg === LAUNCHER_PKG) {
      this.goHome();
      return 'started';
    }
    const app = this.apps.get(pkg);
    if (!app?.launchable) return 'no-launcher-activity';
    const existing = this.tasks.find((t) => t.app.pkg === pkg);
    if (existing) {
      this.bringToFront(existing);
      return 'task-to-front';
    }
    this.createTask(app, app.launchScreen, {});
    return 'started';
  }

  /** `am start` with an explicit component (and optional data params like a URL). */
  startActivity(pkg: string, activity: string, params: Record<string, string>): StartResult {
    if (pkg === LAUNCHER_PKG && activity === launcherApp.screens.home?.activity) {
      this.goHome();
      return 'started';
    }
    const app = this.apps.get(pkg);
    const screen = app && Object.entries(app.screens).find(([, def]) => def.activity === activity && def.exported)?.[0];
    if (!app || !screen) return 'class-not-found';
    const task = this.tasks.find((t) => t.app.pkg === pkg);
    if (!task) {
      this.createTask(app, screen, params);
      return 'started';
    }
    const top = task.stack[task.stack.length - 1];
    const def = top && app.screens[top.screen];
    if (top?.screen === screen && def) {
      this.bringToFront(task);
      def.onNewIntent?.(params, this.actionContext(task, top));
      this.touch();
      return 'delivered-to-top';
    }
    if (task.stack[0]?.screen === screen && Object.keys(params).length === 0) {
      this.bringToFront(task);
      return 'task-to-front';
    }
    this.bringToFront(task);
    this.pushScreen(task, screen, params);
    return 'started';
  }

  forceStop(pkg: string): void {
    const index = this.tasks.findIndex((t) => t.app.pkg === pkg);
    if (index < 0) return;
    const [task] = this.tasks.splice(index, 1);
    if (this.foreground.kind === 'task' && this.foreground.taskId === task?.id) this.foreground = { kind: 'home' };
    if (
      this.foreground.kind === 'recents' &&
      this.foreground.previous.kind === 'task' &&
      this.foreground.previous.taskId === task?.id
    ) {
      this.foreground = { kind: 'recents', previous: { kind: 'home' } };
    }
    this.touch();
  }

  clearData(pkg: string): void {
    this.forceStop(pkg);
    this.storage.delete(pkg);
    this.touch();
  }

  setAwake(awake: boolean): void {
    if (this.awake === awake) return;
    this.awake = awake;
    this.touch();
  }

  // --- contexts for apps ------------------------------------------------------------------

  fieldOf(task: Task, id: string): FieldState {
    let field = task.fields.get(id);
    if (!field) {
      field = emptyField();
      task.fields.set(id, field);
    }
    return field;
  }

  buildContext(task: Task, entry: ScreenEntry): ActionContext {
    return this.actionContext(task, entry);
  }

  actionContext(task: Task, entry: ScreenEntry): ActionContext {
    return {
      env: this.env,
      layout: this.layout,
      pkg: task.app.pkg,
      entry,
      data: this.dataFor(task.app.pkg),
      field: (id) => this.fieldOf(task, id),
      get focusedField() {
        return task.focused;
      },
      open: (screen, params = {}) => this.pushScreen(task, screen, params),
      finish: () => {
        const index = task.stack.indexOf(entry);
        if (index > 0) task.stack.splice(index, 1);
        else if (this.foreground.kind === 'task' && this.foreground.taskId === task.id)
          this.foreground = { kind: 'home' };
        task.focused = undefined;
        this.touch();
      },
      popToRoot: () => {
        task.stack.splice(1);
        this.touch();
      },
      focus: (fieldId) => {
        task.focused = fieldId;
        this.touch();
      },
      setField: (id, text) => {
        setText(this.fieldOf(task, id), text);
        this.touch();
      },
      launchPackage: (pkg) => void this.launchApp(pkg),
      openTask: (taskId) => {
        const target = this.tasks.find((t) => t.id === taskId);
        if (target) this.bringToFront(target);
      },
      clearRecents: () => {
        this.tasks.splice(0);
        this.foreground = { kind: 'home' };
        this.touch();
      },
      toast: (text, options = {}) => {
        this.toasts.enqueue({ pkg: task.app.pkg, text: this.translate ? this.translate(text) : text, ...options });
      },
    };
  }

  private createTask(app: AppDef, screen: string, params: Record<string, string>): Task {
    const task: Task = { id: this.nextTaskId++, app, stack: [], fields: new Map(), focused: undefined };
    this.tasks.push(task);
    this.foreground = { kind: 'task', taskId: task.id };
    this.pushScreen(task, screen, params);
    return task;
  }

  private pushScreen(task: Task, screen: string, params: Record<string, string>): void {
    const entry: ScreenEntry = { screen, params, state: new AppData() };
    task.stack.push(entry);
    task.focused = undefined;
    const def = task.app.screens[screen];
    def?.onCreate?.(this.actionContext(task, entry));
    this.touch();
  }

  private bringToFront(task: Task): void {
    const index = this.tasks.indexOf(task);
    if (index >= 0) {
      this.tasks.splice(index, 1);
      this.tasks.push(task);
    }
    this.foreground = { kind: 'task', taskId: task.id };
    this.touch();
  }
}

/** Puts a node tree's strings in the phone's language; a field's typed text stays as typed. */
function translateTree(root: UiNode, translate: (text: string) => string): void {
  for (const node of walk(root)) {
    if (!node.fieldId) node.text = translate(node.text);
    node.contentDesc = translate(node.contentDesc);
    if (node.paint?.label && !node.fieldId) node.paint = { ...node.paint, label: translate(node.paint.label) };
  }
}
