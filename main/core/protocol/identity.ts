/**
 * The connector's fixed protocol identity (DESIGN.md §2). These never change per deployment.
 * The protocol family (schema ids, version, subprotocol) is the wire contract's; re-exported here.
 */
export {
  CARD_SCHEMA,
  DESCRIPTOR_SCHEMA,
  PACKET_SCHEMA,
  PROTOCOL_VERSION,
  WS_SUBPROTOCOL,
} from '../../contract/wire-schemas';
export const CONNECTOR_CARD_ID = 'device.adb';
export const SKILL_NAME = 'connector-device-adb';
export const DEVICE_PROFILE = 'xagent.device.v1';
export const TARGET = { target_type: 'device', provider: 'adb', label: 'Android Device' } as const;
/** Bumped whenever tools, auth flows, skill content or declarations change (spec §12). */
export const CONNECTOR_VERSION = '0.5.0';
export const CONNECTOR_NAME = 'xAgent Device Bridge';
