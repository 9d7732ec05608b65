/**
 * The subset of appium-uiautomator2-server's HTTP API the bridge uses, with the real
 * server's JSON: every answer is `{ value, sessionId }` (Gson with nulls kept; "None" where
 * no session applies), errors are `{ value: { error, message, stacktrace } }` with the
 * exception's HTTP status (404 unknown command / invalid session id / no such element, 400
 * invalid argument, 500 otherwise). Routes and semantics follow the server's AppiumServlet
 * and handlers (Status, NewSession, DeleteSession, GetSessions, Source, W3CActions,
 * PressKeyCode, SendKeysToElement on the focused element, Update/GetSettings,
 * CaptureScreenshot, Get/SetClipboard), read from its public source and written anew here. A legacy `/wd/hub`
 * prefix is stripped as ServerHandler does. Effects go through the same screen model as the
 * sim's `input` command, so both lanes change the screen the same way.
 */
import { randomUUID } from 'node:crypto';
import type { FrameRenderer } from '../screen/frame-renderer';
import type { InputDispatcher } from '../screen/input-dispatcher';
import { KEYCODE } from '../screen/keycodes';
import type { ScreenMachine } from '../screen/screen-machine';
import { findFieldNode } from '../screen/window-builder';
import type { HttpReply, HttpRequest } from './http-wire';
import { SimNotificationListener } from './notification-listener';
import { pageSourceXml } from './page-source';
import { ActionsError, parseActions, type Gesture } from './w3c-actions';
import { UIA2_SERVER_PKG } from './uia2-ids';

export const NO_SESSION_ID = 'None';

/** What the server reads and drives on the phone. */
export interface Uia2Phone {
  readonly screen: ScreenMachine;
  readonly input: InputDispatcher;
  readonly frames: FrameRenderer;
  display(): { width: number; height: number; rotation: number };
  /** Touch slop in pixels (8 dp), to tell a tap from a swipe. */
  slopPx(): number;
  /** The phone's clipboard: what an app may read of it (Android 10+ limit the readers), and setting it. */
  readonly clipboard: { readAs(pkg: string): string | undefined; set(text: string, label: string): void };
}

/** How the runtime shapes what the server does (faults and timing). */
export interface Uia2Hooks {
  /** Waits the profile's time for this kind of work; false when the process died meanwhile. */
  spend(what: 'tap' | 'source' | 'keys' | 'call' | 'screenshot', extraMs?: number): Promise<boolean>;
  /** The source to serve: `fresh`, or an older one (helper-stale-tree); `screenKey` names the screen. */
  staleSource(fresh: string, screenKey: string): string;
  /** Levels kept below the window root (helper-sparse-tree), or undefined for all. */
  sparseDepth(): number | undefined;
  /** An action was performed: recorded in the phone's argv log. */
  performed(argv: string[]): void;
}

export interface BuildInfo {
  versionName: string;
  versionCode: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class ServerError extends Error {
  constructor(
    readonly error: string,
    readonly status: number,
    message: string,
    readonly javaClass: string,
  ) {
    super(message);
  }
}

const unknownCommand = (): ServerError =>
  new ServerError(
    'unknown command',
    404,
    'The requested resource could not be found, or a request was received using an HTTP method that is not supported by the mapped resource',
    'io.appium.uiautomator2.common.exceptions.UnknownCommandException',
  );
const invalidArgument = (message: string): ServerError =>
  new ServerError(
    'invalid argument',
    400,
    message,
    'io.appium.uiautomator2.common.exceptions.InvalidArgumentException',
  );
const noSuchElement = (): ServerError =>
  new ServerError(
    'no such element',
    404,
    'An element could not be located on the page using the given search parameters',
    'io.appium.uiautomator2.common.exceptions.ElementNotFoundException',
  );

/** A Java-looking stack trace for the error body, as Log.getStackTraceString gives. */
function stacktrace(error: ServerError, handler: string | undefined): string {
  if (handler === undefined) {
    // No handler matched: ServerHandler renders UnknownCommandException itself.
    return [
      `${error.javaClass}: ${error.message}`,
      '\tat io.appium.uiautomator2.http.ServerHandler.channelRead(ServerHandler.java:72)',
      '\tat io.netty.channel.AbstractChannelHandlerContext.invokeChannelRead(AbstractChannelHandlerContext.java:444)',
    ].join('\n');
  }
  return [
    `${error.javaClass}: ${error.message}`,
    `\tat io.appium.uiautomator2.handler.${handler}.safeHandle(${handler}.java:48)`,
    '\tat io.appium.uiautomator2.handler.request.SafeRequestHandler.handle(SafeRequestHandler.java:59)',
    '\tat io.appium.uiautomator2.server.AppiumServlet.handleRequest(AppiumServlet.java:267)',
    '\tat io.appium.uiautomator2.server.AppiumServlet.handleHttpRequest(AppiumServlet.java:261)',
    '\tat io.appium.uiautomator2.http.ServerHandler.channelRead(ServerHandler.java:77)',
  ].join('\n');
}

function reply(status: number, value: Json, sessionId: string | null): HttpReply {
  return { status, body: JSON.stringify({ value, sessionId }) };
}

/** Current value of every setting GetSettings lists, with the server's defaults. */
function defaultSettings(): Map<string, Json> {
  return new Map<string, Json>([
    ['actionAcknowledgmentTimeout', 3000],
    ['allowInvisibleElements', false],
    ['alwaysTraversableViewClasses', ''],
    ['ignoreUnimportantViews', false],
    ['currentDisplayId', 0],
    ['deferAccessibilityCacheReset', false],
    ['disableIdLocatorAutocompletion', false],
    ['elementResponseAttributes', 'name,text'],
    ['enableMultiWindows', false],
    ['enableNotificationListener', true],
    ['enableTopmostWindowFromActivePackage', false],
    ['enforceXPath1', false],
    ['includeA11yActionsInPageSource', false],
    ['includeExtraRenderingInfo', false],
    ['includeExtrasInPageSource', false],
    ['keyInjectionDelay', 0],
    ['limitXPathContextScope', true],
    ['mapTestTagToResourceId', false],
    ['mjpegBilinearFiltering', false],
    ['mjpegScalingFactor', 50],
    ['mjpegServerFramerate', 10],
    ['mjpegServerPort', 7810],
    ['mjpegServerScreenshotQuality', 50],
    ['normalizeTagNames', false],
    ['scrollAcknowledgmentTimeout', 200],
    ['serverPort', 6790],
    ['shouldUseCompactResponses', true],
    ['shutdownOnPowerDisconnect', true],
    ['simpleBoundsCalculation', false],
    ['snapshotMaxDepth', 70],
    ['trackScrollEvents', true],
    ['useResourcesForOrientationDetection', false],
    ['waitForIdleTimeout', 10000],
    ['waitForSelectorTimeout', 10000],
    ['wakeLockTimeout', 86_400_000],
  ]);
}

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: string[];
  handler: string;
  /** NoSessionCommandHandler: answers without a session. */
  noSession?: boolean;
}

const ROUTES: Route[] = [
  { method: 'GET', pattern: ['status'], handler: 'Status', noSession: true },
  { method: 'POST', pattern: ['session'], handler: 'NewSession', noSession: true },
  { method: 'GET', pattern: ['sessions'], handler: 'GetSessions', noSession: true },
  { method: 'DELETE', pattern: ['session', ':sessionId'], handler: 'DeleteSession' },
  { method: 'GET', pattern: ['session', ':sessionId'], handler: 'GetSessionDetails' },
  { method: 'GET', pattern: ['session', ':sessionId', 'source'], handler: 'Source' },
  { method: 'POST', pattern: ['session', ':sessionId', 'actions'], handler: 'W3CActions' },
  { method: 'POST', pattern: ['session', ':sessionId', 'appium', 'device', 'press_keycode'], handler: 'PressKeyCode' },
  { method: 'POST', pattern: ['session', ':sessionId', 'keys'], handler: 'SendKeysToElement' },
  { method: 'POST', pattern: ['session', ':sessionId', 'appium', 'settings'], handler: 'UpdateSettings' },
  { method: 'GET', pattern: ['session', ':sessionId', 'appium', 'settings'], handler: 'GetSettings' },
  { method: 'GET', pattern: ['session', ':sessionId', 'screenshot'], handler: 'CaptureScreenshot' },
  { method: 'POST', pattern: ['session', ':sessionId', 'appium', 'device', 'get_clipboard'], handler: 'GetClipboard' },
  { method: 'POST', pattern: ['session', ':sessionId', 'appium', 'device', 'set_clipboard'], handler: 'SetClipboard' },
];

/** The route and session id a request maps to; the server's matcher compares path sections. */
export function matchRoute(method: string, path: string): { route: Route; sessionId: string | undefined } | undefined {
  const sections = path
    .replace(/^\/wd\/hub(?=\/|$)/, '')
    .split('/')
    .slice(1);
  for (const route of ROUTES) {
    if (route.method !== method || route.pattern.length !== sections.length) continue;
    if (!route.pattern.every((p, i) => p.startsWith(':') || p === sections[i])) continue;
    const at = route.pattern.indexOf(':sessionId');
    return { route, sessionId: at >= 0 ? decodeURIComponent(sections[at] ?? '') : undefined };
  }
  return undefined;
}

/** The request path as the argv log shows it: without `/wd/hub` and `/session/<id>`. */
export function shortPath(path: string): string {
  const bare = path.replace(/^\/wd\/hub(?=\/|$)/, '');
  const m = /^\/session\/[^/]+(\/.*)?$/.exec(bare);
  return m ? (m[1] ?? '/session') : bare;
}

function parseJson(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw invalidArgument(
      `com.google.gson.JsonSyntaxException: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidArgument('The request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A String field of a Gson model: a JSON string (a number or boolean becomes its text), absent or null undefined; else Gson fails. */
function gsonString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalidArgument(
    `com.google.gson.JsonSyntaxException: java.lang.IllegalStateException: Expected a string but was ${Array.isArray(value) ? 'BEGIN_ARRAY' : 'BEGIN_OBJECT'} at path $.${name}`,
  );
}

function gestureArgv(g: Gesture): string[] {
  switch (g.kind) {
    case 'tap':
      return ['tap', `${g.x},${g.y}`];
    case 'long-press':
      return ['long-press', `${g.x},${g.y}`, `${g.durationMs}ms`];
    default:
      return [g.kind, `${g.x},${g.y}`, `${g.x2},${g.y2}`, `${g.durationMs}ms`];
  }
}

export class Uia2Server {
  private session: { id: string; capabilities: Record<string, Json> } | undefined;
  private readonly settings = defaultSettings();
  /** Set once DELETE /session was answered: the instrumentation then ends on its own. */
  private stopRequestedValue = false;
  /** Hears toasts while a session is open (NotificationListener). */
  private readonly notifications: SimNotificationListener;

  constructor(
    private readonly phone: Uia2Phone,
    private readonly build: BuildInfo,
  ) {
    this.notifications = new SimNotificationListener(phone.screen.toasts);
  }

  get stopRequested(): boolean {
    return this.stopRequestedValue;
  }

  /** A setting's current value (as POST /appium/settings left it), or undefined if unknown. */
  setting(name: string): Json | undefined {
    return this.settings.get(name);
  }

  /** Answers one request; undefined when the process died while handling it. */
  async handle(request: HttpRequest, hooks: Uia2Hooks): Promise<HttpReply | undefined> {
    const match = matchRoute(request.method, request.path);
    if (!match) {
      const error = unknownCommand();
      return reply(
        error.status,
        { error: error.error, message: error.message, stacktrace: stacktrace(error, undefined) },
        null,
      );
    }
    const { route, sessionId } = match;
    const echoId = sessionId ?? NO_SESSION_ID;
    try {
      if (!route.noSession && (sessionId === undefined || this.session?.id !== sessionId)) {
        throw new ServerError(
          'invalid session id',
          404,
          `The session identified by ${sessionId ?? 'null'} is not known`,
          'io.appium.uiautomator2.common.exceptions.NoSuchDriverException',
        );
      }
      const value = await this.dispatch(route.handler, request, hooks);
      if (value === undefined) return undefined;
      const id = route.handler === 'NewSession' ? (this.session?.id ?? NO_SESSION_ID) : echoId;
      return reply(200, value.json, id);
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      return reply(
        error.status,
        { error: error.error, message: error.message, stacktrace: stacktrace(error, route.handler) },
        sessionId ?? null,
      );
    }
  }

  /** The handler's value ({json}); undefined when the process died meanwhile. */
  private async dispatch(handler: string, request: HttpRequest, hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    const done = (json: Json): { json: Json } => ({ json });
    switch (handler) {
      case 'Status':
        if (!(await hooks.spend('call'))) return undefined;
        return done({
          ready: true,
          message: 'UiAutomator2 Server is ready to accept commands',
          build: { version: this.build.versionName, versionCode: this.build.versionCode },
        });
      case 'NewSession': {
        const body = parseJson(request.body);
        const caps = body.capabilities;
        if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
          throw new ServerError(
            'session not created',
            500,
            "io.appium.uiautomator2.common.exceptions.InvalidArgumentException: 'capabilities' are mandatory for session creation",
            'io.appium.uiautomator2.common.exceptions.SessionNotCreatedException',
          );
        }
        const c = caps as Record<string, Json>;
        const always =
          typeof c.alwaysMatch === 'object' && c.alwaysMatch !== null && !Array.isArray(c.alwaysMatch)
            ? c.alwaysMatch
            : {};
        const first =
          Array.isArray(c.firstMatch) &&
          typeof c.firstMatch[0] === 'object' &&
          c.firstMatch[0] !== null &&
          !Array.isArray(c.firstMatch[0])
            ? c.firstMatch[0]
            : {};
        // Settings.resetForNewSession(): a new session starts from the defaults.
        for (const [k, v] of defaultSettings()) this.settings.set(k, v);
        this.session = { id: randomUUID(), capabilities: { ...always, ...first } };
        this.notifications.start();
        if (!(await hooks.spend('call'))) return undefined;
        return done({ sessionId: this.session.id, capabilities: c });
      }
      case 'GetSessions':
        return done(
          this.session
            ? [{ sessionId: this.session.id, capabilities: this.session.capabilities, id: this.session.id }]
            : [],
        );
      case 'GetSessionDetails':
        return done(this.session ? { ...this.session.capabilities } : null);
      case 'DeleteSession':
        this.session = undefined;
        this.notifications.stop();
        // DeleteSession posts ServerInstrumentation.stop() 15 ms after answering.
        this.stopRequestedValue = true;
        return done(null);
      case 'Source':
        return this.source(hooks);
      case 'W3CActions':
        return this.actions(request, hooks);
      case 'PressKeyCode': {
        const body = parseJson(request.body);
        const keycode = body.keycode;
        if (typeof keycode !== 'number' || !Number.isInteger(keycode))
          throw invalidArgument("'keycode' is mandatory and must be an integer");
        if (!(await hooks.spend('call'))) return undefined;
        this.phone.input.key(keycode);
        hooks.performed(['press_keycode', String(keycode)]);
        return done(null);
      }
      case 'SendKeysToElement':
        return this.keys(request, hooks);
      case 'UpdateSettings': {
        const body = parseJson(request.body);
        const settings = body.settings;
        if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
          throw invalidArgument("'settings' are mandatory and must be an object");
        // Unknown settings are skipped, as UpdateSettings logs and continues.
        for (const [k, v] of Object.entries(settings as Record<string, Json>))
          if (this.settings.has(k)) this.settings.set(k, v);
        // EnableNotificationListener.apply starts or stops the toast listener.
        const listen = (settings as Record<string, Json>).enableNotificationListener;
        if (listen === true) this.notifications.start();
        else if (listen === false) this.notifications.stop();
        return done(null);
      }
      case 'GetSettings':
        // EnableNotificationListener.getValue is whether the listener listens.
        return done({
          ...Object.fromEntries(this.settings),
          enableNotificationListener: this.notifications.isListening(),
        });
      case 'CaptureScreenshot': {
        const { width, height } = this.phone.display();
        if (!(await hooks.spend('screenshot', Math.round((310 * width * height) / 1e6)))) return undefined;
        const png = await this.phone.frames.png();
        return done(png.toString('base64'));
      }
      case 'GetClipboard':
        return this.getClipboard(request, hooks);
      case 'SetClipboard':
        return this.setClipboard(request, hooks);
      default:
        throw unknownCommand();
    }
  }

  /**
   * GetClipboard: the primary clip's text (coerceToText) as Base64.NO_WRAP of UTF-8, "" with no
   * clip. It reads as the server's own app, which Android 10+ do not let read (not in front,
   * not the keyboard): there the answer is "" whatever the clipboard holds.
   */
  private async getClipboard(request: HttpRequest, hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    const contentType = gsonString(parseJson(request.body), 'contentType');
    // ClipDataType.valueOf(contentType.toUpperCase()) throws before the variable changes, so the message names PLAINTEXT.
    if (contentType !== undefined && contentType.toUpperCase() !== 'PLAINTEXT') {
      throw invalidArgument("Only '[PLAINTEXT]' content types are supported. 'PLAINTEXT' is given instead");
    }
    if (!(await hooks.spend('call'))) return undefined;
    const text = this.phone.clipboard.readAs(UIA2_SERVER_PKG) ?? '';
    return { json: Buffer.from(text, 'utf8').toString('base64') };
  }

  /** SetClipboard: `content` (required) is Base64 of UTF-8; the label defaults to the text's first 10 characters. */
  private async setClipboard(request: HttpRequest, hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    const body = parseJson(request.body);
    const [content, contentType, givenLabel] = [
      gsonString(body, 'content'),
      gsonString(body, 'contentType'),
      gsonString(body, 'label'),
    ];
    if (content === undefined) {
      throw invalidArgument(
        "java.lang.IllegalArgumentException: SetClipboardModel: The mandatory field 'content' is not present in JSON",
      );
    }
    // android.util.Base64 skips characters outside the alphabet, as Buffer does.
    const text = Buffer.from(content, 'base64').toString('utf8');
    if (contentType !== undefined && contentType.toUpperCase() !== 'PLAINTEXT') {
      throw invalidArgument(`Only '[PLAINTEXT]' content types are supported. '${contentType}' is given instead`);
    }
    if (!(await hooks.spend('call'))) return undefined;
    const label = givenLabel ?? text.slice(0, 10);
    this.phone.clipboard.set(text, label);
    return { json: null };
  }

  private async source(hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    // toStream reads the listener's toasts as the snapshot begins, then walks the windows.
    const toasts = this.notifications.toastMessage();
    if (!(await hooks.spend('source'))) return undefined;
    const display = this.phone.display();
    const maxDepthSetting = this.settings.get('snapshotMaxDepth');
    const sparse = hooks.sparseDepth();
    const limits = [
      typeof maxDepthSetting === 'number' ? maxDepthSetting : 70,
      ...(sparse === undefined ? [] : [sparse]),
    ];
    const window = this.phone.screen.window();
    const fresh = pageSourceXml(window, {
      ...display,
      windowId: 1000 + window.taskId,
      maxDepth: Math.min(...limits),
      toasts,
    });
    return { json: hooks.staleSource(fresh, `${window.pkg}/${window.activity}/${window.screen}`) };
  }

  private async actions(request: HttpRequest, hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    let parsed;
    try {
      parsed = parseActions(parseJson(request.body), this.phone.slopPx());
    } catch (error) {
      if (error instanceof ActionsError) throw invalidArgument(error.message);
      throw error;
    }
    if (!(await hooks.spend('tap', parsed.durationMs))) return undefined;
    const argv: string[] = [];
    for (const g of parsed.gestures) {
      if (g.kind === 'tap') this.phone.input.tap(g.x, g.y);
      else if (g.kind === 'long-press') this.phone.input.longPress(g.x, g.y);
      else if (g.kind === 'swipe') this.phone.input.swipe(g.x, g.y, g.x2, g.y2, g.durationMs);
      else this.phone.input.dragAndDrop(g.x, g.y, g.x2, g.y2);
      argv.push(...gestureArgv(g));
    }
    for (const k of parsed.keys) {
      if (k.kind === 'char') this.phone.input.commitText(k.text);
      else this.phone.input.key(k.keycode);
      argv.push(k.kind === 'char' ? `key ${k.text}` : `keycode ${k.keycode}`);
    }
    hooks.performed(argv);
    return { json: null };
  }

  private async keys(request: HttpRequest, hooks: Uia2Hooks): Promise<{ json: Json } | undefined> {
    const body = parseJson(request.body);
    if (typeof body.text !== 'string') throw invalidArgument("'text' is mandatory and must be a string");
    const replace = body.replace === true;
    const state = this.phone.screen;
    const task = state.isRecents() ? undefined : state.frontTask();
    const focused = task?.focused;
    // findElement(focused(true)): the focused field must be on the screen shown now.
    if (!task || focused === undefined || !findFieldNode(state.window().root, focused)) throw noSuchElement();
    if (!(await hooks.spend('keys'))) return undefined;
    let text = body.text;
    const pressEnter = text.endsWith('\n');
    if (pressEnter) text = text.slice(0, -1);
    // replace=false appends to what the field holds (a hint is not text), as setText does.
    const current = state.fieldOf(task, focused).text;
    const next = replace ? text : current + text;
    this.phone.input.clearFocusedText();
    if (next !== '') this.phone.input.commitText(next);
    if (pressEnter) this.phone.input.key(KEYCODE.ENTER);
    hooks.performed(['keys', body.text, ...(replace ? ['replace'] : [])]);
    return { json: null };
  }
}
