/**
 * The phone view's admin routes: the timeline of a phone's recent calls, each call's picture,
 * and live frames (main/contract/admin-api.ts). Stop, approvals, leases and the phone check
 * are the existing routes.
 */
import { BridgeError } from '../errors';
import type { AdminLiveFrame, AdminPhoneActions } from '../../contract/admin-api';
import type { ActionTimeline } from '../phone-view/action-timeline';
import { MASTER_MAX_SIDE, MIN_MAX_SIDE, type LiveFrames } from '../phone-view/live-frames';
import type { AdminRouter } from './admin-router';

export interface PhoneViewRouteDeps {
  known(deviceId: string): boolean;
  timeline: Pick<ActionTimeline, 'list' | 'screen' | 'capacity'>;
  frames: Pick<LiveFrames, 'frame' | 'scaled'>;
}

/** `max_side` from the query (text) or IPC (a number). */
function maxSideOf(raw: unknown): number {
  if (raw === undefined) return MASTER_MAX_SIDE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MIN_MAX_SIDE || n > 1280)
    throw new BridgeError('invalid_arguments', `max_side must be an integer from ${MIN_MAX_SIDE} to 1280`);
  return n;
}

export function registerPhoneViewRoutes(router: AdminRouter, deps: PhoneViewRouteDeps): void {
  const deviceOf = (params: { device_id: string }): string => {
    if (!deps.known(params.device_id)) throw new BridgeError('device_not_found', 'no such phone');
    return params.device_id;
  };

  router.add('GET /admin/api/devices/:device_id/actions', ({ params, local }): AdminPhoneActions => {
    const deviceId = deviceOf(params);
    // Typed text in plain words goes to the person at this computer only (docs/REFERENCE.md "The phone view").
    const actions = deps.timeline.list(deviceId, { typedText: local });
    return { device_id: deviceId, capacity: deps.timeline.capacity, actions };
  });

  router.add(
    'GET /admin/api/devices/:device_id/actions/:action_id/screen',
    ({ params }) => {
      const jpeg = deps.timeline.screen(deviceOf(params), params.action_id);
      if (!jpeg)
        throw new BridgeError(
          'file_not_found',
          'no picture for that action (none was taken, or the action left the timeline)',
        );
      return new Uint8Array(jpeg);
    },
    {
      http: async ({ res }, answer) => {
        const jpeg = await answer();
        // A call's picture never changes: the browser may keep it.
        res.writeHead(200, {
          'Content-Type': 'image/jpeg',
          'Content-Length': jpeg.length,
          'Cache-Control': 'private, max-age=3600',
        });
        res.end(jpeg);
      },
    },
  );

  router.add(
    'GET /admin/api/devices/:device_id/frame',
    async ({ params, request }): Promise<AdminLiveFrame> => {
      const deviceId = deviceOf(params);
      const query = await request();
      const maxSide = maxSideOf(query.max_side);
      const after = Number(query.after ?? 0);
      const { frame, fresh } = await deps.frames.frame(deviceId, Number.isSafeInteger(after) && after > 0 ? after : 0);
      const out = await deps.frames.scaled(deviceId, frame, maxSide);
      return {
        bytes: new Uint8Array(out.jpeg),
        seq: frame.seq,
        at: frame.at,
        screen_width: frame.screenWidth,
        screen_height: frame.screenHeight,
        fresh,
        lane: frame.lane,
      };
    },
    {
      http: async ({ res }, answer) => {
        const frame = await answer();
        res.writeHead(200, {
          'Content-Type': 'image/jpeg',
          'Content-Length': frame.bytes.length,
          'Cache-Control': 'no-store',
          'X-Frame-Seq': String(frame.seq),
          'X-Frame-At': String(frame.at),
          'X-Frame-Fresh': frame.fresh ? '1' : '0',
          'X-Frame-Lane': frame.lane,
          'X-Screen-Width': String(frame.screen_width),
          'X-Screen-Height': String(frame.screen_height),
        });
        res.end(frame.bytes);
      },
    },
  );
}
