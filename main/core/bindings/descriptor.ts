/**
 * The Connection Descriptor (spec §9) of one channel: status from its binding, its lease and
 * the phone's live state; tools[] lists every Card tool with its real current status.
 * Only display-level names and redacted hints leave the bridge.
 */
import type {
  ConnectionDescriptor,
  ConnectionStatus,
  DescriptorToolStatus,
  TargetPermissionState,
} from '../../contract/wire-schemas';
import { CONNECTOR_CARD_ID, DEVICE_PROFILE, DESCRIPTOR_SCHEMA, TARGET } from '../protocol/identity';
import { degrades, type ToolMark } from './tool-marks';

export type DescriptorStatus = ConnectionStatus;

export interface DescriptorInput {
  connectorId: string;
  channelId: string;
  status: DescriptorStatus;
  displayName: string;
  accountHint?: string;
  toolIds: readonly string[];
  /** Why tools are unavailable, when they are. */
  unavailableReason?: string;
  /** The phone refuses this computer (adb `unauthorized`): tools are denied by the target. */
  deniedByTarget?: boolean;
  /** On a connected phone, tools that cannot work there (tool-marks.ts), by tool id. */
  toolMarks?: ReadonlyMap<string, ToolMark>;
}

/** tools[] entry status and permission state when the channel is not `connected`. */
function unusableTool(input: DescriptorInput): {
  status: DescriptorToolStatus;
  target_permission_state: TargetPermissionState;
} {
  if (input.status === 'revoked' || input.status === 'expired')
    return { status: 'requires_reauth', target_permission_state: 'requires_reauth' };
  if (input.deniedByTarget) return { status: 'denied_by_target', target_permission_state: 'denied' };
  return { status: 'unavailable', target_permission_state: 'unknown' };
}

export function buildDescriptor(input: DescriptorInput): ConnectionDescriptor {
  const usable = input.status === 'connected';
  const marks = usable ? (input.toolMarks ?? new Map<string, ToolMark>()) : new Map<string, ToolMark>();
  // Spec §9: `degraded` = bound with some capabilities degraded.
  const status: DescriptorStatus = usable && degrades(marks) ? 'degraded' : input.status;
  return {
    schema: DESCRIPTOR_SCHEMA,
    connection: {
      connector_card_id: CONNECTOR_CARD_ID,
      connector_id: input.connectorId,
      connector_channel_id: input.channelId,
      target_type: TARGET.target_type,
      profiles: [DEVICE_PROFILE],
      status,
    },
    target: {
      provider: TARGET.provider,
      label: TARGET.label,
      display_name: input.displayName,
      ...(input.accountHint ? { account_hint: input.accountHint } : {}),
    },
    tools: input.toolIds.map((toolId) => {
      if (!usable)
        return {
          tool_id: toolId,
          ...unusableTool(input),
          reason: input.unavailableReason ?? 'no phone is bound to this channel',
        };
      const mark = marks.get(toolId);
      if (mark)
        return {
          tool_id: toolId,
          status: mark.status,
          target_permission_state: mark.targetPermissionState,
          reason: mark.reason,
        };
      return { tool_id: toolId, status: 'available', target_permission_state: 'granted' };
    }),
  };
}
