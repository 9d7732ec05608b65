/**
 * The one list of tools: every definition, and a tool's facts by id for the places that meet
 * a tool only by its id (a batch's steps, an audit line, the phone view's timeline). Nothing
 * outside the definitions names a tool; they read its facts (tool-definition.ts ToolFacts).
 */
import { CONTROL_TOOLS } from './control-tools';
import { OBSERVATION_TOOLS } from './observation-tools';
import { EVIDENCE_TOOLS } from './evidence-tools';
import { PHONE_STATE_TOOLS } from './phone-state-tools';
import { PERSON_TOOLS } from './person-tools';
import type { ToolDefinition, ToolFacts, ToolId } from './tool-definition';

export const TOOLS: readonly ToolDefinition<unknown>[] = [
  ...OBSERVATION_TOOLS,
  ...EVIDENCE_TOOLS,
  ...CONTROL_TOOLS,
  ...PHONE_STATE_TOOLS,
  ...PERSON_TOOLS,
];

const BY_ID = new Map<string, ToolDefinition<unknown>>(TOOLS.map((tool) => [tool.id, tool]));

/** The facts of a tool id; an unknown id acts on the whole screen as far as the safety policy can tell. */
export function toolFacts(id: string): ToolFacts {
  return BY_ID.get(id)?.facts ?? UNKNOWN_FACTS;
}

const UNKNOWN_FACTS: ToolFacts = { policy: 'screen' };

/** The ids of the tools whose facts match: for marks and sets that cover several tools. */
export function toolIdsWhere(match: (facts: ToolFacts) => boolean): ToolId[] {
  return TOOLS.filter((tool) => match(tool.facts)).map((tool) => tool.id);
}
