/**
 * What a tool is: id, honest description, a strict zod schema for its arguments (the same
 * schema yields the Card's input_schema and validates every call at the edge), its kind
 * (observation runs concurrently, control is serialized per phone), whether it has side
 * effects (journaled for exactly-once), and how it runs against one bound phone.
 */
import { z } from 'zod';
import type { DeliveredFile } from '../../contract/outgoing-packets';
import type { ActionLane } from '../../contract/admin-api';
import type { ToolId } from '../../contract/tools';
import type { DeviceShell } from '../devices/device-shell';
import type { DeviceRecord } from '../devices/device-registry';
import type { CardTool, JsonObjectSchema } from '../protocol/card';
import type { UiNode } from '../android/ui-tree';
import type { InputOptions, Point, PressKeyOptions } from '../android/input';
import type { TypeTextOptions } from '../android/text-input';
import type { ScreenSource } from '../screen/screen-source';
import { REF_PATTERN, type RememberedTree } from './element-refs';

export type ToolKind = 'observation' | 'control';

export interface ToolContext {
  channelId: string;
  device: DeviceRecord;
  shell: DeviceShell;
  signal: AbortSignal;
  /** Default deadline for one adb operation. */
  timeoutMs: number;
  progress: (status: string, message: string, progress?: number) => void;
  /**
   * The oriented screen size, cached per phone. `accepts` says whether a cached size will do
   * for this call (a point inside it); otherwise the size is read again (the phone may have rotated).
   */
  screenSize: (
    accepts?: (size: { width: number; height: number }) => boolean,
  ) => Promise<{ width: number; height: number }>;
  /** The last UI tree this channel saw (for `index` selectors, element refs and change detection). */
  lastTree: () => RememberedTree | undefined;
  /** `actions`: the phone's action count when the read started (`refs.actions()` then). */
  rememberTree: (nodes: UiNode[], signature: string, actions: number) => RememberedTree;
  /** What element refs are checked with (tools/element-refs.ts). */
  refs: RefChecks;
  /** Services the file and media tools use. */
  services: ToolServices;
  /** The safety gate's look before a later step of a batch; throws to stop the batch there. */
  checkStep?: (step: BatchStep) => Promise<void>;
  /** The fast lane (the helper on the phone when running) with the stock lane behind it; absent: stock only. */
  lanes?: ToolLanes;
  /**
   * The tree read after the channel's last action, while the phone's screen stream shows no
   * change since (a read that needs no phone work); absent or null: read the phone.
   */
  screenStill?: () => Promise<UiNode[] | null>;
}

/** What element refs are checked with: the phone's actions, and the screen the safety gate read for this call. */
export interface RefChecks {
  /** How many control calls (and batch steps) have acted on this phone so far. */
  actions(): number;
  /** A batch step acted on the phone: refs read before it expire (the pipeline notes every control call itself). */
  acted(): void;
  /** The raw UI tree the safety gate read afresh just before this call (null: none, a cached tree stood in, or a batch step has acted since). */
  checkedTree(): readonly UiNode[] | null;
  /** This call waited for a person's approval (the screen may have changed since the gate read it). */
  heldForApproval(): boolean;
}

/**
 * Which lane served a call: appium-uiautomator2-server where the person opened its ports
 * ("helper"), scrcpy-server's input, the UI reader's or the snapshot helper's tree (port-less,
 * through adb only), or stock adb commands.
 */
export type Lane = ActionLane;

/** The focused window as `dumpsys window windows` shows it (the stale-tree check compares it). */
export interface WindowGlance {
  token: string | null;
  package: string | null;
}

/** A toast the helper reported: its text, and when the helper read that first saw it began (ms since epoch). */
export interface SeenToast {
  text: string;
  at: number;
  /** A read before the action already showed this text: it may be that toast, still kept (helper/toast-log.ts). */
  seenBefore?: boolean;
}

/**
 * What the tools ask of the lanes (main/core/helper/fast-lane.ts implements it). Each method
 * uses the helper when it runs and falls back to the stock adb way in the same call, never
 * sending a side effect twice; it answers which lane served it.
 */
export interface ToolLanes {
  /**
   * `window`: the focused window read at the same time, when the caller reads it anyway.
   * A helper tree carries no toast elements; `toasts` (helper lane only) are those its read saw.
   */
  tree(
    options: { timeoutMs: number; signal: AbortSignal },
    window?: Promise<WindowGlance | null>,
  ): Promise<{ nodes: UiNode[]; lane: Lane; toasts?: SeenToast[] }>;
  tap(x: number, y: number, options?: InputOptions): Promise<Lane>;
  longPress(x: number, y: number, durationMs: number, options?: InputOptions): Promise<Lane>;
  swipe(from: Point, to: Point, durationMs: number, options?: InputOptions): Promise<Lane>;
  pressKey(name: string, options?: PressKeyOptions): Promise<Lane>;
  /** `password`: the focused field is a password field; its text goes the stock way (text-input.ts). */
  typeText(text: string, options: TypeTextOptions & { password?: boolean }): Promise<{ lane: Lane; method: string }>;
  /** Whether the open-ports helper runs now (its tree reads cost the phone nothing; it watches toasts). */
  helperRunning(): boolean;
  /**
   * Whether a tree read other than the stock dump can serve now (the helper or the UI reader
   * runs, or the snapshot helper is checked): a pure query, it starts nothing.
   */
  fastTreeReady(): boolean;
  /**
   * A tree from the helper (judged like `tree`: sparse, stale), the UI reader or the snapshot
   * helper, or null when none serves now, fails, or its tree must not be used: never the stock
   * dump, never starts a program.
   */
  fastTree(
    options: { timeoutMs: number; signal: AbortSignal },
    window?: Promise<WindowGlance | null>,
  ): Promise<UiNode[] | null>;
  /**
   * The node with input focus and its subtree (the focused node first) from the running UI
   * reader, without reading the whole screen; null: nothing has input focus; undefined: the
   * reader cannot answer now (the caller reads the tree). Absent on lanes without a reader.
   */
  focus?(options: { timeoutMs: number; signal: AbortSignal }): Promise<UiNode[] | null | undefined>;
  /** A mark in the phone's helper reads (helper/toast-log.ts): reads begun later are after it. */
  toastMark(): number;
  /** The mark when this call first sent input through these lanes (reads before it saw the screen before the action); undefined: none yet. */
  actionMark(): number | undefined;
  /**
   * The toasts the helper's reads begun after mark `from` reported (`seenBefore` on those the
   * reads just before it already showed); `watched`: a read begun after mark `readAfter` came back.
   */
  toastsSince(from: number, readAfter: number): { watched: boolean; toasts: SeenToast[] };
  /**
   * The phone's clipboard through the helper, which is started when it may run; null when the
   * helper cannot serve this phone now (fast lane off, not installed yet, failed, paused).
   * There is no stock lane: no stock shell command reads or sets the clipboard.
   */
  clipboard(options: { signal: AbortSignal }): Promise<PhoneClipboard | null>;
}

/** The phone's clipboard as a program on the phone serves it (helper/helper-clipboard.ts, or scrcpy-server). */
export interface PhoneClipboard {
  /** Which program serves it. */
  lane: Lane;
  /** It may read the clipboard whatever app is in front (scrcpy-server: an empty read is an empty clipboard). */
  readsEveryApp: boolean;
  /**
   * The clipboard's text; "" when it is empty, and also when Android 10+ let the helper read
   * nothing (only the app in front and the keyboard may read it), which the helper cannot tell apart.
   */
  read(options: { timeoutMs: number; signal: AbortSignal }): Promise<string>;
  /** Puts plain text on the clipboard (any Unicode). */
  write(text: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<void>;
}

/** One step of android_batch, as the safety gate sees it before the step runs. */
export interface BatchStep {
  /** 0-based position in the batch. */
  index: number;
  toolId: string;
  args: Record<string, unknown>;
}

export interface ToolServices {
  storeFile: (input: {
    data: Buffer;
    mimeType: string;
    filename: string;
    kind: 'screenshot' | 'recording' | 'file';
  }) => Promise<StoredFileInfo>;
  /** The stored file behind a ref, freshly signed, when it is still cached. */
  findUnchangedRef: (fileRef: string) => StoredFileInfo | undefined;
  uploadedFile: (fileRef: string) => { path: string; filename: string; byteSize: number };
  unicodeIme: () => Promise<boolean>;
  /** The name this phone's launcher shows for a package ("Notes"), or null when the phone did not say (app-labels.ts). */
  appLabel: (pkg: string) => Promise<string | null>;
  /** Every app name this phone gave, by package (empty when it did not say). */
  appLabels: () => Promise<ReadonlyMap<string, string>>;
  /**
   * The value of a lab secret, for typing it on this call's phone now (the only way to one;
   * throws `secret_not_found` / `secret_out_of_scope`). It goes to the phone and nowhere else.
   */
  secretText: (name: string) => string;
  /** The call's phone's pictures of its screen (screen/screen-source.ts: stream or screencap, one encoder). */
  screen: ScreenSource;
  /** Log lines with the lab's secrets, this lease's typed texts and secret-shaped values replaced (log-redaction.ts). */
  redactLog: (lines: readonly string[]) => string[];
  /**
   * When the last take-over the agent could not watch ended on this phone (ms), or null: the
   * phone's log is read from there at the earliest (takeover/takeover.ts).
   */
  logHiddenUntil: () => number | null;
  /** Per channel: the last screenshot handed out (so an unchanged screen answers `unchanged`). */
  lastCaptures: Map<string, { key: string; outputKey: string; fileRef: string }>;
  /** Asks the person at the computer to take this call's phone over (takeover/person-asks.ts); absent: nobody to ask. */
  askPerson?: PersonAskService;
}

/** What a tool asking the person at the computer needs, bound to its call's phone, channel and cancel. */
export interface PersonAskService {
  /** The longest an ask may wait unanswered: the bridge's approval timeout (it may change at runtime). */
  maxTimeoutMs(): number;
  /** Waits until the person hands the phone back; rejects with person_declined, approval_timeout, ask_pending or canceled. */
  ask(input: {
    reason: string;
    timeoutMs: number;
  }): Promise<{ note: string | undefined; heldMs: number; waitedMs: number }>;
}

/** A stored file as a tool result hands it to xAgent (the wire contract's shape). */
export type StoredFileInfo = DeliveredFile;

/** Every tool the bridge offers (main/contract/tools.ts, with its words); each is defined once, in control-tools.ts, observation-tools.ts, phone-state-tools.ts or person-tools.ts. */
export type { ToolId } from '../../contract/tools';

/**
 * What the rest of the bridge knows about a tool, declared on its definition and nowhere
 * else: the safety policy, redaction and the audit, the screen-lock guard, the Descriptor's
 * marks, the display a call runs on and the phone view's timeline all read these instead of
 * naming tools.
 */
export interface ToolFacts {
  /**
   * How the safety policy judges a call (safety/policy-engine.ts): `point` (a tap or long press
   * on a target), `type` (typed text into a field), `key` (a key press; escape keys need no
   * screen read), `launch`, `stop`, `url`, `install`, `push`, `screen` (acts on the whole
   * screen), `batch` (its steps are other tools' calls, each judged by its own facts),
   * `clipboard_read`, `clipboard_write`, `grant` and `revoke` (an app's runtime permission),
   * `clear_data` (an app's data); none of these five reads the screen. `none` (observation).
   */
  policy:
    | 'point'
    | 'type'
    | 'key'
    | 'launch'
    | 'stop'
    | 'url'
    | 'install'
    | 'push'
    | 'screen'
    | 'batch'
    | 'clipboard_read'
    | 'clipboard_write'
    | 'grant'
    | 'revoke'
    | 'clear_data'
    | 'none';
  /** The argument holding text typed on the phone: redacted, digested in the audit, secret in a password field. */
  typedTextArg?: string;
  /**
   * The argument naming a lab secret typed instead of text (tools/secret-text.ts): checked at
   * the edge, shown by name wherever arguments are shown, typed as into a password field.
   */
  secretArg?: string;
  /** Injects input into the screen in front: refused on a locked screen, marked when input is blocked. */
  screenInput?: boolean;
  /** Reads the UI tree: the channel remembers it for `index` selectors; marked when the tree is unreadable. */
  readsTree?: boolean;
  /**
   * Shows the agent what a person does on the phone (its screen, its tree, what apps log of
   * their typing): refused with `human_in_control` while a person holds the phone, unless they
   * let the agent watch (takeover/takeover.ts).
   */
  seesScreen?: boolean;
  /** Acts on the phone's display in use (a foldable's inner or outer panel, a cast display). */
  usesDisplay?: boolean;
  /** How the phone view's timeline draws the call on its screenshot. */
  timeline?: 'tap' | 'long_press' | 'swipe' | 'batch';
}

export interface ToolDefinition<A = unknown> {
  id: ToolId;
  title: string;
  description: string;
  kind: ToolKind;
  sideEffect: boolean;
  facts: ToolFacts;
  args: z.ZodType<A>;
  output: Record<string, unknown>;
  /**
   * What can be checked without the person, before the safety gate may hold the call for one
   * (call-pipeline.ts): points on the screen, an `index` in the last tree, a secret's name and
   * scope, an uploaded file. Throws the error the tool itself would throw, so no call that
   * cannot run is ever shown for approval. Reads nothing of the phone but its cached size.
   */
  check?: (ctx: ToolContext, args: A) => Promise<void>;
  run: (ctx: ToolContext, args: A) => Promise<Record<string, unknown>>;
}

/** Helper that keeps each definition's argument type tied to its schema. */
export function defineTool<A>(definition: ToolDefinition<A>): ToolDefinition<unknown> {
  return definition as unknown as ToolDefinition<unknown>;
}

export function toCardTool(tool: ToolDefinition<unknown>): CardTool {
  const schema = z.toJSONSchema(tool.args, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  const inputSchema: JsonObjectSchema = {
    ...schema,
    type: 'object',
    properties: (schema.properties as Record<string, unknown> | undefined) ?? {},
    required: (schema.required as string[] | undefined) ?? [],
  };
  return {
    tool_id: tool.id,
    title: tool.title,
    description: tool.description,
    input_schema: inputSchema,
    output_schema: tool.output,
  };
}

// ---- shared argument pieces ------------------------------------------------------------------

export const coordinate = z.number().int().min(0).max(100_000);

export const packageName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'a package name like com.example.app')
  .max(255)
  .describe('Android package name, e.g. com.example.notes.');

export const elementSelector = z
  .strictObject({
    text: z.string().min(1).max(500).optional().describe('Exact visible text (case-sensitive).'),
    text_contains: z.string().min(1).max(500).optional().describe('Substring of the visible text (case-insensitive).'),
    resource_id: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe('Android resource id, e.g. com.example:id/ok or just ok.'),
    content_desc: z.string().min(1).max(500).optional().describe('Accessibility label (content-desc), exact.'),
    index: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .optional()
      .describe('Element number from the last android_ui_tree or annotated screenshot.'),
  })
  .refine((s) => Object.values(s).some((v) => v !== undefined), {
    message: 'give at least one of text, text_contains, resource_id, content_desc, index',
  })
  .describe('Which element to act on; every given field must match.');

export type ElementSelectorArgs = z.infer<typeof elementSelector>;

export const elementRef = z
  .string()
  .max(20)
  .regex(REF_PATTERN, 'a ref as android_ui_tree lists it, e.g. @kq12')
  .describe(
    'An element ref from the last android_ui_tree or annotated screenshot (e.g. @kq12); refused as ref_stale once the screen may have changed.',
  );

export const observeFlag = z
  .boolean()
  .optional()
  .describe(
    'When true, the result also carries the compact UI tree after the action, whether the screen changed, and the toasts the action brought (with the fast lane).',
  );

/**
 * `crashes`, on any tool's result: app crashes and ANRs the phone's log showed since the
 * previous call's result (tools/lease-log-capture.ts).
 */
export const CRASHES_PROPERTY = {
  crashes: {
    type: 'array',
    description:
      'App crashes and ANRs (app not responding) the phone logged during this call or since the previous result: the package, crash or anr, when (phone time, MM-DD HH:MM:SS.mmm) and the first lines of the trace or report. One that came after this result is in the next.',
    items: {
      type: 'object',
      required: ['package', 'kind', 'at', 'first_lines'],
      properties: {
        package: { type: 'string' },
        kind: { enum: ['crash', 'anr'] },
        at: { type: 'string' },
        pid: { type: 'integer' },
        first_lines: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

/** The output schema control tools declare: a status word, and what each tool adds. */
export const CONTROL_RESULT = { type: 'object', properties: { status: { type: 'string' }, ...CRASHES_PROPERTY } };

/**
 * The same for control tools that act on the screen or the app in front, whose results also
 * say which toasts their action brought (tools/toast-window.ts).
 */
export const SCREEN_CONTROL_RESULT = {
  type: 'object',
  properties: {
    ...CONTROL_RESULT.properties,
    toasts: {
      type: 'array',
      description:
        'With observe: the toasts (short pop-up messages) the screen read after the action saw (fast lane only).',
      items: {
        type: 'object',
        properties: {
          text: { type: 'string' },
          at: {
            type: 'string',
            description: 'When the read that first saw it began (ISO 8601); the toast came at most 3.5 s before.',
          },
          seen_before: {
            type: 'boolean',
            description:
              'true: the screen showed this text already before the action; it may be that earlier toast (the phone does not say when a toast came).',
          },
        },
      },
    },
    toasts_watched: {
      type: 'boolean',
      description:
        'With observe. false: toasts could not be watched for this call (toasts_note says why); none listed does not mean none appeared.',
    },
    toasts_note: { type: 'string' },
  },
};
