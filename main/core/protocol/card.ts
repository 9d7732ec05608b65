/**
 * The Connector Card (spec §4.1) built from the live tool catalog and auth flows. Tools get
 * `connector_channel_id` injected by `withConnectorChannelId`, the one helper for it.
 */
import type { BuildInfo } from '../build-info';
import {
  CARD_SCHEMA,
  CONNECTOR_CARD_ID,
  CONNECTOR_NAME,
  CONNECTOR_VERSION,
  DEVICE_PROFILE,
  PROTOCOL_VERSION,
  SKILL_NAME,
  TARGET,
} from './identity';

export interface JsonObjectSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

export interface CardTool {
  tool_id: string;
  title: string;
  description: string;
  input_schema: JsonObjectSchema;
  output_schema: Record<string, unknown>;
}

export interface AuthFlowField {
  name: string;
  label: string;
  input_type: 'text' | 'password';
  required?: boolean;
  placeholder?: string;
  help_text?: string;
  secret?: boolean;
}

export interface AuthFlowDeclaration {
  id: string;
  target_type: 'device';
  type: 'qr_login' | 'form';
  title: string;
  description?: string;
  fields?: AuthFlowField[];
}

const CHANNEL_ID_PROPERTY = {
  type: 'string',
  description:
    'Target user-level Connector channel ID. Pass the opaque ID returned by connector_channels_list or inbound source_connector_channel_id unchanged.',
} as const;

/** Injects the reserved `connector_channel_id` argument into a tool's input schema. */
export function withConnectorChannelId(schema: JsonObjectSchema): JsonObjectSchema {
  const required = schema.required ?? [];
  return {
    ...schema,
    type: 'object',
    properties: { connector_channel_id: CHANNEL_ID_PROPERTY, ...schema.properties },
    required: ['connector_channel_id', ...required.filter((name) => name !== 'connector_channel_id')],
  };
}

export function buildCard(input: {
  build: BuildInfo;
  tools: readonly CardTool[];
  authFlows: readonly AuthFlowDeclaration[];
}): Record<string, unknown> {
  const qrFlow = input.authFlows.find((flow) => flow.type === 'qr_login');
  return {
    schema: CARD_SCHEMA,
    protocol_version: PROTOCOL_VERSION,
    build: { ...input.build },
    connector_card_id: CONNECTOR_CARD_ID,
    connector: {
      name: CONNECTOR_NAME,
      version: CONNECTOR_VERSION,
      vendor: 'xAgent Device Bridge',
      description:
        'Android phones plugged into this computer by USB or reachable on the LAN, observed and driven through ADB. Each channel is bound to one phone with the consent of the person at the computer.',
    },
    supports: {
      user_channel_mode: 'multiple',
      target_types: [TARGET.target_type],
      targets: [{ ...TARGET }],
      profiles: [DEVICE_PROFILE],
    },
    tools: input.tools.map((tool) => ({
      tool_id: tool.tool_id,
      profile: DEVICE_PROFILE,
      title: tool.title,
      description: tool.description,
      related_skill_ids: [SKILL_NAME],
      input_schema: withConnectorChannelId(tool.input_schema),
      output_schema: tool.output_schema,
    })),
    auth_flows: input.authFlows.map((flow) => ({ ...flow })),
    ...(qrFlow
      ? {
          ui: {
            login_flow: {
              flow_id: qrFlow.id,
              steps: [
                { type: 'qr_code', request_type: 'auth.start', response_type: 'auth.start.ack' },
                { type: 'polling', request_type: 'auth.status', response_type: 'auth.status.ack' },
              ],
            },
          },
        }
      : {}),
    security: {
      trust_level: 'local',
      api_key_required: true,
      data_classes: ['device_state', 'screen_image', 'screen_recording', 'ui_hierarchy', 'installed_apps', 'file'],
    },
  };
}
