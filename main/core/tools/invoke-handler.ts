/**
 * The edge of a tool call: one `tool.invoke` packet in, one `tool.invoke.ack` out. It finds
 * the tool, applies exactly-once (exactly-once.ts), checks the channel's binding and the
 * phone's state, validates the arguments against the tool's strict schema, and only then
 * makes the call's record (tool-call.ts) with its cancel, for the pipeline to run.
 */
import type { DeviceRegistry } from '../devices/device-registry';
import { isBridgeError, toWireError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { DataPlane, UserPacketContext } from '../server/data-plane';
import { awayError } from './away-lease';
import { errorAck, type ExactlyOnce } from './exactly-once';
import type { StoredAck } from './idempotency-journal';
import type { CallPipeline } from './call-pipeline';
import type { PhoneMemory } from './phone-memory';
import type { PhoneShells } from './phone-shells';
import { checkSecretNames, type SecretSource } from './secret-text';
import type { ToolCall } from './tool-call';
import type { ToolDefinition } from './tool-definition';

export interface InvokeHandlerOptions {
  tools: ReadonlyMap<string, ToolDefinition<unknown>>;
  registry: DeviceRegistry;
  shells: PhoneShells;
  memory: PhoneMemory;
  exactlyOnce: ExactlyOnce;
  pipeline: CallPipeline;
  /** The phone a channel's active lease holds, if any. */
  activeDeviceFor: (channelId: string) => string | undefined;
  /**
   * Names the channel's active lease (its phone and when it began), if any: part of the
   * exactly-once key, so a tool_call_id replayed after the channel was bound to another phone
   * runs there instead of returning the old phone's answer.
   */
  leaseKeyFor: (channelId: string) => string | undefined;
  /** The channel's binding as its Descriptor states it (`connected`, `revoked`, `error` …). */
  bindingStatus: (channelId: string) => string;
  /** While the bound phone is away: when its lease ends unless it comes back (BindingService.awayLeaseEnd). */
  awayLeaseEnd?: (deviceId: string) => number | null;
  /** A call keeps the lease from idling out. */
  touch: (channelId: string) => void;
  /** Sends `tool.progress.push` to the channel; false when it has no open connection. */
  progress: (channelId: string, payload: Record<string, unknown>) => boolean;
  clock: () => number;
  /** The lab's named secrets: a call naming one that is not stored, or not for its phone, is refused here. */
  secrets?: SecretSource;
}

export class InvokeHandler {
  constructor(private readonly o: InvokeHandlerOptions) {}

  register(plane: DataPlane): void {
    plane.on('tool.invoke', (ctx) => this.invoke(ctx));
  }

  private async invoke(ctx: UserPacketContext): Promise<void> {
    const toolId = typeof ctx.payload.tool_id === 'string' ? ctx.payload.tool_id : '';
    const reply = (ack: StoredAck): void => {
      if (ack.error) ctx.connection.reply(ctx.packet, 'tool.invoke.ack', { error: ack.error });
      else
        ctx.connection.reply(ctx.packet, 'tool.invoke.ack', {
          payload: ack.payload ?? { tool_id: toolId, result: {} },
        });
    };
    const tool = this.o.tools.get(toolId);
    if (!tool)
      return reply(errorAck('unknown_tool', `no tool ${JSON.stringify(toolId.slice(0, 80))} in this connector’s Card`));
    const raw = ctx.payload.arguments ?? {};
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return reply(errorAck('invalid_arguments', 'arguments must be an object'));
    // The channel id may ride along in the arguments (xAgent adds it); it is not the tool's.
    const { connector_channel_id: _ignored, ...args } = raw as Record<string, unknown>;
    const context =
      typeof ctx.payload.context === 'object' && ctx.payload.context !== null
        ? (ctx.payload.context as Record<string, unknown>)
        : {};
    const requestId = ctx.packet.request_id ?? ctx.packet.packet_id;
    const toolCallId =
      typeof context.tool_call_id === 'string' && context.tool_call_id ? context.tool_call_id : requestId;
    const key = `${ctx.channel.id}\n${this.o.leaseKeyFor(ctx.channel.id) ?? ''}\n${toolCallId}`;
    // Hashed as sent: a retry is compared with what the agent sent the first time.
    const argsHash = this.o.exactlyOnce.hash(toolId, args);
    const receivedAt = this.o.clock();
    // The call this packet ran, if it ran one (a retry that joins a running call or gets a stored ack runs none).
    let ran: ToolCall | undefined;
    try {
      reply(
        await this.o.exactlyOnce.run(key, argsHash, tool.sideEffect, () =>
          this.admit({ key, requestId, tool, args, argsHash, channelId: ctx.channel.id, receivedAt }, (call) => {
            ran = call;
          }),
        ),
      );
    } finally {
      // The ack is on its way (or could not be sent): what follows it runs now, in the pipeline's order.
      if (ran) this.o.pipeline.acked(ran);
    }
  }

  /** The binding, the phone and the arguments are checked; then the call runs. */
  private async admit(
    sent: {
      key: string;
      requestId: string;
      tool: ToolDefinition<unknown>;
      args: Record<string, unknown>;
      argsHash: string;
      channelId: string;
      receivedAt: number;
    },
    running: (call: ToolCall) => void,
  ): Promise<StoredAck> {
    const { tool, channelId } = sent;
    const deviceId = this.o.activeDeviceFor(channelId);
    if (!deviceId) {
      return errorAck(
        'not_bound',
        this.o.bindingStatus(channelId) === 'revoked'
          ? 'the lease of this channel was revoked; authenticate again'
          : 'no phone is bound to this channel; authenticate first',
      );
    }
    const device = this.o.registry.get(deviceId);
    // Away (unplugged, lost): the agent learns the fix and how long the lease waits for it.
    const away = (message: string): StoredAck => {
      const keptUntil = this.o.awayLeaseEnd?.(deviceId) ?? null;
      return keptUntil === null ? errorAck('device_offline', message) : { error: awayError(keptUntil, this.o.clock()) };
    };
    if (!device || device.state === 'gone') return away('the bound phone is not connected');
    if (device.state === 'unauthorized')
      return errorAck('device_unauthorized', 'the phone has not accepted this computer’s USB debugging key');
    if (device.state !== 'device') return away('the bound phone is offline');
    const bound = this.o.bindingStatus(channelId);
    if (bound === 'error')
      return errorAck('not_bound', 'a different phone now answers where the bound phone was; authenticate again');
    if (bound !== 'connected')
      return errorAck('device_offline', 'the bound phone is being verified; try again in a moment');

    const parsed = tool.args.safeParse(sent.args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'arguments';
      return errorAck('invalid_arguments', `${where}: ${issue?.message ?? 'invalid'}`.slice(0, 300));
    }
    // A secret it names must be stored and allowed on this phone before the call waits its
    // turn or anyone is asked to approve it (the tool asks again when it types).
    try {
      checkSecretNames(this.o.secrets, tool.id, parsed.data as Record<string, unknown>, deviceId);
    } catch (error) {
      if (isBridgeError(error)) return { error: toWireError(error) };
      throw error;
    }
    this.o.touch(channelId);
    let shell: DeviceShell;
    try {
      shell = this.o.shells.shellFor(device);
    } catch (error) {
      return { error: toWireError(error) };
    }
    const controller = new AbortController();
    const progress = (status: string, message: string, fraction?: number): void => {
      // The phone view's timeline shows the same progress to the person (a spinner and the wait).
      call.observed?.progress(status, message, fraction);
      this.o.progress(channelId, {
        tool_id: tool.id,
        status,
        message,
        ...(fraction !== undefined ? { progress: fraction } : {}),
        request_id: sent.requestId,
      });
    };
    const call: ToolCall = {
      key: sent.key,
      requestId: sent.requestId,
      tool,
      args: parsed.data as Record<string, unknown>,
      argsHash: sent.argsHash,
      channelId,
      device,
      shell,
      receivedAt: sent.receivedAt,
      signal: controller.signal,
      progress,
      hold: (message) => {
        call.observed?.held();
        progress('waiting_approval', message);
      },
      lastTree: () => this.o.memory.lastTree(channelId),
      verdict: null,
    };
    running(call);
    return this.o.pipeline.run(call, controller);
  }
}
