/**
 * One list of tools (#25): each tool's facts are declared once, on its definition. Nothing in
 * main/ names a tool by its id outside the definitions (main/contract/tools.ts declares the ids
 * with their words,
 * control-tools.ts, observation-tools.ts, phone-state-tools.ts and person-tools.ts define them); the safety policy, redaction, the
 * screen-lock guard, the Descriptor's marks, the display in use and the timeline read facts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { TOOLS, toolFacts, toolIdsWhere } from '../../main/core/tools/catalogue';
import { TOOL_IDS } from '../../main/contract/tools';

const ROOT = resolve(__dirname, '../..');
const DEFINITIONS = new Set([
  'main/contract/tools.ts',
  'main/core/tools/tool-definition.ts',
  'main/core/tools/control-tools.ts',
  'main/core/tools/observation-tools.ts',
  'main/core/tools/batch-tool.ts',
  'main/core/tools/phone-state-tools.ts',
  'main/core/tools/evidence-tools.ts',
  'main/core/tools/person-tools.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

test('every tool is defined once, with facts', () => {
  const ids = TOOLS.map((t) => t.id);
  assert.equal(new Set(ids).size, ids.length, 'no id defined twice');
  assert.equal(ids.length, 24);
  for (const tool of TOOLS) {
    assert.equal(toolFacts(tool.id), tool.facts);
    if (tool.kind === 'observation')
      assert.equal(tool.facts.policy, 'none', `${tool.id}: observation is judged by no policy`);
    else assert.notEqual(tool.facts.policy, 'none', `${tool.id}: a control tool says how the policy judges it`);
  }
  // The contract's ToolId list (main/contract/tools.ts) is exactly the defined tools.
  assert.deepEqual([...TOOL_IDS].sort(), [...ids].sort());
});

test('no tool id is written in main/ outside the definitions', () => {
  const ids = new Set<string>(TOOLS.map((t) => t.id));
  const found: string[] = [];
  for (const file of [
    ...sourceFiles(join(ROOT, 'main')),
    ...sourceFiles(join(ROOT, 'renderer', 'src')),
    ...sourceFiles(join(ROOT, 'preload')),
  ]) {
    const path = relative(ROOT, file).split('\\').join('/');
    if (DEFINITIONS.has(path)) continue;
    // Comments may name tools (they explain); code may not.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    // A quoted id, or an id as an object key (`{ android_tap: … }`).
    for (const match of text.matchAll(/['"`](android_[a-z_]+)['"`]|(?<![\w'"`.-])(android_[a-z_]+)(?=\s*:[^:])/g)) {
      const id = match[1] ?? match[2];
      if (id !== undefined && ids.has(id)) found.push(`${path}: ${match[0]}`);
    }
  }
  assert.deepEqual(found, [], 'read the tool’s facts (main/core/tools/catalogue.ts) instead of naming it');
});

test('the sets other modules used to spell out by hand follow from the facts', () => {
  assert.deepEqual(toolIdsWhere((f) => f.screenInput === true).sort(), [
    'android_batch',
    'android_long_press',
    'android_press_key',
    'android_swipe',
    'android_tap',
    'android_type_text',
  ]);
  assert.deepEqual(toolIdsWhere((f) => f.readsTree === true).sort(), ['android_ui_tree', 'android_wait_for']);
  assert.deepEqual(
    toolIdsWhere((f) => f.typedTextArg !== undefined),
    ['android_type_text', 'android_set_clipboard'],
  );
  // Nothing that changes what the phone holds (clipboard, permissions, app data) touches the screen.
  for (const policy of ['clipboard_read', 'clipboard_write', 'grant', 'revoke', 'clear_data'] as const) {
    const ids = toolIdsWhere((f) => f.policy === policy);
    assert.equal(ids.length, 1, policy);
    const facts = toolFacts(ids[0]!);
    assert.ok(
      !facts.screenInput && !facts.readsTree && !facts.usesDisplay && facts.timeline === undefined,
      `${policy}: no screen facts`,
    );
  }
  assert.deepEqual(toolIdsWhere((f) => f.timeline !== undefined).sort(), [
    'android_batch',
    'android_long_press',
    'android_swipe',
    'android_tap',
  ]);
  assert.deepEqual(
    toolFacts('no_such_tool'),
    { policy: 'screen' },
    'an unknown step is judged as acting on the whole screen',
  );
});

test('a batch step is validated by its own tool’s schema at the edge, so the gate judges only valid steps', () => {
  const batch = TOOLS.find((t) => t.facts.policy === 'batch');
  assert.ok(batch);
  const bad = batch.args.safeParse({
    steps: [
      { tool: 'android_press_key', arguments: { key: 'back' } },
      { tool: 'android_tap', arguments: { x: -1, y: 5 } },
    ],
  });
  assert.equal(bad.success, false);
  assert.deepEqual(bad.error?.issues[0]?.path, ['steps', 1, 'arguments', 'x']);
  assert.match(bad.error?.issues[0]?.message ?? '', /^android_tap: /);
  const extra = batch.args.safeParse({
    steps: [{ tool: 'android_tap', arguments: { x: 1, y: 1, shell: 'rm -rf /' } }],
  });
  assert.equal(extra.success, false, 'a step’s unknown argument is refused like a call’s');
  assert.equal(batch.args.safeParse({ steps: [{ tool: 'android_tap', arguments: { x: 1, y: 1 } }] }).success, true);
});
