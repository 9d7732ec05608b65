/**
 * Validators for what the bridge sends, against the project's own wire schemas
 * (main/contract/). Nothing outside the repository is read, so every test that uses them runs
 * in a bare clone; test/integration/official-schemas.test.ts also checks samples against the
 * official JSON Schemas when the spec folder is there.
 */
import { outgoingPacketSchema } from '../../main/contract/outgoing-packets';
import { connectionDescriptorSchema, connectorCardSchema, schemaIssues } from '../../main/contract/wire-schemas';

/** `path: message` lines; empty when the Card is valid. */
export const validateCard = (value: unknown): string[] => schemaIssues(connectorCardSchema, value);
/** `path: message` lines; empty when the Descriptor is valid. */
export const validateDescriptor = (value: unknown): string[] => schemaIssues(connectionDescriptorSchema, value);
/** `path: message` lines; empty when the packet is one the Connector may send as it is. */
export const validatePacket = (value: unknown): string[] => schemaIssues(outgoingPacketSchema, value);
