/**
 * The connector's fixed protocol identity (DESIGN.md §2). These never change per deployment.
 */
export const CONNECTOR_CARD_ID = 'device.adb';
export const SKILL_NAME = 'connector-device-adb';
export const DEVICE_PROFILE = 'xagent.device.v1';
export const PROTOCOL_VERSION = '3.0';
export const PACKET_SCHEMA = 'xagent.connector.packet/v1';
export const CARD_SCHEMA = 'xagent.connector/v1';
export const DESCRIPTOR_SCHEMA = 'xagent.connection/v2';
export const WS_SUBPROTOCOL = 'xagent.connector.packet.v1';
export const TARGET = { target_type: 'device', provider: 'adb', label: 'Android Device' } as const;
/** Bumped whenever tools, auth flows, skill content or declarations change (spec §12). */
export const CONNECTOR_VERSION = '0.4.0';
export const CONNECTOR_NAME = 'xAgent Device Bridge';
