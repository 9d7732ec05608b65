/**
 * The clipboard through the fast lane's helper, against a scripted session: the wire form
 * (base64 of UTF-8, the bridge's own label, POST to the server's routes), answers decoded
 * strictly, a failed request reported to the manager (a stop is not), nothing sent twice.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import { decodeClip, HelperClipboard, setClipboardBody } from '../../main/core/helper/helper-clipboard';
import type { HelperSession } from '../../main/core/helper/helper-manager';

function isCode(code: string) {
  return (e: unknown): boolean => e instanceof BridgeError && e.code === code;
}

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

function session(answer: (sent: Sent) => unknown): { session: HelperSession; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    session: {
      version: '9.9.9',
      call: async (method, path, body) => {
        const request = { method, path, body };
        sent.push(request);
        return answer(request);
      },
    },
  };
}

const options = (): { timeoutMs: number; signal: AbortSignal } => ({
  timeoutMs: 1_000,
  signal: new AbortController().signal,
});

void describe('the clipboard’s wire form (appium-uiautomator2-server)', () => {
  void test('text goes as base64 of UTF-8 with the bridge’s own label; answers decode back', () => {
    const text = '验证码 123456 — ok 😀';
    const body = setClipboardBody(text);
    assert.deepEqual(body, {
      content: Buffer.from(text, 'utf8').toString('base64'),
      contentType: 'plaintext',
      label: 'xAgent',
    });
    assert.equal(decodeClip(body.content), text);
    assert.equal(decodeClip(''), '');
    for (const bad of [null, 42, 'not base64!', 'YQ', Buffer.from([0xff, 0xfe]).toString('base64')]) {
      assert.throws(() => decodeClip(bad), isCode('helper_unavailable'), String(bad));
    }
  });
});

void describe('HelperClipboard', () => {
  void test('write then read: one POST each to the server’s routes; each served call is counted', async () => {
    let stored = '';
    const { session: s, sent } = session(({ path, body }) => {
      if (path === '/appium/device/set_clipboard') stored = (body as { content: string }).content;
      return path === '/appium/device/get_clipboard' ? stored : null;
    });
    let served = 0;
    const clipboard = new HelperClipboard(s, {
      failed: async () => assert.fail('nothing failed'),
      served: () => served++,
    });
    await clipboard.write('hello 你好', options());
    assert.equal(await clipboard.read(options()), 'hello 你好');
    assert.deepEqual(
      sent.map((r) => [r.method, r.path]),
      [
        ['POST', '/appium/device/set_clipboard'],
        ['POST', '/appium/device/get_clipboard'],
      ],
    );
    assert.deepEqual(sent[1]?.body, { contentType: 'plaintext' });
    assert.equal(served, 2);
  });

  void test('a failed request is reported once and not sent again; a stop is not a failure', async () => {
    const lost = new BridgeError('outcome_unknown', 'no answer');
    const { session: s, sent } = session(() => {
      throw lost;
    });
    const failures: unknown[] = [];
    const clipboard = new HelperClipboard(s, {
      failed: async (error) => void failures.push(error),
      served: () => assert.fail('nothing served'),
    });
    await assert.rejects(clipboard.write('x', options()), isCode('outcome_unknown'));
    assert.deepEqual(failures, [lost]);
    assert.equal(sent.length, 1);
    const { session: stopped } = session(() => {
      throw new BridgeError('canceled', 'stopped');
    });
    const quiet = new HelperClipboard(stopped, {
      failed: async () => assert.fail('a stop is no failure'),
      served: () => undefined,
    });
    await assert.rejects(quiet.read(options()), isCode('canceled'));
  });
});
