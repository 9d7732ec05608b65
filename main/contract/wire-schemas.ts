/**
 * The wire contract with xAgent (Connector Protocol 3.0): the protocol family, the packet
 * envelope (§7), the Connector Card (§4.1, §10) and the Connection Descriptor (§9), as zod
 * schemas written from the spec. The bridge parses every incoming packet with the envelope
 * schema; tests check every Card, Descriptor and packet the bridge sends against these, so a
 * checkout needs nothing outside itself. They hold the spec's field rules plus the hard rules
 * its JSON Schemas cannot say (unique tool ids, a tool's profile among the declared ones, …).
 * What the Connector sends in each packet type is in outgoing-packets.ts.
 */
import { z } from 'zod';

// ---- protocol family (spec §1) ---------------------------------------------------------------

export const PROTOCOL_VERSION = '3.0';
export const CARD_SCHEMA = 'xagent.connector/v1';
export const DESCRIPTOR_SCHEMA = 'xagent.connection/v2';
export const PACKET_SCHEMA = 'xagent.connector.packet/v1';
export const WS_SUBPROTOCOL = 'xagent.connector.packet.v1';

// ---- shared pieces ---------------------------------------------------------------------------

export const nonEmptyString = z.string().min(1);

export const TARGET_TYPES = ['im', 'email', 'calendar', 'ticket', 'device'] as const;
export const targetTypeSchema = z.enum(TARGET_TYPES);

/** ASCII letters, digits, `_`, `-`, `.`; at most 256: it becomes a model function name (§4.1). */
export const toolIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,256}$/, 'tool_id must be 1–256 ASCII letters, digits, underscores, hyphens or periods');

/** A JSON array whose items are all different (JSON Schema `uniqueItems` for strings). */
function uniqueList<T extends z.ZodType<string>>(item: T) {
  return z.array(item).refine((items) => new Set(items).size === items.length, { message: 'items must be unique' });
}

/** The issues of `value` against `schema` as `path: message` lines; empty when it is valid. */
export function schemaIssues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map(formatIssue);
}

/** One zod issue as `path: message` (`(root)` when the value itself is wrong). */
export function formatIssue(issue: z.core.$ZodIssue): string {
  return `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`;
}

// ---- packet envelope (§7) --------------------------------------------------------------------

/** The bridge's own bound on ids and types at the edge; longer ones are refused, never echoed. */
export const MAX_WIRE_ID_LENGTH = 256;
export const MAX_PACKET_TYPE_LENGTH = 128;

export const wireErrorSchema = z.object({ code: nonEmptyString, message: z.string().optional() });

/** Any packet, either direction. The data plane parses every incoming frame with it. */
export const packetEnvelopeSchema = z.object({
  schema: z.literal(PACKET_SCHEMA),
  packet_id: z.string().min(1).max(MAX_WIRE_ID_LENGTH),
  request_id: z.string().max(MAX_WIRE_ID_LENGTH).optional(),
  reply_to: z.string().max(MAX_WIRE_ID_LENGTH).optional(),
  connector_channel_id: z.string().max(MAX_WIRE_ID_LENGTH).optional(),
  type: z.string().min(1).max(MAX_PACKET_TYPE_LENGTH),
  time: z.number().int().min(0).optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  error: wireErrorSchema.optional(),
});

export type PacketEnvelope = z.infer<typeof packetEnvelopeSchema>;

// ---- Connection Descriptor (§9) --------------------------------------------------------------

export const CONNECTION_STATUSES = [
  'created',
  'authenticating',
  'connected',
  'degraded',
  'offline',
  'expired',
  'revoked',
  'error',
] as const;
export const TOOL_STATUSES = [
  'available',
  'unavailable',
  'denied_by_target',
  'requires_reauth',
  'not_supported',
] as const;
export const TARGET_PERMISSION_STATES = ['unknown', 'granted', 'denied', 'requires_reauth'] as const;

export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export type DescriptorToolStatus = (typeof TOOL_STATUSES)[number];
export type TargetPermissionState = (typeof TARGET_PERMISSION_STATES)[number];

const descriptorToolSchema = z.object({
  tool_id: toolIdSchema,
  status: z.enum(TOOL_STATUSES),
  target_permission_state: z.enum(TARGET_PERMISSION_STATES).optional(),
  reason: z.string().optional(),
});

export const connectionDescriptorSchema = z
  .object({
    schema: z.literal(DESCRIPTOR_SCHEMA),
    connection: z.object({
      connector_card_id: nonEmptyString,
      connector_id: nonEmptyString,
      connector_channel_id: nonEmptyString,
      target_type: targetTypeSchema,
      profiles: uniqueList(nonEmptyString).min(1),
      status: z.enum(CONNECTION_STATUSES),
    }),
    // Display-level names and redacted hints only (§9).
    target: z.object({
      provider: nonEmptyString,
      label: z.string().optional(),
      display_name: z.string(),
      account_hint: z.string().optional(),
    }),
    tools: z.array(descriptorToolSchema).optional(),
  })
  .superRefine((descriptor, ctx) => {
    reportDuplicates(
      (descriptor.tools ?? []).map((tool) => tool.tool_id),
      ['tools'],
      'tool_id',
      ctx,
    );
  });

export type ConnectionDescriptor = z.infer<typeof connectionDescriptorSchema>;

// ---- Connector Card (§4.1, §10) --------------------------------------------------------------

const buildSchema = z.object({
  version: z.string().optional(),
  git_tag: z.string().optional(),
  git_rev: z.string().optional(),
  build_time: z.string(),
});

const cardTargetSchema = z.object({
  target_type: targetTypeSchema,
  provider: nonEmptyString,
  label: nonEmptyString,
  description: z.string().optional(),
});

/** §10: an object schema whose `connector_channel_id` is a required string (injected by one helper). */
const toolInputSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: z.looseObject({ connector_channel_id: z.looseObject({ type: z.literal('string') }) }),
    required: uniqueList(z.string()).refine((names) => names.includes('connector_channel_id'), {
      message: 'must list connector_channel_id',
    }),
  })
  .refine((schema) => !('connector_card_id' in schema.properties), {
    message: 'must not declare connector_card_id (xAgent resolves the Card itself)',
    path: ['properties', 'connector_card_id'],
  });

const cardToolSchema = z.object({
  tool_id: toolIdSchema,
  profile: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  related_skill_ids: z.array(nonEmptyString).optional(),
  input_schema: toolInputSchema,
  output_schema: z.record(z.string(), z.unknown()).optional(),
});

const authFieldSchema = z
  .object({
    name: nonEmptyString,
    label: nonEmptyString,
    input_type: z.enum(['text', 'password']),
    required: z.boolean().optional(),
    placeholder: z.string().optional(),
    help_text: z.string().optional(),
    secret: z.boolean().optional(),
    default_value: z.string().optional(),
  })
  .refine((field) => field.input_type !== 'password' || field.secret === true, {
    message: 'a password field is secret',
    path: ['secret'],
  })
  .refine((field) => !(field.secret === true && field.default_value !== undefined), {
    message: 'a secret field has no default_value',
    path: ['default_value'],
  });

/** The §4.1 field table: id, target_type, type and title are required; a form has fields. */
const authFlowSchema = z
  .object({
    id: nonEmptyString,
    target_type: targetTypeSchema,
    type: z.enum(['qr_login', 'form']),
    title: nonEmptyString,
    description: z.string().optional(),
    fields: z.array(authFieldSchema).optional(),
    config_schema: z.record(z.string(), z.unknown()).optional(),
    ui_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((flow, ctx) => {
    if (flow.type === 'form' && (flow.fields ?? []).length === 0) {
      ctx.addIssue({ code: 'custom', message: 'a form flow has at least one field', path: ['fields'] });
    }
    reportDuplicates(
      (flow.fields ?? []).map((field) => field.name),
      ['fields'],
      'name',
      ctx,
    );
  });

const loginStepSchema = z.object({
  type: z.string(),
  request_type: z.string().optional(),
  response_type: z.string().optional(),
});

// Loose at the top so the forbidden keys stay visible to the checks below.
export const connectorCardSchema = z
  .looseObject({
    schema: z.literal(CARD_SCHEMA),
    protocol_version: z.literal(PROTOCOL_VERSION),
    build: buildSchema,
    connector_card_id: nonEmptyString,
    connector: z.object({
      name: nonEmptyString,
      version: nonEmptyString,
      vendor: z.string().optional(),
      description: z.string().optional(),
    }),
    supports: z.object({
      user_channel_mode: z.enum(['single', 'multiple']).optional(),
      target_types: uniqueList(targetTypeSchema).min(1),
      targets: z.array(cardTargetSchema).optional(),
      profiles: uniqueList(nonEmptyString).min(1),
    }),
    tools: z.array(cardToolSchema).optional(),
    auth_flows: z.array(authFlowSchema).optional(),
    ui: z
      .object({
        login_flow: z.object({ flow_id: z.string().optional(), steps: z.array(loginStepSchema).optional() }).optional(),
      })
      .optional(),
    security: z
      .object({
        trust_level: z.enum(['unknown', 'builtin', 'verified', 'third_party', 'local']).optional(),
        api_key_required: z.boolean().optional(),
        requires_signature: z.boolean().optional(),
        data_classes: z.array(z.string()).optional(),
      })
      .optional(),
  })
  .superRefine((card, ctx) => {
    if ('server_base_url' in card)
      ctx.addIssue({
        code: 'custom',
        message: 'the Card never carries server_base_url (§4.1)',
        path: ['server_base_url'],
      });
    const tools = card.tools ?? [];
    const flows = card.auth_flows ?? [];
    reportDuplicates(
      tools.map((tool) => tool.tool_id),
      ['tools'],
      'tool_id',
      ctx,
    );
    reportDuplicates(
      flows.map((flow) => flow.id),
      ['auth_flows'],
      'id',
      ctx,
    );
    // A tool's profile is one the Card declares; targets and flows name declared target types.
    const { profiles, target_types: targetTypes } = card.supports;
    reportUndeclared(
      tools.map((tool) => tool.profile),
      profiles,
      ['tools'],
      'profile',
      'supports.profiles',
      ctx,
    );
    reportUndeclared(
      (card.supports.targets ?? []).map((target) => target.target_type),
      targetTypes,
      ['supports', 'targets'],
      'target_type',
      'supports.target_types',
      ctx,
    );
    reportUndeclared(
      flows.map((flow) => flow.target_type),
      targetTypes,
      ['auth_flows'],
      'target_type',
      'supports.target_types',
      ctx,
    );
    const loginFlow = card.ui?.login_flow?.flow_id;
    if (loginFlow !== undefined && !flows.some((flow) => flow.id === loginFlow)) {
      ctx.addIssue({
        code: 'custom',
        message: `login flow ${loginFlow} is not one of auth_flows`,
        path: ['ui', 'login_flow', 'flow_id'],
      });
    }
  });

export type ConnectorCard = z.infer<typeof connectorCardSchema>;

/**
 * The spec's cross-checks between a Card and a Descriptor of the same Connector (§9): same
 * Card id, target type and profiles declared by the Card, no tool the Card does not declare.
 * Returns `path: message` lines; empty when they agree.
 */
export function descriptorCardMismatches(card: ConnectorCard, descriptor: ConnectionDescriptor): string[] {
  const problems: string[] = [];
  const { connection } = descriptor;
  if (connection.connector_card_id !== card.connector_card_id) {
    problems.push(
      `connection.connector_card_id: ${connection.connector_card_id} is not the Card's ${card.connector_card_id}`,
    );
  }
  if (!(card.supports.target_types as readonly string[]).includes(connection.target_type)) {
    problems.push(`connection.target_type: ${connection.target_type} is not declared by the Card`);
  }
  for (const profile of connection.profiles) {
    if (!card.supports.profiles.includes(profile))
      problems.push(`connection.profiles: ${profile} is not declared by the Card`);
  }
  const cardTools = new Set((card.tools ?? []).map((tool) => tool.tool_id));
  for (const tool of descriptor.tools ?? []) {
    if (!cardTools.has(tool.tool_id)) problems.push(`tools: ${tool.tool_id} is not in the Card`);
  }
  return problems;
}

function reportDuplicates(
  values: readonly string[],
  path: Array<string | number>,
  field: string,
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    if (seen.has(value))
      ctx.addIssue({ code: 'custom', message: `${field} ${value} appears twice`, path: [...path, i, field] });
    seen.add(value);
  });
}

function reportUndeclared(
  values: ReadonlyArray<string | undefined>,
  declared: readonly string[],
  path: Array<string | number>,
  field: string,
  where: string,
  ctx: z.RefinementCtx,
): void {
  values.forEach((value, i) => {
    if (value !== undefined && !declared.includes(value))
      ctx.addIssue({ code: 'custom', message: `${field} ${value} is not in ${where}`, path: [...path, i, field] });
  });
}
