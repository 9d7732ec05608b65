/**
 * Data-plane handlers of auth.start / auth.status / auth.cancel / auth.logout (spec §8.7–8.14)
 * over the BindingService, and the flows the Card declares.
 */
import type { AuthFlowDeclaration } from '../protocol/card';
import type { DataPlane, UserPacketContext } from '../server/data-plane';
import {
  type AuthSession,
  type BindingService,
  DESKTOP_APPROVAL_FLOW,
  DEVICE_CLAIM_FLOW,
  REQUESTER_FIELD,
} from './binding-service';

export const AUTH_FLOWS: readonly AuthFlowDeclaration[] = [
  {
    id: DESKTOP_APPROVAL_FLOW,
    target_type: 'device',
    type: 'qr_login',
    title: 'Approve on the computer',
    description:
      'Shows a short pairing code. The person at the computer the phone is plugged into sees the same code in xAgent Device Bridge, picks the phone and approves.',
  },
  {
    id: DEVICE_CLAIM_FLOW,
    target_type: 'device',
    type: 'form',
    title: 'Claim a lab phone',
    description: 'For shared phone labs: name the phone and enter the access code the lab admin gave you.',
    fields: [
      {
        name: 'device',
        label: 'Phone',
        input_type: 'text',
        required: true,
        placeholder: 'Pixel 7, or 4F2A',
        help_text:
          'The phone as xAgent Device Bridge names it: its model when only one phone has it (“Pixel 7”), the last 4 characters of its label (“4F2A”), or the whole label. Case and the “···” do not matter.',
      },
      {
        name: 'access_code',
        label: 'Access code',
        input_type: 'password',
        required: true,
        secret: true,
        help_text: 'Set by the lab admin in xAgent Device Bridge.',
      },
      {
        name: REQUESTER_FIELD,
        label: 'Your name',
        input_type: 'text',
        required: false,
        placeholder: 'Ada, test team',
        help_text: 'Shown to the lab admin with the binding, so they know who holds the phone.',
      },
    ],
  },
];

function sessionPayload(
  ctx: UserPacketContext,
  service: BindingService,
  session: AuthSession,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    connector_channel_id: ctx.channel.id,
    flow_id: session.flowId,
    auth_session_id: session.authSessionId,
    status: session.status === 'canceled' ? 'failed' : session.status,
    expires_at: session.expiresAt,
    poll_interval_millis: 1000,
    message: session.message,
  };
  if (session.status === 'pending') payload.qr_code_text = session.code;
  // A claim by words that fit several phones or none: the labels, so the agent can ask again.
  if (session.candidates) payload.candidates = session.candidates;
  // A claim waiting for a busy phone: its place in line and a guess at the wait (claim-line.ts).
  const line = service.linePlace(session);
  if (line) payload.line = line;
  if (session.status === 'authenticated') {
    const descriptor = service.describe(ctx.channel);
    service.noteDescribed(ctx.channel.id, descriptor);
    payload.connection_descriptor = descriptor;
  }
  return payload;
}

export function registerAuthHandlers(plane: DataPlane, service: BindingService): void {
  plane.on('auth.start', (ctx) => {
    const flowId = ctx.payload.flow_id;
    if (flowId !== DESKTOP_APPROVAL_FLOW && flowId !== DEVICE_CLAIM_FLOW) {
      ctx.connection.reply(ctx.packet, 'auth.start.ack', {
        error: { code: 'auth_flow_unknown', message: 'flow_id must be one of the Card’s auth_flows' },
      });
      return;
    }
    if (service.activeBinding(ctx.channel.id)) {
      const descriptor = service.describe(ctx.channel);
      service.noteDescribed(ctx.channel.id, descriptor);
      ctx.connection.reply(ctx.packet, 'auth.start.ack', {
        payload: {
          connector_channel_id: ctx.channel.id,
          flow_id: flowId,
          status: 'authenticated',
          message: 'Already bound.',
          connection_descriptor: descriptor,
        },
      });
      return;
    }
    const input =
      typeof ctx.payload.input === 'object' && ctx.payload.input !== null
        ? (ctx.payload.input as Record<string, unknown>)
        : {};
    const session =
      flowId === DESKTOP_APPROVAL_FLOW
        ? service.startDesktopApproval(ctx.channel, ctx.connection.clientAddress)
        : service.startDeviceClaim(ctx.channel, input, ctx.connection.clientAddress);
    ctx.connection.reply(ctx.packet, 'auth.start.ack', { payload: sessionPayload(ctx, service, session) });
    // pending → authenticating; a failed start may also have ended an older pending request.
    service.pushIfChanged(ctx.channel.id);
  });

  plane.on('auth.status', (ctx) => {
    const id = ctx.payload.auth_session_id;
    const session = typeof id === 'string' ? service.session(id) : undefined;
    if (!session || session.channelId !== ctx.channel.id) {
      ctx.connection.reply(ctx.packet, 'auth.status.ack', {
        error: { code: 'auth_session_not_found', message: 'no such authentication session on this channel' },
      });
      return;
    }
    if (ctx.payload.refresh === true) service.refreshSession(session);
    ctx.connection.reply(ctx.packet, 'auth.status.ack', { payload: sessionPayload(ctx, service, session) });
  });

  plane.on('auth.cancel', (ctx) => {
    const id = ctx.payload.auth_session_id;
    const session = typeof id === 'string' ? service.session(id) : undefined;
    const base = { connector_channel_id: ctx.channel.id, auth_session_id: typeof id === 'string' ? id : '' };
    if (!session || session.channelId !== ctx.channel.id) {
      ctx.connection.reply(ctx.packet, 'auth.cancel.ack', {
        payload: { ...base, status: 'not_found', message: 'no such authentication session' },
      });
      return;
    }
    const outcome = service.cancelSession(session);
    const bound = service.activeBinding(ctx.channel.id) !== undefined;
    const payload: Record<string, unknown> = {
      ...base,
      status: outcome,
      auth_status: bound ? 'authenticated' : 'unauthenticated',
      message: outcome === 'canceled' ? 'Authentication canceled' : 'Nothing to cancel; the binding is unchanged',
    };
    if (outcome === 'ignored') payload.connection_descriptor = service.describe(ctx.channel);
    ctx.connection.reply(ctx.packet, 'auth.cancel.ack', { payload });
  });

  plane.on('auth.logout', (ctx) => {
    service.logout(ctx.channel.id);
    const channel = ctx.channel;
    const descriptor = service.describe(channel);
    service.noteDescribed(channel.id, descriptor);
    ctx.connection.reply(ctx.packet, 'auth.logout.ack', {
      payload: { status: 'ok', connection_descriptor: descriptor },
    });
  });
}
