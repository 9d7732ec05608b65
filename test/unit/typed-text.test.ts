/**
 * Typed text at rest: its length and a keyed hash instead of the text, found wherever a call
 * types (android_type_text, typing steps of android_batch, the text android_set_clipboard puts
 * on the clipboard), and no other tool argument carries typed text (a new string argument must
 * be sorted here).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CONTROL_TOOLS } from '../../main/core/tools/control-tools';
import { TOOLS } from '../../main/core/tools/catalogue';
import { toCardTool } from '../../main/core/tools/tool-definition';
import {
  ackAtRest,
  replaceTypedText,
  scrubTypedText,
  typedTextDigest,
  typedTexts,
} from '../../main/core/tools/typed-text';
import { hashArgs } from '../../main/core/tools/exactly-once';

const KEY = Buffer.alloc(32, 9);
const OTHER_KEY = Buffer.alloc(32, 10);
const ADDRESS = 'Meet me at 221B Baker Street';
const CHINESE = '明天下午三点在北京西站见';

void describe('typed text at rest', () => {
  void test('length in characters and a keyed hash prefix; same text and key, same form', () => {
    const form = typedTextDigest(ADDRESS, KEY);
    assert.match(form, /^\[text: 28 chars, hmac-sha256:[0-9a-f]{8}\]$/);
    assert.equal(typedTextDigest(ADDRESS, KEY), form);
    assert.notEqual(typedTextDigest(ADDRESS, OTHER_KEY), form, 'another data dir, another hash');
    assert.notEqual(typedTextDigest(`${ADDRESS}.`, KEY), form);
    assert.ok(!form.includes(createHash('sha256').update(ADDRESS).digest('hex').slice(0, 8)), 'not a plain SHA-256');
    assert.match(typedTextDigest(CHINESE, KEY), /^\[text: 12 chars, /);
    assert.match(typedTextDigest('👍🏽', KEY), /^\[text: 2 chars, /, 'code points, not UTF-16 units');
  });

  void test('finds the text of android_type_text and of typing steps in android_batch', () => {
    assert.deepEqual(typedTexts('android_type_text', { text: ADDRESS, element: { text: 'To' } }), [ADDRESS]);
    const batch = {
      steps: [
        { tool: 'android_tap', arguments: { element: { text: 'Search' } } },
        { tool: 'android_type_text', arguments: { text: CHINESE, submit: true } },
        { tool: 'android_type_text', arguments: { text: ADDRESS } },
      ],
    };
    assert.deepEqual(typedTexts('android_batch', batch), [CHINESE, ADDRESS]);
    assert.deepEqual(
      typedTexts('android_tap', { element: { text: ADDRESS } }),
      [],
      'on-screen text of a selector is not typed',
    );
    assert.deepEqual(typedTexts('android_batch', { steps: 'nonsense' }), []);
    assert.deepEqual(typedTexts('android_type_text', { text: 42 }), []);
    assert.deepEqual(
      typedTexts('android_set_clipboard', { text: ADDRESS }),
      [ADDRESS],
      'what goes on the clipboard is kept like typed text',
    );
  });

  void test('replaces typed text in the shown arguments, leaving redacted secrets and selectors alone', () => {
    const raw = { text: ADDRESS, element: { text: 'To' } };
    const replaced = replaceTypedText('android_type_text', raw, { text: ADDRESS, element: { text: 'To' } }, (text) =>
      typedTextDigest(text, KEY),
    );
    assert.deepEqual(replaced, { text: typedTextDigest(ADDRESS, KEY), element: { text: 'To' } });
    const batchRaw = {
      steps: [
        { tool: 'android_launch_app', arguments: { package: 'com.example.notes' } },
        { tool: 'android_type_text', arguments: { text: ADDRESS } },
      ],
    };
    const shown = {
      steps: [
        { tool: 'android_launch_app', arguments: { package: 'com.example.notes' } },
        { tool: 'android_type_text', arguments: { text: '[redacted]' } },
      ],
    };
    const seen: unknown[] = [];
    const out = replaceTypedText('android_batch', batchRaw, shown, (text, value) => {
      seen.push(value);
      return `<${text.length}>`;
    });
    assert.deepEqual(seen, ['[redacted]'], 'the replacer sees what the approver saw');
    assert.deepEqual(out, { steps: [shown.steps[0], { tool: 'android_type_text', arguments: { text: '<28>' } }] });
    assert.equal(shown.steps[1]!.arguments.text, '[redacted]', 'the shown arguments are not mutated');
  });

  void test('scrubs a result: inside longer strings for long texts, whole strings only for short ones', () => {
    const result = {
      status: 'typed',
      ui: [{ text: `Draft: ${ADDRESS}` }, { text: 'ok' }, { content_desc: 'look' }],
      steps: [{ element: { text: ADDRESS } }],
    };
    const out = scrubTypedText(result, [ADDRESS, 'ok'], (text) => `<${text.length}>`);
    assert.deepEqual(out, {
      status: 'typed',
      ui: [{ text: 'Draft: <28>' }, { text: '<2>' }, { content_desc: 'look' }],
      steps: [{ element: { text: '<28>' } }],
    });
    assert.equal(
      scrubTypedText(result, [], (t) => t),
      result,
    );
  });

  void test('the journal keeps an ack without observed screens or element texts, and without the call’s typed text', () => {
    const ack = {
      payload: {
        tool_id: 'android_batch',
        result: {
          status: 'stopped_on_error',
          steps: [
            {
              tool: 'android_tap',
              ok: true,
              result: {
                status: 'tapped',
                x: 5,
                y: 6,
                element: {
                  index: 3,
                  text: 'Earlier note',
                  content_desc: 'x',
                  resource_id: 'note_text',
                  bounds: [0, 0, 9, 9],
                },
              },
            },
            {
              tool: 'android_type_text',
              ok: false,
              error: { code: 'command_failed', message: `phone said: ${ADDRESS}` },
            },
          ],
          screen_changed: true,
          ui: [{ index: 0, text: 'Earlier note' }],
        },
      },
    };
    const kept = ackAtRest(ack, [ADDRESS], (text) => `<${text.length}>`);
    assert.deepEqual(kept.payload.result, {
      status: 'stopped_on_error',
      steps: [
        {
          tool: 'android_tap',
          ok: true,
          result: {
            status: 'tapped',
            x: 5,
            y: 6,
            element: { index: 3, resource_id: 'note_text', bounds: [0, 0, 9, 9] },
          },
        },
        { tool: 'android_type_text', ok: false, error: { code: 'command_failed', message: 'phone said: <28>' } },
      ],
      screen_changed: true,
      screen_not_kept: true,
    });
    assert.equal(ack.payload.result.ui.length, 1, 'the exact ack is not changed');
    assert.deepEqual(
      ackAtRest({ error: { code: 'busy', message: 'later' } }, [], (t) => t),
      { error: { code: 'busy', message: 'later' } },
    );
  });

  void test('the journal keeps no toast a call saw (an app may echo typed text in one); whether toasts were watched stays', () => {
    const ack = {
      payload: {
        tool_id: 'android_tap',
        result: {
          status: 'tapped',
          lane: 'helper',
          toasts: [{ text: `Saved “${ADDRESS}”`, at: '2026-12-05T10:00:00.000Z' }],
          toasts_watched: true,
        },
      },
    };
    const kept = ackAtRest(ack, [], (text) => `<${text.length}>`);
    assert.deepEqual(kept.payload.result, {
      status: 'tapped',
      lane: 'helper',
      screen_not_kept: true,
      toasts_watched: true,
    });
    assert.equal(ack.payload.result.toasts.length, 1, 'the exact ack is not changed');
  });

  void test('the journal’s arguments hash is keyed', () => {
    const args = { text: '1234' };
    assert.equal(hashArgs('android_type_text', args, KEY), hashArgs('android_type_text', { ...args }, KEY));
    assert.notEqual(hashArgs('android_type_text', args, KEY), hashArgs('android_type_text', args, OTHER_KEY));
  });

  void test('no tool argument other than android_type_text.text and android_set_clipboard.text carries typed text', () => {
    const strings: string[] = [];
    const walk = (schema: any, path: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.type === 'string' && !schema.enum) strings.push(path);
      for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v, `${path}.${k}`);
      if (schema.items) walk(schema.items, `${path}[]`);
      for (const k of ['anyOf', 'oneOf', 'allOf']) for (const v of schema[k] ?? []) walk(v, path);
    };
    for (const tool of TOOLS) walk(toCardTool(tool).input_schema, tool.id);
    const selector = (tool: string): string[] =>
      ['text', 'text_contains', 'resource_id', 'content_desc'].map((k) => `${tool}.element.${k}`);
    // On-screen text of selectors and toasts, package and activity names, URLs, file refs and names.
    const notTyped = [
      ...selector('android_wait_for'),
      'android_wait_for.toast',
      ...selector('android_tap'),
      ...selector('android_long_press'),
      ...selector('android_type_text'),
      'android_launch_app.package',
      'android_launch_app.activity',
      'android_stop_app.package',
      'android_open_url.url',
      'android_install_apk.file_ref',
      'android_push_file.file_ref',
      'android_push_file.filename',
      // A lab secret's name: its value is never an argument (tools/secret-text.ts).
      'android_type_text.secret',
      'android_grant_permission.package',
      'android_grant_permission.permission',
      'android_revoke_permission.package',
      'android_revoke_permission.permission',
      'android_clear_app_data.package',
      // Element refs (@kq12): names of a read's elements, made by the bridge.
      'android_tap.ref',
      'android_long_press.ref',
      'android_type_text.ref',
      // What part of the phone's log to read: a package, log tags, a time.
      'android_logcat.package',
      'android_logcat.tags[]',
      'android_logcat.since',
      // The agent's own request to the person ("log in to the test account"), shown and audited as its words.
      'android_ask_person.reason',
    ];
    assert.deepEqual(
      strings.filter((p) => !notTyped.includes(p)),
      ['android_type_text.text', 'android_set_clipboard.text'],
      'sort a new string argument: typed text (typed-text.ts) or not',
    );
    // android_batch's steps are calls of these same tools, checked above.
    const batch = toCardTool(CONTROL_TOOLS.find((t) => t.id === 'android_batch')!).input_schema as any;
    for (const id of batch.properties.steps.items.properties.tool.enum as string[])
      assert.ok(
        CONTROL_TOOLS.some((t) => t.id === id),
        id,
      );
  });
});
