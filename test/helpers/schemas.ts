/**
 * The official JSON Schemas from ../shared/spec/schemas (never copied into the project),
 * compiled once with ajv (draft 2020-12).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

const SCHEMA_DIR = join(__dirname, '..', '..', '..', 'shared', 'spec', 'schemas');
const ajv = new Ajv2020({ strict: false, allErrors: true });

function compile(name: string): (value: unknown) => string[] {
  const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, name), 'utf8')) as object;
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`));
}

export const validateCard = compile('xagent.connector.v1.schema.json');
export const validateDescriptor = compile('xagent.connection.v2.schema.json');
export const validatePacket = compile('xagent.connector.packet.v1.schema.json');
