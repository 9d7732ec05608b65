/**
 * The IPC handlers' logic without electron (unit-tested with fakes): one handler per named
 * preload function. Each refuses callers that are not our window's own page before looking
 * at the arguments, accepts at most one plain argument object, and forwards to the same admin
 * operation the web console calls over HTTP. Errors travel as `{ok:false,error:{code,message}}`
 * because an exception thrown across ipcMain.handle loses its code.
 */
import type { IpcLiveFrame, IpcResult } from '../../renderer/src/api/ipc-api';
import { BridgeError, toWireError } from '../core/errors';
import { IPC_ROUTES, ipcChannel } from './ipc-routes';

export interface IpcHandlerDeps {
  /** The sender check (window-security.ts isTrustedIpcSender bound to our window). */
  isTrusted(event: unknown): boolean;
  /** An admin operation in-process (AdminRouter.call). */
  call(method: string, path: string, body: Record<string, unknown>): Promise<unknown>;
  /** JPEG bytes of a phone's screen (raw bytes: the admin route writes them itself). */
  thumbnail(deviceId: string): Promise<Buffer>;
  /** The phone view's live frame and an action's picture (raw bytes too). */
  frame?(deviceId: string, maxSide: number, after: number): Promise<IpcLiveFrame>;
  actionScreen?(deviceId: string, actionId: string): Promise<Buffer>;
  /** Told after every successful operation (the shell persists a rotated API key). */
  afterCall?(name: string): void;
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

export function createIpcHandlers(deps: IpcHandlerDeps): Map<string, IpcHandler> {
  const handlers = new Map<string, IpcHandler>();
  for (const [name, route] of Object.entries(IPC_ROUTES)) {
    handlers.set(ipcChannel(name), async (event, rawArgs) => {
      if (!deps.isTrusted(event)) return { ok: false, error: { code: 'permission_denied', message: 'unknown sender' } };
      const args = plainArgs(rawArgs);
      if (!args) return { ok: false, error: { code: 'invalid_arguments', message: 'the argument must be one plain object' } };
      try {
        if (JSON.stringify(args).length > MAX_ARGS_BYTES) return { ok: false, error: { code: 'invalid_arguments', message: 'arguments too large' } };
      } catch {
        return { ok: false, error: { code: 'invalid_arguments', message: 'arguments must be plain JSON data' } };
      }
      try {
        let value: unknown;
        if (name === 'getDeviceScreen') {
          const deviceId = typeof args.device_id === 'string' ? args.device_id : '';
          value = new Uint8Array(await deps.thumbnail(deviceId));
        } else if (name === 'getDeviceFrame') {
          const deviceId = typeof args.device_id === 'string' ? args.device_id : '';
          if (!deps.frame) throw new BridgeError('invalid_arguments', 'live frames are not available here');
          value = await deps.frame(deviceId, typeof args.max_side === 'number' ? args.max_side : 720, typeof args.after === 'number' ? args.after : 0);
        } else if (name === 'getActionScreen') {
          const deviceId = typeof args.device_id === 'string' ? args.device_id : '';
          if (!deps.actionScreen) throw new BridgeError('invalid_arguments', 'action pictures are not available here');
          value = new Uint8Array(await deps.actionScreen(deviceId, typeof args.action_id === 'string' ? args.action_id : ''));
        } else {
          const { method, path } = route(args);
          value = await deps.call(method, path, args);
          const extra = name === 'getState' ? (deps.extraWarnings?.() ?? []) : [];
          if (extra.length > 0 && typeof value === 'object' && value !== null) {
            const state = value as { warnings?: unknown };
            value = { ...state, warnings: [...(Array.isArray(state.warnings) ? (state.warnings as string[]) : []), ...extra] };
          }
        }
        deps.afterCall?.(name);
        return { ok: true, value };
      } catch (error) {
        return { ok: false, error: toWireError(error) };
      }
    });
  }
  return handlers;
}
