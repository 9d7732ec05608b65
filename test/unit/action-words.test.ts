/**
 * An agent's call in the person's words (renderer/src/lib/action-words.ts), in English and
 * Chinese: every stable error code the agent can get has an explanation in both languages (a
 * new code without one fails here), arguments of simple shape read as words, and a running
 * call says what it waits for and for how long.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminPhoneAction } from '../../main/contract/admin-api';
import { translator } from '../../main/contract/i18n';
import { ERROR_CODES } from '../../main/core/errors';
import { argumentWords, errorExplanation, keyWords, waitWords } from '../../renderer/src/lib/action-words';

const en = translator('en');
const zh = translator('zh-CN');
const CJK = /[\u4e00-\u9fff]/;

function running(toolId: string, args: Record<string, unknown>, startedAt: number): AdminPhoneAction {
  return {
    action_id: 'act_1',
    seq: 1,
    device_id: 'dev_1',
    connector_channel_id: 'cch_1',
    tool_id: toolId,
    arguments: args,
    state: 'running',
    outcome: null,
    error_code: null,
    queued_at: startedAt - 500,
    started_at: startedAt,
    duration_ms: null,
    lane: null,
    points: [],
    screen: null,
  };
}

void describe('action words', () => {
  void test('every error code the agent can get is explained in English and in Chinese', () => {
    const missing: string[] = [];
    for (const code of ERROR_CODES) {
      const english = errorExplanation(code, en);
      const chinese = errorExplanation(code, zh);
      if (english === code || !/[a-z]{3}/i.test(english)) missing.push(`${code} (en)`);
      if (chinese === code || !CJK.test(chinese)) missing.push(`${code} (zh-CN)`);
    }
    assert.deepEqual(missing, []);
    assert.equal(errorExplanation('input_blocked', en), 'The phone refuses taps and typing from the computer.');
    assert.equal(errorExplanation('input_blocked', zh), '手机拒绝来自电脑的点按和输入。');
    assert.equal(errorExplanation('some_future_code', zh), 'some_future_code', 'an unknown code shows itself');
  });

  void test('arguments of a simple shape in words', () => {
    assert.equal(argumentWords(en, 'android_press_key', { key: 'home' }), 'Home');
    assert.equal(argumentWords(zh, 'android_press_key', { key: 'home' }), '主屏幕');
    assert.equal(argumentWords(en, 'android_press_key', { key: 'media_next' }), 'media next');
    assert.equal(keyWords(en, 'app_switch'), 'Recent apps');
    assert.equal(argumentWords(en, 'android_tap', { x: 540, y: 1200 }), 'at 540, 1200');
    // The agent's ask shows its own words, quoted.
    assert.equal(argumentWords(en, 'android_ask_person', { reason: 'log in' }), '“log in”');
    assert.equal(argumentWords(zh, 'android_ask_person', { reason: '登录' }), '“登录”');
    assert.equal(argumentWords(en, 'android_tap', { element: { text: 'Save' } }), 'on “Save”');
    assert.equal(
      argumentWords(en, 'android_tap', { element: { resource_id: 'com.x:id/save_button' } }),
      'on “save_button”',
    );
    assert.equal(argumentWords(zh, 'android_swipe', { direction: 'up' }), '向上');
    assert.equal(argumentWords(en, 'android_launch_app', { package: 'com.example.notes' }), 'com.example.notes');
    // Typed text: plain where this console has it, else what the audit keeps.
    assert.equal(
      argumentWords(en, 'android_type_text', { text: '[text: 12 chars, hmac-sha256:3f9a1c2b]', submit: true }),
      '12 characters (the text is not kept) · then Enter',
    );
    assert.equal(
      argumentWords(en, 'android_type_text', { text: '[text: 12 chars, hmac-sha256:3f9a1c2b]' }, ['hello there!']),
      '“hello there!”',
    );
    assert.equal(argumentWords(en, 'android_type_text', { text: '[redacted]' }, [null]), 'a secret (hidden)');
    assert.equal(argumentWords(zh, 'android_type_text', { secret: 'wifi' }, [null]), '密钥“wifi”');
    assert.equal(
      argumentWords(en, 'android_wait_for', { element: { text: 'Done' }, timeout_ms: 20_000 }),
      'until “Done” appears · at most 20 s',
    );
    assert.equal(argumentWords(en, 'android_screenshot', {}), null, 'no simple shape, no words');
  });

  void test('a running call says what it waits for and for how long', () => {
    const wait = running('android_wait_for', { element: { text: 'Done' }, timeout_ms: 20_000 }, 10_000);
    assert.equal(waitWords(en, wait, 13_400), 'Waiting for “Done” to appear — 3 s of 20 s');
    assert.equal(waitWords(zh, wait, 13_400), '正在等待“Done”出现 — 已等 3 秒，最多 20 秒');
    assert.equal(waitWords(en, wait, 99_000), 'Waiting for “Done” to appear — 20 s of 20 s', 'never past its limit');
    const settle = running('android_wait_for', {}, 0);
    assert.equal(waitWords(en, settle, 2_000), 'Waiting for the screen to settle — 2 s of 10 s');
    const batch = {
      ...running('android_batch', { steps: [{}, {}, {}, {}] }, 0),
      progress: { status: 'running', message: '', fraction: 0.5, at: 0 },
    };
    assert.equal(waitWords(en, batch, 1_000), 'Step 3 of 4 — 1 s so far');
    const queued = { ...running('android_tap', { x: 1, y: 2 }, 0), state: 'queued' as const, queued_at: 0 };
    assert.equal(waitWords(en, queued, 4_000), 'Waiting for its turn on this phone — 4 s so far');
    assert.equal(waitWords(en, { ...wait, state: 'done' }, 13_400), null);
  });
});
