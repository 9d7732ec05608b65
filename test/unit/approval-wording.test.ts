/**
 * The approval's words (main/contract/approval-wording.ts): one sentence per tool in English
 * and Chinese from what the bridge resolved, secrets never shown, the reasons as catalogue
 * messages (every code the policy engine gives has its words), and codes this console does
 * not know still shown.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminApprovalAction, AdminApprovalReason } from '../../main/contract/admin-api';
import { approvalSentence, reasonText, type ApprovalFacts } from '../../main/contract/approval-wording';
import { catalogue, placeholderNames, translator } from '../../main/contract/i18n';
import { REASON_CODES, reasonInEnglish } from '../../main/core/safety/reasons';
import { TOOLS } from '../../main/core/tools/catalogue';

const en = translator('en');
const zh = translator('zh-CN');

const NO_ACTION: AdminApprovalAction = { target: null, swipe: null, file_name: null, screen_size: null };
const WALLET = { package: 'com.example.wallet', label: 'Wallet' };
const NOTES = { package: 'com.example.notes', label: 'com.example.notes' };

function facts(
  tool: string,
  args: Record<string, unknown>,
  action: Partial<AdminApprovalAction> = {},
  app: ApprovalFacts['app'] = null,
): ApprovalFacts {
  return { tool_id: `android_${tool}`, arguments: args, action: { ...NO_ACTION, ...action }, app };
}

/** The sentence in both languages. */
function both(approval: ApprovalFacts, brief = false): [string, string] {
  return [approvalSentence(en, approval, { brief }), approvalSentence(zh, approval, { brief })];
}

const payTarget = {
  label: 'Pay $25.00',
  bounds: [42, 500, 1038, 626] as [number, number, number, number],
  point: null,
};

describe('the approval sentence, per tool, in English and Chinese', () => {
  test('tap and long press: the element’s words and the app; a bare point; an element without words', () => {
    assert.deepEqual(both(facts('tap', { element: { text: 'Pay $25.00' } }, { target: payTarget }, WALLET)), [
      'The agent wants to tap “Pay $25.00” in Wallet',
      '智能体想在 Wallet 中点按“Pay $25.00”',
    ]);
    assert.deepEqual(
      both(facts('tap', { x: 540, y: 1200 }, { target: { label: null, bounds: null, point: [540, 1200] } })),
      ['The agent wants to tap the point (540, 1200)', '智能体想点按坐标 (540, 1200) 处'],
    );
    assert.deepEqual(both(facts('tap', { ref: '@kq12' }, { target: null }, WALLET)), [
      'The agent wants to tap an element on the screen in Wallet',
      '智能体想在 Wallet 中点按屏幕上的一个元素',
    ]);
    assert.deepEqual(both(facts('long_press', { ref: '@kq12' }, { target: payTarget }, WALLET)), [
      'The agent wants to long-press “Pay $25.00” in Wallet',
      '智能体想在 Wallet 中长按“Pay $25.00”',
    ]);
    // A long label is cut: the whole of it is behind the details toggle.
    const [long] = both(facts('tap', {}, { target: { label: 'x'.repeat(200), bounds: null, point: null } }));
    assert.ok(long.length < 100 && long.endsWith('…”'), long);
  });

  test('swipe: the direction given, or the one its points go', () => {
    assert.deepEqual(both(facts('swipe', { direction: 'up' }, {}, WALLET)), [
      'The agent wants to swipe up in Wallet',
      '智能体想在 Wallet 中向上滑动',
    ]);
    const path = { from: [900, 1200] as [number, number], to: [100, 1150] as [number, number] };
    assert.deepEqual(both(facts('swipe', { from_x: 900, from_y: 1200, to_x: 100, to_y: 1150 }, { swipe: path })), [
      'The agent wants to swipe left',
      '智能体想向左滑动',
    ]);
  });

  test('typing: the text and the field; a redacted text or a lab secret is never shown; notifications leave text out', () => {
    const field = { target: { label: 'Note', bounds: null, point: null } };
    assert.deepEqual(both(facts('type_text', { text: 'hello' }, field, NOTES)), [
      'The agent wants to type “hello” into the “Note” field in com.example.notes',
      '智能体想在 com.example.notes 的“Note”输入框中输入“hello”',
    ]);
    const hidden = both(facts('type_text', { text: '[redacted]' }, {}, NOTES));
    assert.deepEqual(hidden, [
      'The agent wants to type hidden text into the field that has focus in com.example.notes',
      '智能体想在 com.example.notes 的当前输入框中输入一段隐藏的文字',
    ]);
    for (const text of hidden) assert.doesNotMatch(text, /redacted/);
    assert.deepEqual(both(facts('type_text', { secret: 'lab-login' }, field)), [
      'The agent wants to type the lab secret “lab-login” into the “Note” field',
      '智能体想在“Note”输入框中输入实验室密钥“lab-login”',
    ]);
    assert.deepEqual(both(facts('type_text', { text: 'my home address' }, field, NOTES), true), [
      'The agent wants to type text into the “Note” field in com.example.notes',
      '智能体想在 com.example.notes 的“Note”输入框中输入文字',
    ]);
  });

  test('keys by the names people use', () => {
    assert.deepEqual(both(facts('press_key', { key: 'enter' }, {}, WALLET)), [
      'The agent wants to press the Enter key in Wallet',
      '智能体想在 Wallet 中按回车键',
    ]);
    assert.deepEqual(both(facts('press_key', { key: 'volume_up' })), [
      'The agent wants to press the Volume up key',
      '智能体想按Volume up键',
    ]);
  });

  test('apps: the app named by the call, by its name when the bridge knows it, else its package', () => {
    assert.deepEqual(both(facts('launch_app', { package: 'com.example.wallet' }, {}, WALLET)), [
      'The agent wants to open Wallet',
      '智能体想打开 Wallet',
    ]);
    assert.deepEqual(both(facts('stop_app', { package: 'com.example.notes' }, {}, WALLET)), [
      'The agent wants to close com.example.notes',
      '智能体想关闭 com.example.notes',
    ]);
    const camera = { package: 'com.example.notes', permission: 'android.permission.CAMERA' };
    assert.deepEqual(both(facts('grant_permission', camera, {}, NOTES)), [
      'The agent wants to give com.example.notes the CAMERA permission',
      '智能体想授予 com.example.notes CAMERA 权限',
    ]);
    assert.deepEqual(both(facts('revoke_permission', camera, {}, NOTES)), [
      'The agent wants to take the CAMERA permission away from com.example.notes',
      '智能体想撤销 com.example.notes 的 CAMERA 权限',
    ]);
    assert.deepEqual(both(facts('clear_app_data', { package: 'com.example.wallet' }, {}, WALLET)), [
      'The agent wants to erase all data of Wallet',
      '智能体想清除 Wallet 的全部数据',
    ]);
  });

  test('links, files and the clipboard', () => {
    const url = facts('open_url', { url: 'market://details?id=com.example.shop' });
    assert.deepEqual(both(url), [
      'The agent wants to open the link market://details?id=com.example.shop',
      '智能体想打开链接 market://details?id=com.example.shop',
    ]);
    assert.deepEqual(both(url, true), ['The agent wants to open a link', '智能体想打开一个链接']);
    assert.deepEqual(both(facts('install_apk', { file_ref: `file_${'a'.repeat(32)}` }, { file_name: 'example.apk' })), [
      'The agent wants to install example.apk',
      '智能体想安装 example.apk',
    ]);
    assert.deepEqual(both(facts('install_apk', { file_ref: `file_${'a'.repeat(32)}` })), [
      'The agent wants to install an uploaded app',
      '智能体想安装一个上传的应用',
    ]);
    assert.deepEqual(
      both(facts('push_file', { file_ref: `file_${'a'.repeat(32)}`, filename: 'notes.txt' }, { file_name: 'up.bin' })),
      [
        'The agent wants to copy notes.txt into the phone’s Download folder',
        '智能体想把 notes.txt 复制到手机的 Download 文件夹',
      ],
    );
    assert.deepEqual(both(facts('read_clipboard', {})), [
      'The agent wants to read the phone’s clipboard',
      '智能体想读取手机的剪贴板',
    ]);
    assert.deepEqual(both(facts('set_clipboard', { text: 'hi' })), [
      'The agent wants to put “hi” on the phone’s clipboard',
      '智能体想把“hi”放到手机的剪贴板上',
    ]);
  });

  test('a batch names its steps; a tool without a sentence of its own is named as people say it', () => {
    const steps = [
      { tool: 'android_tap', arguments: { ref: '@kq12' } },
      { tool: 'android_type_text', arguments: { text: '[redacted]' } },
    ];
    assert.deepEqual(both(facts('batch', { steps }, {}, WALLET)), [
      'The agent wants to do 2 steps in Wallet: Tap, Type text',
      '智能体想在 Wallet 中执行 2 个步骤：点按、输入文字',
    ]);
    assert.deepEqual(both(facts('screenshot', {})), [
      'The agent wants to use “Take a screenshot”',
      '智能体想使用“截屏”',
    ]);
  });

  test('every control tool has a sentence of its own, in both languages', () => {
    for (const tool of TOOLS.filter((t) => t.kind === 'control')) {
      for (const t of [en, zh]) {
        const sentence = approvalSentence(t, { tool_id: tool.id, arguments: {}, action: NO_ACTION, app: null });
        assert.doesNotMatch(sentence, /use “|使用“/, `${tool.id}: ${sentence}`);
        assert.doesNotMatch(sentence, /\{|approvals\./, `${tool.id}: ${sentence}`);
      }
    }
  });

  test('emphasis wraps what is named, never the rest; marks inside the phone’s words are dropped', () => {
    const marked = approvalSentence(
      en,
      facts('tap', {}, { target: { label: 'Pay\uE000 now', bounds: null, point: null } }, WALLET),
      { emphasis: (v) => `[${v}]` },
    );
    assert.equal(marked, 'The agent wants to tap “[Pay now]” in [Wallet]');
  });
});

describe('the reasons, in words', () => {
  test('every code the engine gives has its words in both languages', () => {
    const approvals = catalogue.approvals;
    for (const code of REASON_CODES) {
      const key = `reason.${code}` as keyof typeof approvals.en;
      assert.ok(approvals.en[key], `approvals.reason.${code} in English`);
      assert.ok(approvals['zh-CN'][key], `approvals.reason.${code} in Chinese`);
      assert.deepEqual(
        [...placeholderNames(approvals['zh-CN'][key])].sort(),
        [...placeholderNames(approvals.en[key])].sort(),
      );
    }
  });

  test('reasons read as sentences, permissions and risk classes in words, steps named', () => {
    const wallet: AdminApprovalReason = {
      code: 'app_wallet',
      params: { app: 'Wallet', package: 'com.example.wallet' },
    };
    assert.equal(reasonText(en, wallet), 'Wallet is a wallet app: it holds money and can pay');
    assert.equal(reasonText(zh, wallet), 'Wallet 是钱包应用：里面有钱，也能付款');
    const grant: AdminApprovalReason = {
      code: 'grants_permission',
      params: { permission: 'android.permission.CAMERA', app: 'Notes', package: 'com.example.notes' },
    };
    assert.equal(reasonText(zh, grant), '会授予 Notes CAMERA 权限');
    const asks: AdminApprovalReason = { code: 'needs_approval', params: { classes: 'control,sensitive_app' } };
    assert.equal(
      reasonText(en, asks),
      'This kind of action needs approval on this phone: Ordinary control, Sensitive apps',
    );
    assert.equal(reasonText(zh, asks), '这台手机上的这类操作需要审批：普通操控、敏感应用');
    const step: AdminApprovalReason = { code: 'screen_money', params: { word: 'pay' }, step_tool: 'android_swipe' };
    assert.equal(reasonText(en, step), 'Step “Swipe”: The screen shows “pay”: an action here can spend or move money');
    assert.equal(reasonText(zh, step), '步骤“滑动”：屏幕上有“pay”：在这里操作可能会花钱或转账');
    // The agent and the audit trail hear the English words.
    assert.equal(reasonInEnglish(wallet), reasonText(en, wallet));
  });

  test('a code this console does not know still shows, with its parameters', () => {
    const unknown: AdminApprovalReason = { code: 'something_newer', params: { label: 'Send', n: 2 } };
    assert.equal(reasonText(en, unknown), 'something newer · Send · 2');
    assert.equal(reasonText(zh, unknown), 'something newer · Send · 2');
  });
});
