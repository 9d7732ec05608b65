/**
 * The public Skill (/skill.md): how an agent should use this connector's tools. The prose
 * lives in resources/skill.md; the tool list is generated from the live catalog so the
 * Skill never names a tool the Card does not declare.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../build-info';
import type { CardTool } from './card';
import { SKILL_NAME } from './identity';

let template: string | undefined;

function loadTemplate(): string {
  template ??= readFileSync(join(projectRoot(), 'resources', 'skill.md'), 'utf8');
  return template;
}

export function renderSkill(tools: readonly CardTool[]): string {
  const list = tools.length
    ? tools.map((t) => `- \`${t.tool_id}\` — ${t.description.split('\n')[0] ?? ''}`).join('\n')
    : '- (no tools are available yet)';
  return loadTemplate().replace('{{SKILL_NAME}}', SKILL_NAME).replace('{{TOOL_LIST}}', list);
}
