/**
 * Stable error codes. Every failure that crosses a boundary (packet, tool ack, HTTP, IPC)
 * carries one of these; callers branch on `code`, never on message text.
 */
export const ERROR_CODES = [
  // protocol (spec §8.23)
  'invalid_packet',
  'unsupported_packet',
  'hello_required',
  'connector_card_id_mismatch',
  'connector_id_mismatch',
  'protocol_version_unsupported',
  'channel_not_open',
  // a live channel stays with the data plane that holds it; channels per connector are bounded
  'channel_in_use',
  'channel_limit_reached',
  'connector_channel_id_required',
  'connector_channel_unavailable',
  'connection_not_found',
  'connection_not_authenticated',
  'auth_session_not_found',
  'auth_flow_unknown',
  'tool_invoke_failed',
  'frame_too_large',
  'rate_limited',
  'unsupported_media_type',
  // tools and devices
  'unknown_tool',
  'tool_unavailable',
  'invalid_arguments',
  'out_of_bounds',
  'element_not_found',
  // an element ref from a read of the screen that may no longer be what is on it (tools/element-refs.ts)
  'ref_stale',
  'app_not_found',
  'not_bound',
  'device_offline',
  'device_unauthorized',
  'device_locked',
  'device_not_found',
  'adb_unavailable',
  'command_timeout',
  'command_failed',
  'permission_denied',
  'queue_full',
  'canceled',
  'idempotency_conflict',
  'outcome_unknown',
  'unicode_input_unavailable',
  // text to type with no text field focused: `input text` would drop it and still exit 0 (tools/focused-field.ts)
  'no_focused_field',
  // the fast lane's helper on the phone (main/core/helper/): not answering, or refused what was asked
  'helper_unavailable',
  // a tool that only the helper can serve (the clipboard), on a phone whose fast lane is off
  'fast_lane_required',
  // Android 10+ let the helper read nothing from the clipboard (only the app in front or the keyboard may)
  'clipboard_unreadable',
  // a phone that refuses what was asked, with a fix in words (android/phone-fixes.ts)
  'input_blocked',
  'install_blocked',
  'screen_unreadable',
  'approval_denied',
  'approval_required',
  'approval_timeout',
  'approval_not_found',
  'policy_denied',
  'lease_conflict',
  // a person took the phone over at the computer (core/takeover/takeover.ts): the agent's control calls wait for the hand-back
  'human_in_control',
  // the agent asked the person to take the phone over (core/takeover/person-asks.ts): they declined, or an ask already waits
  'person_declined',
  'ask_pending',
  'file_not_found',
  'file_too_large',
  'output_too_large',
  'invalid_address',
  'unreachable',
  'pairing_failed',
  'pairing_unsupported',
  // ADB hosts added at runtime (devices/adb-hosts.ts): already there, none by that name, given at start, an SSH key refused
  'host_exists',
  'host_not_found',
  'host_not_removable',
  'host_key_refused',
  // the lab's named secrets (secrets/lab-secrets.ts): no secret by that name, or not for this phone
  'secret_not_found',
  'secret_out_of_scope',
  // a secret is typed only into a field the phone masks (tools/secret-text.ts)
  'secret_field_not_masked',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error with a stable code; `message` is for people and logs and never holds a secret. */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function isBridgeError(value: unknown): value is BridgeError {
  return value instanceof BridgeError;
}

/**
 * An error as it leaves the bridge: `{code, message}` as the packet schema requires, and the
 * fix in words as its own field when there is one (the Descriptor's marks and the UI read it
 * from there; the message keeps it too, for a person reading only the message).
 */
export interface WireError {
  code: ErrorCode;
  message: string;
  fix?: string;
  /** When trying again may succeed (a phone away that may come back: tools/away-lease.ts). */
  retry_after_ms?: number;
  /** How long a lease still waits for its phone to come back. */
  lease_kept_ms?: number;
}

export function toWireError(error: unknown): WireError {
  if (!isBridgeError(error)) return { code: 'internal_error', message: 'internal error' };
  const fix = error.details?.fix;
  return { code: error.code, message: error.message, ...(typeof fix === 'string' && fix ? { fix } : {}) };
}
