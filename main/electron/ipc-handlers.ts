/**
 * The IPC handlers' logic without electron (unit-tested with fakes): one handler per admin
 * operation of main/contract/admin-operations.ts, on the channel its preload function uses.
 * Each refuses callers that are not our window's own page before looking at the arguments,
 * accepts at most one plain argument object, and runs the same operation handler the web
 * console reaches over HTTP. Errors travel as `{ok:false,error:{code,message}}` because an
 * exception thrown across ipcMain.handle loses its code.
 */
import { ADMIN_OPERATION_NAMES, type AdminOperationName } from '../contract/admin-operations';
import { ipcChannel, type IpcResult } from '../contract/ipc-api';
import { toWireError } from '../core/errors';

export interface IpcHandlerDeps {
  /** The sender check (window-security.ts isTrustedIpcSender bound to our window). */
  isTrusted(event: unknown): boolean;
  /** Runs an admin operation in-process (AdminRouter.invoke): path parameters and request fields in one object. */
  invoke(name: AdminOperationName, args: Record<string, unknown>): Promise<unknown>;
  /** Told after every successful operation (the shell persists a rotated API key). */
  afterCall?(name: AdminOperationName): void;
  /** Problems only the desktop shell knows (settings, key storage), added to the state's warnings. */
  extraWarnings?(): string[];
}

export type IpcHandler = (event: unknown, rawArgs: unknown) => Promise<IpcResult<unknown>>;

/** Most an argument object may weigh once serialised (policies are the largest, a few KB). */
const MAX_ARGS_BYTES = 256 * 1024;

function plainArgs(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const proto = Object.getPrototypeOf(raw) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  return raw as Record<string, unknown>;
}

/** The state with the desktop shell's own warnings added. */
function withWarnings(value: unknown, extra: string[]): unknown {
  if (extra.length === 0 || typeof value !== 'object' || value === null) return value;
  const state = value as { warnings?: unknown };
  return { ...state, warnings: [...(Array.isArray(state.warnings) ? (state.warnings as string[]) : []), ...extra] };
}

/** One handler per operation, keyed by its IPC channel. */
export function createIpcHandlers(deps: IpcHandlerDeps): Map<string, IpcHandler> {
  const handlers = new Map<string, IpcHandler>();
  for (const name of ADMIN_OPERATION_NAMES) {
    handlers.set(ipcChannel(name), async (event, rawArgs) => {
      if (!deps.isTrusted(event)) return { ok: false, error: { code: 'permission_denied', message: 'unknown sender' } };
      const args = plainArgs(rawArgs);
      if (!args)
        return { ok: false, error: { code: 'invalid_arguments', message: 'the argument must be one plain object' } };
      try {
        if (JSON.stringify(args).length > MAX_ARGS_BYTES)
          return { ok: false, error: { code: 'invalid_arguments', message: 'arguments too large' } };
      } catch {
        return { ok: false, error: { code: 'invalid_arguments', message: 'arguments must be plain JSON data' } };
      }
      try {
        let value = await deps.invoke(name, args);
        if (name === 'getState') value = withWarnings(value, deps.extraWarnings?.() ?? []);
        deps.afterCall?.(name);
        return { ok: true, value };
      } catch (error) {
        return { ok: false, error: toWireError(error) };
      }
    });
  }
  return handlers;
}
