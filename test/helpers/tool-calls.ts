/**
 * A tool call's record (main/core/tools/tool-call.ts) for unit tests of what reads it: the
 * safety gate, the audit sink, the phone view's timeline. Only what those read is real: the
 * tool's definition from the catalogue, the arguments, the phone's id and the cancel.
 */
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import type { DeviceShell } from '../../main/core/devices/device-shell';
import { TOOLS } from '../../main/core/tools/catalogue';
import type { ToolCall } from '../../main/core/tools/tool-call';
import type { ToolDefinition } from '../../main/core/tools/tool-definition';

export interface FakeCallInput {
  toolId: string;
  /** A stand-in for the catalogue's definition of `toolId` (its facts, kind and run). */
  tool?: ToolDefinition<unknown>;
  args: Record<string, unknown>;
  deviceId?: string;
  channelId?: string;
  shell?: DeviceShell;
  signal?: AbortSignal;
}

/** A call record, with every progress status it pushed to the agent (`waiting_approval` when held). */
export function fakeToolCall(input: FakeCallInput): ToolCall & { progressed: string[] } {
  const tool = input.tool ?? TOOLS.find((t) => t.id === input.toolId);
  if (!tool) throw new Error(`no tool ${input.toolId}`);
  const progressed: string[] = [];
  const channelId = input.channelId ?? 'chan-1';
  const call: ToolCall & { progressed: string[] } = {
    key: `${channelId}\ncall-${Math.random().toString(36).slice(2)}`,
    requestId: 'req-1',
    tool,
    args: input.args,
    argsHash: `hash-${JSON.stringify(input.args)}`,
    channelId,
    // What reads a call in these tests looks only at the phone's id in its record.
    device: { deviceId: input.deviceId ?? 'phone-1' } as DeviceRecord,
    shell: input.shell ?? ({} as DeviceShell),
    receivedAt: 0,
    signal: input.signal ?? new AbortController().signal,
    progress: (status) => progressed.push(status),
    hold: () => {
      call.observed?.held();
      progressed.push('waiting_approval');
    },
    lastTree: () => undefined,
    verdict: null,
    progressed,
  };
  return call;
}
