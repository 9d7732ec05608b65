/**
 * The lanes a call can take on one phone, in the same call, with no side effect sent twice:
 * - "helper": appium-uiautomator2-server, only on a phone whose person turned it on (open ports);
 * - "scrcpy" (input), "ui_reader" and "snapshot" (tree, in that order): the port-less programs
 *   (phone-programs/), on by default, reached only through adb;
 * - "adb": the stock commands (`input`, `uiautomator dump`), whenever the others cannot serve.
 *
 * Fallback rules:
 * - an input (tap, press, swipe, key, text) goes the stock way only when the helper request
 *   was provably not performed (helper-client.ts: nothing answered before the request could
 *   be sent, or the helper answered with an error). When the request left and no answer came
 *   back, the call fails with `outcome_unknown` and nothing is sent again;
 * - a tree read is only a read: any helper failure falls back. So does a tree that lost its
 *   content (sparse) or one that did not follow a navigation (stale). The stock dump needs the
 *   phone's one UiAutomation connection, so the helper is stopped first and left off for a
 *   cool-down (helper-manager.ts), and the safety gate never judges a screen on such a tree.
 * - the UI reader holds that one connection while it runs: the snapshot helper and the stock
 *   dump make it let go first (`yieldUiAutomation`), and where the person turned UIA2 on it is
 *   stopped before UIA2 starts (and never started: `warm`). Its tree is stock `uiautomator
 *   dump`'s own format, parsed by the same parser.
 */
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import {
  assertGestureDuration,
  assertInsideScreen,
  longPress,
  pressKey,
  swipe,
  tap,
  type InputOptions,
  type Point,
  type PressKeyOptions,
} from '../android/input';
import { keyCode } from '../android/keys';
import { parseUiXml, readUiTree, screenSignature, type UiNode } from '../android/ui-tree';
import { typeText, type TypeTextOptions } from '../android/text-input';
import { parseForegroundApp } from '../android/device-info';
import { runText } from '../devices/shell-quote';
import type { Lane, PhoneClipboard, SeenToast, ToolLanes, WindowGlance } from '../tools/tool-definition';
import { notPerformed } from './helper-client';
import { HelperClipboard } from './helper-clipboard';
import type { HelperManager, HelperSession } from './helper-manager';
import { parseAppiumSource, planHelperTyping, pointerActions } from './helper-protocol';
import { splitToasts, ToastLog } from './toast-log';
import type { PhonePrograms } from '../phone-programs/phone-programs';
import type { ScrcpyInputSession } from '../scrcpy/scrcpy-input-session';
import { readSnapshotTree } from '../snapshot/snapshot-helper';
import { isSparse, statsOf, treePackage, type TreeStats } from './tree-quality';

const HELPER_INPUT_TIMEOUT_MS = 10_000;
/** A snapshot read, like a stock dump, may wait for the screen to settle; past this the stock dump is no faster. */
const SNAPSHOT_READ_TIMEOUT_MS = 15_000;
/** The UI reader waits at most 500 ms for idle, then walks the window: past this it is stuck (the session ends it). */
const READER_READ_TIMEOUT_MS = 15_000;
/** The focused node alone: no idle wait, a walk of one subtree. */
const READER_FOCUS_TIMEOUT_MS = 5_000;

interface TreeMark {
  signature: string;
  package: string | null;
  token: string | null;
  actions: number;
}

/** Per bridge: lane bookkeeping per phone (last trees, actions since, toasts seen) over one HelperManager. */
export class FastLanes {
  private readonly stock = new Map<string, Map<string, TreeStats>>();
  private readonly marks = new Map<string, TreeMark>();
  private readonly actions = new Map<string, number>();
  private readonly treeReads = new Map<string, Promise<void>>();
  /** @internal What the helper's page sources showed of toasts, per phone. */
  readonly toasts: ToastLog;

  constructor(
    private readonly manager: HelperManager,
    clock: () => number = Date.now,
    private readonly programs?: PhonePrograms,
  ) {
    this.toasts = new ToastLog(clock);
  }

  /**
   * The lanes of one call on one phone. The one place the port-less programs are started: here,
   * in the background, when they do not run yet; the lanes' queries (`fastTreeReady`, the
   * programs' `input`/`treeHelper`) only look.
   */
  forCall(deviceId: string, shell: DeviceShell): ToolLanes {
    // Where the person turned UIA2 on it may run: the UI reader would hold the UiAutomation it needs.
    this.programs?.warm(deviceId, shell, { uiAutomationFree: !this.manager.enabled(deviceId) });
    return new CallLanes(this, this.manager, deviceId, shell, this.programs);
  }

  /**
   * The phone's UI reader lets go of UiAutomation, for reads the lanes do not serve (a call on
   * another display reads with the stock dump): never starts anything.
   */
  async releaseUiAutomation(deviceId: string): Promise<void> {
    await this.programs?.yieldUiAutomation(deviceId);
  }

  /**
   * @internal Tree reads that open a UiAutomation connection (the snapshot helper, the stock
   * dump) one at a time per phone: Android allows one connection, so a second reader started
   * meanwhile (the read after an action, an agent's `android_ui_tree`) would fail instead of wait.
   */
  serialTree<T>(deviceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.treeReads.get(deviceId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.treeReads.set(deviceId, tail);
    void tail.then(() => {
      if (this.treeReads.get(deviceId) === tail) this.treeReads.delete(deviceId);
    });
    return run;
  }

  /** @internal */
  noteAction(deviceId: string): void {
    this.actions.set(deviceId, (this.actions.get(deviceId) ?? 0) + 1);
  }

  /** @internal */
  noteStockTree(deviceId: string, nodes: readonly UiNode[]): void {
    const pkg = treePackage(nodes);
    if (pkg === null) return;
    let byPackage = this.stock.get(deviceId);
    if (!byPackage) {
      byPackage = new Map();
      this.stock.set(deviceId, byPackage);
    }
    byPackage.set(pkg, statsOf(nodes, pkg));
    this.marks.delete(deviceId);
  }

  /** @internal Why a helper tree must not be used, or null. */
  async judge(
    deviceId: string,
    nodes: UiNode[],
    window: Promise<WindowGlance | null> | undefined,
    glance: () => Promise<WindowGlance | null>,
  ): Promise<string | null> {
    const pkg = treePackage(nodes);
    if (isSparse(nodes, pkg === null ? undefined : this.stock.get(deviceId)?.get(pkg)))
      return 'the helper’s tree was missing content the stock dump shows (sparse tree)';
    const signature = screenSignature(nodes);
    const actions = this.actions.get(deviceId) ?? 0;
    const previous = this.marks.get(deviceId);
    let token: string | null = null;
    if (previous && previous.signature === signature && previous.actions !== actions) {
      // Same tree as before an action: check with a cheap stock signal that nothing moved.
      const now = (window ? await window : null) ?? (await glance());
      token = now?.token ?? null;
      const windowMoved = previous.token !== null && token !== null && previous.token !== token;
      const otherApp = now?.package != null && pkg !== null && now.package !== pkg;
      if (windowMoved || otherApp) return 'the helper’s tree did not follow the last action (stale tree)';
    } else if (window) {
      token = (await window)?.token ?? null;
    }
    this.marks.set(deviceId, { signature, package: pkg, token, actions });
    return null;
  }
}

class CallLanes implements ToolLanes {
  /** The toast mark when this call first sent input: helper reads begun before it saw the screen before the action. */
  private inputMark: number | undefined;

  constructor(
    private readonly lanes: FastLanes,
    private readonly manager: HelperManager,
    private readonly deviceId: string,
    private readonly shell: DeviceShell,
    private readonly programs: PhonePrograms | undefined,
  ) {}

  async tree(
    options: { timeoutMs: number; signal: AbortSignal },
    window?: Promise<WindowGlance | null>,
  ): Promise<{ nodes: UiNode[]; lane: Lane; toasts?: SeenToast[] }> {
    const session = await this.acquireHelper({ signal: options.signal });
    if (session) {
      const read = await this.readHelperTree(session, options, window);
      if ('nodes' in read) {
        this.manager.noteLane(this.deviceId, 'helper');
        return { nodes: read.nodes, lane: 'helper', toasts: read.toasts };
      }
      // The stock dump needs UiAutomation: a helper still running steps aside first, for a while.
      if (this.manager.isRunning(this.deviceId)) await this.manager.pause(this.deviceId, read.reason);
    }
    return this.lanes.serialTree(this.deviceId, async () => {
      const resident = session ? null : await this.readerTreeNow(options);
      if (resident) return { nodes: resident, lane: 'ui_reader' as const };
      // The snapshot helper and the stock dump each need the phone's one UiAutomation connection.
      await this.programs?.yieldUiAutomation(this.deviceId);
      const fast = session ? null : await this.snapshotTreeNow(options);
      if (fast) return { nodes: fast, lane: 'snapshot' as const };
      const nodes = await readUiTree(this.shell, options);
      this.lanes.noteStockTree(this.deviceId, nodes);
      this.manager.noteLane(this.deviceId, 'adb');
      return { nodes, lane: 'adb' as const };
    });
  }

  /**
   * The running UI reader's tree (one still starting is waited for a little), or null when it
   * cannot serve now: any failure leaves the call to the next lane, in the phone's tree-read
   * turn. A tree too large is refused as the stock dump refuses it (the stock dump would only
   * take longer to say so).
   */
  private async readerTreeNow(options: { timeoutMs: number; signal: AbortSignal }): Promise<UiNode[] | null> {
    options.signal.throwIfAborted();
    const programs = this.programs;
    const reader = await programs?.reader(this.deviceId, { signal: options.signal });
    if (!reader || !programs) return null;
    try {
      const display = await programs.readerDisplay(this.deviceId, this.shell);
      if (!display) throw new BridgeError('command_failed', 'the screen’s size is not known', { reason: 'no_display' });
      const xml = await reader.tree(display, {
        timeoutMs: Math.min(options.timeoutMs, READER_READ_TIMEOUT_MS),
        signal: options.signal,
      });
      const nodes = parseUiXml(xml);
      // An empty window says nothing: the stock dump's retries and its words decide (ui_empty).
      if (nodes.length === 0) {
        programs.noteServed(this.deviceId, 'ui_reader', false);
        return null;
      }
      programs.noteServed(this.deviceId, 'ui_reader', true);
      // Stock `uiautomator dump`'s own dumper wrote it: what UIA2's trees are judged against.
      this.lanes.noteStockTree(this.deviceId, nodes);
      return nodes;
    } catch (error) {
      if (options.signal.aborted || (isBridgeError(error) && error.code === 'canceled')) throw error;
      if (isBridgeError(error) && error.details?.reason === 'reader_too_large') throw error;
      programs.readerFailed(this.deviceId, reader, error);
      programs.noteServed(this.deviceId, 'ui_reader', false);
      return null;
    }
  }

  /**
   * The focused node's subtree from the running UI reader, without a read of the whole screen:
   * its nodes (the focused one first), null when nothing has input focus, or undefined when the
   * reader cannot answer now (the caller reads the tree instead). Never starts or waits for a start.
   */
  async focus(options: { timeoutMs: number; signal: AbortSignal }): Promise<UiNode[] | null | undefined> {
    const programs = this.programs;
    if (!programs?.readerReady(this.deviceId)) return undefined;
    return this.lanes.serialTree(this.deviceId, async () => {
      const reader = await programs.reader(this.deviceId, { signal: options.signal });
      if (!reader) return undefined;
      try {
        const display = await programs.readerDisplay(this.deviceId, this.shell);
        if (!display) return undefined;
        const xml = await reader.focus(display, {
          timeoutMs: Math.min(options.timeoutMs, READER_FOCUS_TIMEOUT_MS),
          signal: options.signal,
        });
        programs.noteServed(this.deviceId, 'ui_reader', true);
        return xml === null ? null : parseUiXml(xml);
      } catch (error) {
        if (options.signal.aborted || (isBridgeError(error) && error.code === 'canceled')) throw error;
        programs.readerFailed(this.deviceId, reader, error);
        programs.noteServed(this.deviceId, 'ui_reader', false);
        return undefined;
      }
    });
  }

  /**
   * UIA2 (the opt-in helper) for this call, started when it may run. It needs the phone's one
   * UiAutomation connection: a UI reader still running there (UIA2 was turned on during the
   * lease) lets go first.
   */
  private async acquireHelper(options: { signal?: AbortSignal }): Promise<HelperSession | null> {
    if (this.programs && this.manager.enabled(this.deviceId)) await this.programs.yieldUiAutomation(this.deviceId);
    return this.manager.acquire(this.deviceId, options);
  }

  /**
   * The port-less snapshot helper's tree, or null when it cannot serve now (not checked on the
   * phone yet, failed): a read is only a read, so any failure leaves the call to the stock dump.
   */
  private snapshotTree(options: { timeoutMs: number; signal: AbortSignal }): Promise<UiNode[] | null> {
    if (!this.programs?.treeHelper(this.deviceId)) return Promise.resolve(null);
    return this.lanes.serialTree(this.deviceId, () => this.snapshotTreeNow(options));
  }

  /** snapshotTree inside the phone's tree-read turn. */
  private async snapshotTreeNow(options: { timeoutMs: number; signal: AbortSignal }): Promise<UiNode[] | null> {
    options.signal.throwIfAborted();
    const helper = this.programs?.treeHelper(this.deviceId);
    if (!helper || !this.programs) return null;
    // It needs the phone's one UiAutomation connection.
    await this.programs.yieldUiAutomation(this.deviceId);
    try {
      const read = await readSnapshotTree(this.shell, {
        helper,
        timeoutMs: Math.min(options.timeoutMs, SNAPSHOT_READ_TIMEOUT_MS),
        signal: options.signal,
      });
      this.programs.noteServed(this.deviceId, 'snapshot_tree', true);
      return read.nodes;
    } catch (error) {
      if (options.signal.aborted || (isBridgeError(error) && error.code === 'canceled')) throw error;
      this.programs.treeFailed(this.deviceId, helper, error);
      this.programs.noteServed(this.deviceId, 'snapshot_tree', false);
      return null;
    }
  }

  helperRunning(): boolean {
    return this.manager.isRunning(this.deviceId);
  }

  fastTreeReady(): boolean {
    return (
      this.manager.isRunning(this.deviceId) ||
      this.programs?.readerReady(this.deviceId) === true ||
      this.programs?.treeHelper(this.deviceId) != null
    );
  }

  toastMark(): number {
    return this.lanes.toasts.mark(this.deviceId);
  }

  actionMark(): number | undefined {
    return this.inputMark;
  }

  /** Input is about to be sent: the first time in this call, the toast mark is taken. */
  private beforeInput(): void {
    this.inputMark ??= this.lanes.toasts.mark(this.deviceId);
  }

  toastsSince(from: number, readAfter: number): { watched: boolean; toasts: SeenToast[] } {
    return this.lanes.toasts.since(this.deviceId, from, readAfter);
  }

  async clipboard(options: { signal: AbortSignal }): Promise<PhoneClipboard | null> {
    const session = await this.acquireHelper({ signal: options.signal });
    if (!session) {
      const input = this.programs?.input(this.deviceId);
      return input ? scrcpyClipboard(input, this.programs!, this.deviceId) : null;
    }
    return new HelperClipboard(session, {
      failed: (error) => this.manager.helperFailed(this.deviceId, error),
      served: () => this.manager.noteLane(this.deviceId, 'helper'),
    });
  }

  async fastTree(
    options: { timeoutMs: number; signal: AbortSignal },
    window?: Promise<WindowGlance | null>,
  ): Promise<UiNode[] | null> {
    if (!this.manager.isRunning(this.deviceId)) {
      // The reader when it runs (a failed read is no reason to stop it for the snapshot helper here).
      if (this.programs?.readerReady(this.deviceId))
        return this.lanes.serialTree(this.deviceId, () => this.readerTreeNow(options)).catch(() => null);
      // A reader still starting is not stopped for a read nobody waits on.
      if (this.programs?.readerHolds(this.deviceId)) return null;
      return this.snapshotTree(options);
    }
    const session = await this.acquireHelper({ signal: options.signal });
    if (!session) return null;
    try {
      // A sparse or stale tree is left unused here; the next call's own read makes the helper step aside.
      const read = await this.readHelperTree(session, options, window);
      return 'nodes' in read ? read.nodes : null;
    } catch {
      return null; // canceled
    }
  }

  /**
   * The helper's page source, judged (sparse, stale): its nodes, or why it must not be used. Its
   * toast elements are taken out of the tree and noted in the toast log, whether or not the
   * tree may be used (toast-log.ts). A failed read is reported to the manager (a crash stops
   * the helper; an error answer leaves it running); a canceled one throws.
   */
  private async readHelperTree(
    session: HelperSession,
    options: { timeoutMs: number; signal: AbortSignal },
    window: Promise<WindowGlance | null> | undefined,
  ): Promise<{ nodes: UiNode[]; toasts: SeenToast[] } | { reason: string }> {
    try {
      const ticket = this.lanes.toasts.begin(this.deviceId);
      const source = await session.call('GET', '/source', undefined, {
        timeoutMs: Math.min(options.timeoutMs, 30_000),
        signal: options.signal,
      });
      if (typeof source !== 'string')
        throw new BridgeError('helper_unavailable', 'the helper’s page source was not text', { status: 200 });
      const { nodes, toasts } = splitToasts(parseAppiumSource(source));
      const seen = this.lanes.toasts.record(this.deviceId, ticket, toasts);
      const verdict = await this.lanes.judge(this.deviceId, nodes, window, () => this.glance(options));
      return verdict === null ? { nodes, toasts: seen } : { reason: verdict };
    } catch (error) {
      if (options.signal.aborted || (isBridgeError(error) && error.code === 'canceled')) throw error;
      await this.manager.helperFailed(this.deviceId, error);
      return {
        reason: `the helper could not read the screen (${error instanceof Error ? error.message.slice(0, 160) : 'error'})`,
      };
    }
  }

  private async glance(options: { timeoutMs: number; signal: AbortSignal }): Promise<WindowGlance | null> {
    try {
      // Android 10+ print the focus in the display section, 8–9 in the windows section (as the safety probe reads it).
      const read = { timeoutMs: Math.min(options.timeoutMs, 10_000), signal: options.signal };
      const outs = await Promise.all([
        runText(this.shell, ['dumpsys', 'window', 'displays'], read),
        runText(this.shell, ['dumpsys', 'window', 'windows'], read),
      ]);
      const text = outs.map((o) => o.text).join('\n');
      const token = /mCurrentFocus=(Window\{[^}\s]+)/.exec(text)?.[1] ?? null;
      return { token, package: parseForegroundApp(text)?.package ?? null };
    } catch {
      return null;
    }
  }

  /**
   * Runs `helper` on the running helper, else (or when it provably did nothing) `stock`.
   * An answer that never came after the request left is `outcome_unknown`: not sent again.
   */
  private async act(
    signal: AbortSignal | undefined,
    helper: (session: HelperSession) => Promise<void>,
    stock: () => Promise<void>,
    scrcpy?: (input: ScrcpyInputSession) => Promise<void>,
  ): Promise<Lane> {
    this.beforeInput();
    const session = await this.acquireHelper(signal ? { signal } : {});
    if (session) {
      try {
        await helper(session);
        this.lanes.noteAction(this.deviceId);
        this.manager.noteLane(this.deviceId, 'helper');
        return 'helper';
      } catch (error) {
        if (isBridgeError(error) && error.code === 'canceled') throw error;
        await this.manager.helperFailed(this.deviceId, error);
        if (!notPerformed(error)) throw error;
      }
    } else if (scrcpy && (await this.viaScrcpy(scrcpy))) {
      return 'scrcpy';
    }
    await stock();
    this.lanes.noteAction(this.deviceId);
    this.manager.noteLane(this.deviceId, 'adb');
    return 'adb';
  }

  /**
   * Runs `work` on the running input server: true when it did. False (the caller goes the stock
   * way) when none runs or the server provably did nothing; an input that may have acted throws.
   */
  private async viaScrcpy(work: (input: ScrcpyInputSession) => Promise<void>): Promise<boolean> {
    const input = this.programs?.input(this.deviceId);
    if (!input || !this.programs) return false;
    try {
      await work(input);
    } catch (error) {
      this.programs.inputFailed(this.deviceId, input, error);
      if (!notPerformed(error)) throw error;
      this.programs.noteServed(this.deviceId, 'scrcpy_input', false);
      return false;
    }
    this.lanes.noteAction(this.deviceId);
    this.programs.noteServed(this.deviceId, 'scrcpy_input', true);
    return true;
  }

  private requestOptions(
    options: { timeoutMs?: number; signal?: AbortSignal } | undefined,
    extraMs = 0,
  ): { timeoutMs: number; signal?: AbortSignal } {
    return {
      timeoutMs: Math.min(options?.timeoutMs ?? HELPER_INPUT_TIMEOUT_MS, HELPER_INPUT_TIMEOUT_MS) + extraMs,
      ...(options?.signal ? { signal: options.signal } : {}),
    };
  }

  tap(x: number, y: number, options?: InputOptions): Promise<Lane> {
    checkPoint({ x, y }, options);
    return this.act(
      options?.signal,
      async (s) => {
        await s.call('POST', '/actions', pointerActions({ x, y }, null, 0), this.requestOptions(options));
      },
      () => tap(this.shell, x, y, options),
      (input) => input.tap(x, y, this.requestOptions(options)),
    );
  }

  longPress(x: number, y: number, durationMs: number, options?: InputOptions): Promise<Lane> {
    checkPoint({ x, y }, options);
    assertGestureDuration(durationMs);
    return this.act(
      options?.signal,
      async (s) => {
        await s.call(
          'POST',
          '/actions',
          pointerActions({ x, y }, null, durationMs),
          this.requestOptions(options, durationMs),
        );
      },
      () => longPress(this.shell, x, y, durationMs, options),
      (input) => input.longPress(x, y, { ...this.requestOptions(options, durationMs), durationMs }),
    );
  }

  swipe(from: Point, to: Point, durationMs: number, options?: InputOptions): Promise<Lane> {
    checkPoint(from, options);
    checkPoint(to, options);
    assertGestureDuration(durationMs);
    return this.act(
      options?.signal,
      async (s) => {
        await s.call(
          'POST',
          '/actions',
          pointerActions(from, to, 0, durationMs),
          this.requestOptions(options, durationMs),
        );
      },
      () => swipe(this.shell, from, to, durationMs, options),
      (input) => input.swipe(from.x, from.y, to.x, to.y, durationMs, this.requestOptions(options, durationMs)),
    );
  }

  pressKey(name: string, options?: PressKeyOptions): Promise<Lane> {
    const code = keyCode(name);
    // A held key has its own endpoint the helper does not serve: scrcpy or the stock lane presses it.
    if (options?.longPress) {
      this.beforeInput();
      return (async () => {
        if (
          await this.viaScrcpy((input) => input.key(code, { ...this.requestOptions(options, 1_000), longPress: true }))
        )
          return 'scrcpy' as const;
        await pressKey(this.shell, name, options);
        this.lanes.noteAction(this.deviceId);
        this.manager.noteLane(this.deviceId, 'adb');
        return 'adb' as const;
      })();
    }
    return this.act(
      options?.signal,
      async (s) => {
        await s.call(
          'POST',
          '/appium/device/press_keycode',
          { keycode: code, metastate: 0 },
          this.requestOptions(options),
        );
      },
      () => pressKey(this.shell, name, options),
      (input) => input.key(code, this.requestOptions(options)),
    );
  }

  /**
   * Types through the helper's `keys` (any Unicode, no ADB Keyboard needed), appending to the
   * focused field; line breaks and tabs as key presses. When a step provably did nothing, the
   * rest of the text (never what was already typed) goes the stock way. A password field goes
   * the stock way from the start (text-input.ts): the helper appends after reading the field's
   * text, and Android masks a password field's text.
   */
  async typeText(
    text: string,
    options: TypeTextOptions & { password?: boolean },
  ): Promise<{ lane: Lane; method: string }> {
    this.beforeInput();
    // The helper appends by reading the field's text first, which a password field masks: stock way.
    const session = options.password
      ? null
      : await this.acquireHelper(options.signal ? { signal: options.signal } : {});
    if (session) {
      const steps = planHelperTyping(text);
      let done = 0;
      let typedChars = 0;
      try {
        for (const step of steps) {
          if ('text' in step) {
            await session.call(
              'POST',
              '/keys',
              { text: step.text, replace: false },
              this.requestOptions(options, Math.ceil(step.text.length / 10)),
            );
            typedChars += step.text.length;
          } else {
            await session.call(
              'POST',
              '/appium/device/press_keycode',
              { keycode: step.keycode, metastate: 0 },
              this.requestOptions(options),
            );
            typedChars += 1;
          }
          done += 1;
        }
        this.lanes.noteAction(this.deviceId);
        this.manager.noteLane(this.deviceId, 'helper');
        return { lane: 'helper', method: 'helper' };
      } catch (error) {
        if (isBridgeError(error) && error.code === 'canceled') throw error;
        await this.manager.helperFailed(this.deviceId, error);
        if (!notPerformed(error)) throw error;
        if (done > 0) {
          const rest = normalised(text).slice(typedChars);
          const typed = await typeText(this.shell, rest, options);
          this.lanes.noteAction(this.deviceId);
          this.manager.noteLane(this.deviceId, 'adb');
          return { lane: 'adb', method: typed.method };
        }
      }
    }
    if (!session) {
      const viaScrcpy = await this.typeViaScrcpy(text, options);
      if ('lane' in viaScrcpy) return viaScrcpy;
      text = viaScrcpy.rest;
    }
    const typed = await typeText(this.shell, text, options);
    this.lanes.noteAction(this.deviceId);
    this.manager.noteLane(this.deviceId, 'adb');
    return { lane: 'adb', method: typed.method };
  }

  /**
   * Types through scrcpy-server: printable ASCII as key events (nothing on the clipboard),
   * anything else pasted from the clipboard (any language, no keyboard app needed); line breaks
   * and tabs as keys. A password field gets key events only: a secret is never put on the
   * clipboard, so its other characters go the stock way. Answers the lane, or the text still
   * to type (all of it when nothing was typed) when a step provably did nothing.
   */
  private async typeViaScrcpy(
    text: string,
    options: TypeTextOptions & { password?: boolean },
  ): Promise<{ lane: Lane; method: string } | { rest: string }> {
    const programs = this.programs;
    const input = programs?.input(this.deviceId);
    if (!input || !programs) return { rest: text };
    const all = normalised(text);
    let typed = 0;
    let pasted = false;
    for (const piece of scrcpyTypingPieces(all)) {
      if (piece.kind === 'paste' && options.password) break;
      try {
        if (piece.kind === 'key') await input.key(piece.keycode, this.requestOptions(options));
        else if (piece.kind === 'keys')
          await input.injectText(piece.text, this.requestOptions(options, Math.ceil(piece.text.length * 2)));
        else {
          await input.typeText(piece.text, this.requestOptions(options));
          programs.notePasted(this.deviceId, piece.text);
          pasted = true;
        }
      } catch (error) {
        programs.inputFailed(this.deviceId, input, error);
        if (!notPerformed(error)) throw error;
        break;
      }
      typed += piece.length;
    }
    if (typed === 0) {
      programs.noteServed(this.deviceId, 'scrcpy_input', false);
      return { rest: text };
    }
    this.lanes.noteAction(this.deviceId);
    programs.noteServed(this.deviceId, 'scrcpy_input', true);
    if (typed < all.length) {
      // The rest the stock way: what scrcpy typed is not typed again.
      const rest = await typeText(this.shell, all.slice(typed), options);
      return { lane: 'adb', method: rest.method };
    }
    return { lane: 'scrcpy', method: pasted ? 'scrcpy_paste' : 'scrcpy_keys' };
  }
}

type TypingPiece =
  | { kind: 'keys'; text: string; length: number }
  | { kind: 'paste'; text: string; length: number }
  | { kind: 'key'; keycode: number; length: number };

/** Text cut into runs of printable ASCII (key events), other text (paste), and line breaks or tabs (keys). */
export function scrcpyTypingPieces(text: string): TypingPiece[] {
  const pieces: TypingPiece[] = [];
  const re = /([\x20-\x7e]+)|([\n\t])|([^\x20-\x7e\n\t]+)/gu;
  for (const match of text.matchAll(re)) {
    const [whole, ascii, control] = match;
    if (ascii !== undefined) pieces.push({ kind: 'keys', text: ascii, length: whole.length });
    else if (control !== undefined) pieces.push({ kind: 'key', keycode: control === '\n' ? 66 : 61, length: 1 });
    else pieces.push({ kind: 'paste', text: whole, length: whole.length });
  }
  return pieces;
}

/** The phone's clipboard through scrcpy-server (it reads the clipboard on every Android, as the shell may). */
function scrcpyClipboard(input: ScrcpyInputSession, programs: PhonePrograms, deviceId: string): PhoneClipboard {
  const served = (): void => programs.noteServed(deviceId, 'scrcpy_input', true);
  return {
    lane: 'scrcpy',
    readsEveryApp: true,
    async read(options) {
      try {
        const text = (await input.getClipboard(options)) ?? '';
        served();
        return text;
      } catch (error) {
        programs.inputFailed(deviceId, input, error);
        throw error;
      }
    },
    async write(text, options) {
      try {
        await input.setClipboard(text, options);
        served();
      } catch (error) {
        programs.inputFailed(deviceId, input, error);
        throw error;
      }
    },
  };
}

function normalised(text: string): string {
  return text.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
}

function checkPoint(point: Point, options: InputOptions | undefined): void {
  if (options?.screen) {
    assertInsideScreen(point, options.screen);
    return;
  }
  for (const value of [point.x, point.y]) {
    if (!Number.isSafeInteger(value))
      throw new BridgeError('invalid_arguments', `coordinates must be integer pixels, got ${String(value)}`);
    if (value < 0) throw new BridgeError('out_of_bounds', `coordinates must not be negative, got ${value}`);
  }
}
