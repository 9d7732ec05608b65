/**
 * Admin route of take over and hand back (takeover/takeover.ts): the person at the computer
 * takes a phone from the agent, and hands it back with an optional note.
 */
import type { AdminTakenOver } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { EventHub } from '../events/event-hub';
import { takenOverView, type Takeover } from '../takeover/takeover';
import { DECLINE_REASON_MAX_CHARS, type PersonAsks } from '../takeover/person-asks';
import { parsePersonInput, type PersonInput } from '../takeover/person-input';
import type { AdminRouter } from './admin-router';

export interface TakeoverRouteDeps {
  takeover: Pick<Takeover, 'take' | 'handBack' | 'state'>;
  /** The agent's asks to the person (takeover/person-asks.ts). */
  asks: Pick<PersonAsks, 'decline'>;
  /** Runs the person's own input on a phone they hold (takeover/person-input.ts). */
  personInput: (deviceId: string, input: PersonInput) => Promise<void>;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

/** A hand-back note is a few words for the agent, not a document. */
const NOTE_MAX_CHARS = 2000;

export function registerTakeoverRoutes(router: AdminRouter, deps: TakeoverRouteDeps): void {
  router.add(
    'POST /admin/api/devices/:device_id/takeover',
    async ({ params, request }): Promise<{ status: 'taken' | 'handed_back'; taken_over: AdminTakenOver | null }> => {
      const device = deps.registry.get(params.device_id);
      if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
      const body = await request();
      const note: unknown = body.note;
      if (note !== undefined && (typeof note !== 'string' || note.length > NOTE_MAX_CHARS))
        throw new BridgeError('invalid_arguments', `note must be text of at most ${NOTE_MAX_CHARS} characters`);
      const watch: unknown = body.agent_may_watch;
      if (watch !== undefined && typeof watch !== 'boolean')
        throw new BridgeError('invalid_arguments', 'agent_may_watch must be true or false');
      if (body.action === 'take') {
        // Unless the person says so, the agent sees nothing of the screen while they hold it.
        const state = deps.takeover.take(params.device_id, 'person at the computer', { agentMayWatch: watch === true });
        deps.hub.publish('state');
        return { status: 'taken', taken_over: takenOverView(state) };
      }
      if (body.action === 'hand_back') {
        deps.takeover.handBack(params.device_id, note);
        deps.hub.publish('state');
        return { status: 'handed_back', taken_over: null };
      }
      throw new BridgeError('invalid_arguments', 'action must be take or hand_back');
    },
  );

  router.add(
    'POST /admin/api/devices/:device_id/ask/decline',
    async ({ params, request }): Promise<{ status: 'declined' }> => {
      const body = await request();
      const reason: unknown = body.reason;
      if (reason !== undefined && (typeof reason !== 'string' || reason.length > DECLINE_REASON_MAX_CHARS))
        throw new BridgeError(
          'invalid_arguments',
          `reason must be text of at most ${DECLINE_REASON_MAX_CHARS} characters`,
        );
      const trimmed = typeof reason === 'string' ? reason.trim() : '';
      deps.asks.decline(params.device_id, trimmed || undefined);
      deps.hub.publish('state');
      return { status: 'declined' };
    },
  );

  router.add('POST /admin/api/devices/:device_id/input', async ({ params, request }): Promise<{ status: 'ok' }> => {
    const device = deps.registry.get(params.device_id);
    if (!device || device.state !== 'device') throw new BridgeError('device_not_found', 'no such phone online');
    const body: Record<string, unknown> = { ...(await request()) };
    // The route's own parameter is not part of the input.
    delete body.device_id;
    await deps.personInput(params.device_id, parsePersonInput(body));
    return { status: 'ok' };
  });
}
