/**
 * Every tool of the catalogue has the name a person says for it (the console's `tools` area),
 * in every locale, and no name is left for a tool that is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../main/core/tools/catalogue';
import { catalogue, translator } from '../../main/contract/i18n';
import { toolName } from '../../renderer/src/lib/tool-names';
import { TOOL_IDS } from '../../main/contract/tools';

test('one name per tool, in English and Chinese; an unknown tool is shown by its id', () => {
  const named = Object.keys(catalogue.tools.en).sort();
  // Besides the tools: the person's own take-over and hand-back, named in the same lists.
  const personLines = ['take_over', 'hand_back'];
  assert.deepEqual(named, [...TOOLS.map((tool) => tool.id.replace(/^android_/, '')), ...personLines].sort());
  const en = translator('en');
  const zh = translator('zh-CN');
  for (const tool of TOOLS) {
    assert.notEqual(toolName(en, tool.id), tool.id, tool.id);
    assert.notEqual(toolName(zh, tool.id), toolName(en, tool.id), `${tool.id} in Chinese`);
  }
  assert.equal(toolName(en, 'android_tap'), 'Tap');
  assert.equal(toolName(zh, 'android_type_text'), '输入文字');
  assert.equal(toolName(en, 'android_teleport'), 'android_teleport');
});

test("the contract's tool list (main/contract/tools.ts) is the catalogue's tools", () => {
  assert.deepEqual(TOOLS.map((tool) => tool.id).sort(), [...TOOL_IDS].sort());
});
