import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminApproval, AdminDevice, AdminPairing, AdminPersonAsk } from '../../main/contract/admin-api';
import {
  APP_NAME,
  ApprovalNotifier,
  approvalNotification,
  HelperAlertNotifier,
  helperAlertNotification,
  personAskNotification,
  PersonAskNotifier,
  shouldNotify,
  trayMenuLabels,
  trayTakeoverEntries,
  trayView,
} from '../../main/electron/tray-state';

function approval(id: string, extra: Partial<AdminApproval> = {}): AdminApproval {
  return {
    approval_id: id,
    connector_channel_id: 'cch_1',
    device_id: 'dev_1',
    tool_id: 'android_install_apk',
    arguments: { file_ref: 'file_secret_argument_value_0000000000' },
    action: { target: null, swipe: null, file_name: 'example.apk', screen_size: null },
    app: null,
    reasons: [{ code: 'install_app', params: {} }],
    risk: 'high',
    created_at: 0,
    expires_at: 60_000,
    screenshot_url: null,
    ...extra,
  };
}
const pairing = { auth_session_id: 'auth_1' } as AdminPairing;
const devices = [{ device_id: 'dev_1', display_name: 'Pixel 7 ···4455' } as AdminDevice];

describe('tray label and approval notifications', () => {
  test('the tray shows how many things wait, in title, tooltip, menu and badge', () => {
    assert.deepEqual(trayView({ approvals: [], pairings: [] }), {
      title: '',
      tooltip: APP_NAME,
      summary: 'Nothing waiting for you',
      badgeCount: 0,
    });
    const one = trayView({ approvals: [approval('a')], pairings: [] });
    assert.equal(one.title, '1');
    assert.equal(one.summary, '1 approval waiting');
    assert.equal(one.tooltip, `${APP_NAME} — 1 approval waiting`);
    const many = trayView({ approvals: [approval('a'), approval('b')], pairings: [pairing] });
    assert.equal(many.title, '3');
    assert.equal(many.badgeCount, 3);
    assert.equal(many.summary, '2 approvals waiting, 1 pairing request waiting');
  });

  test('each approval is announced once; what was waiting at start is not news', () => {
    const n = new ApprovalNotifier();
    assert.deepEqual(n.fresh([approval('a')]), []);
    assert.deepEqual(
      n.fresh([approval('a'), approval('b')]).map((a) => a.approval_id),
      ['b'],
    );
    assert.deepEqual(n.fresh([approval('a'), approval('b')]), []);
    // Decided ones are forgotten; the set never grows beyond the queue.
    assert.deepEqual(n.fresh([]), []);
    assert.deepEqual(
      n.fresh([approval('c')]).map((a) => a.approval_id),
      ['c'],
    );
    assert.deepEqual(
      new ApprovalNotifier().fresh([approval('x')], { announceExisting: true }).map((a) => a.approval_id),
      ['x'],
    );
  });

  test('notify unless the person is already looking at the window', () => {
    assert.equal(shouldNotify({ supported: false, windowVisible: false, windowFocused: false }), false);
    assert.equal(shouldNotify({ supported: true, windowVisible: false, windowFocused: false }), true);
    assert.equal(shouldNotify({ supported: true, windowVisible: true, windowFocused: false }), true);
    assert.equal(shouldNotify({ supported: true, windowVisible: true, windowFocused: true }), false);
  });

  const openLink = approval('b', {
    device_id: 'dev_gone',
    tool_id: 'android_open_url',
    arguments: { url: 'market://details?id=com.example.private' },
    action: { target: null, swipe: null, file_name: null, screen_size: null },
    reasons: [{ code: 'non_web_url', params: { scheme: 'market' } }],
  });
  const typing = approval('c', {
    tool_id: 'android_type_text',
    arguments: { text: 'my home address' },
    action: { target: { label: 'Note', bounds: null, point: null }, swipe: null, file_name: null, screen_size: null },
    app: { package: 'com.example.notes', label: 'com.example.notes' },
    reasons: [{ code: 'screen_money', params: { word: 'pay' } }],
  });

  test('the notification says what the agent wants, on which phone and why, as the console does; typed text and links stay in the window', () => {
    const one = approvalNotification([approval('a')], { devices });
    assert.deepEqual(one, {
      title: 'Approval needed',
      body: 'Pixel 7 ···4455: The agent wants to install example.apk\nIt installs an app',
    });
    const two = approvalNotification([approval('a'), openLink], { devices });
    assert.equal(two.title, '2 approvals needed');
    assert.equal(
      two.body,
      'Pixel 7 ···4455: The agent wants to install example.apk\na phone: The agent wants to open a link',
    );
    const typed = approvalNotification([typing], { devices });
    assert.equal(
      typed.body,
      'Pixel 7 ···4455: The agent wants to type text into the “Note” field in com.example.notes\nThe screen shows “pay”: an action here can spend or move money',
    );
    for (const text of [one.body, two.body, typed.body]) {
      assert.ok(!text.includes('file_secret'), 'arguments stay out of the OS notification centre');
      assert.ok(!text.includes('private') && !text.includes('home address'), 'links and typed text too');
    }
    const long = approvalNotification(
      [approval('a', { reasons: [{ code: 'opens_from_home', params: { label: 'x'.repeat(500) } }] })],
      { devices },
    );
    assert.ok(long.body.length <= 240);
  });

  test('in Simplified Chinese: tray summary, tooltip, menu and notifications from the same catalogue', () => {
    assert.deepEqual(trayView({ approvals: [], pairings: [] }, 'zh-CN'), {
      title: '',
      tooltip: 'xAgent 设备桥',
      summary: '没有需要你处理的事项',
      badgeCount: 0,
    });
    const many = trayView({ approvals: [approval('a'), approval('b')], pairings: [pairing] }, 'zh-CN');
    assert.equal(many.summary, '2 个审批等待处理，1 个配对请求等待处理');
    assert.equal(many.tooltip, 'xAgent 设备桥 — 2 个审批等待处理，1 个配对请求等待处理');
    assert.deepEqual(trayMenuLabels('zh-CN'), { open: '打开设备桥', quit: '退出' });
    assert.deepEqual(trayMenuLabels(), { open: 'Open Device Bridge', quit: 'Quit' });
    const one = approvalNotification([approval('a')], { devices }, 'zh-CN');
    assert.deepEqual(one, { title: '需要审批', body: 'Pixel 7 ···4455：智能体想安装 example.apk\n会安装应用' });
    const two = approvalNotification([approval('a'), openLink], { devices }, 'zh-CN');
    assert.equal(two.title, '2 个操作需要审批');
    assert.equal(two.body, 'Pixel 7 ···4455：智能体想安装 example.apk\n一台手机：智能体想打开一个链接');
  });
});

describe('fast lane guard alerts on the desktop', () => {
  /** A phone whose appium-uiautomator2-server failed with this alert code's reason (helper_x → uia2_x), or runs. */
  const phone = (code: string | null, error = 'x'): AdminDevice =>
    ({
      device_id: 'dev_1',
      display_name: 'Pixel 7 ···4455',
      programs: [
        {
          program: 'uia2_server',
          state: code ? 'failed' : 'ready',
          last_error_code: code ? 'helper_unavailable' : null,
          last_error_reason: code ? code.replace(/^helper_/, 'uia2_') : null,
          last_error: code ? error : null,
        },
      ],
    }) as unknown as AdminDevice;

  test('a helper the guard stopped is announced once, also when it was already showing; a new stop is announced again', () => {
    const notifier = new HelperAlertNotifier();
    assert.deepEqual(notifier.fresh({ devices: [phone('helper_foreign_connection', 'a')] }), [
      { deviceId: 'dev_1', phone: 'Pixel 7 ···4455', code: 'helper_foreign_connection' },
    ]);
    assert.deepEqual(notifier.fresh({ devices: [phone('helper_foreign_connection', 'a')] }), []);
    assert.deepEqual(notifier.fresh({ devices: [phone(null)] }), []);
    assert.equal(notifier.fresh({ devices: [phone('helper_foreign_connection', 'b')] }).length, 1);
    // Not every failure is an alert: a crash or a network refusal is shown on the card only.
    assert.deepEqual(
      notifier.fresh({
        devices: [phone('helper_crashed', 'c'), { ...phone('helper_network_exposed', 'd'), device_id: 'dev_2' }],
      }),
      [],
    );
  });

  test('the notification names the phone and the reason, in the bridge language', () => {
    assert.deepEqual(helperAlertNotification({ phone: 'Pixel 7 ···4455', code: 'helper_not_verified' }), {
      title: 'Fast lane stopped on Pixel 7 ···4455',
      body: 'Not started: the copy installed on the phone is not the bridge’s.',
    });
    assert.match(
      helperAlertNotification({ phone: 'P', code: 'helper_foreign_connection' }, 'zh-CN').title,
      /P 上的快速通道已停止/,
    );
  });
});

describe('the agent’s asks in the tray and the desktop notification', () => {
  const ask = (id: string, extra: Partial<AdminPersonAsk> = {}): AdminPersonAsk => ({
    ask_id: id,
    device_id: 'dev_1',
    connector_channel_id: 'cch_1',
    reason: 'log in to the test account',
    asked_at: 1000,
    expires_at: 61_000,
    taken_at: null,
    ...extra,
  });
  const device = (id: string, name: string, extra: Partial<AdminDevice> = {}): AdminDevice =>
    ({
      device_id: id,
      display_name: name,
      state: 'device',
      lease: { connector_channel_id: 'cch_1', since: 0 },
      taken_over: null,
      ask: null,
      ...extra,
    }) as AdminDevice;

  test('an unanswered ask counts in the tray’s title, summary and badge; one being answered does not', () => {
    const waiting = { approvals: [], pairings: [], devices: [device('dev_1', 'Pixel 7', { ask: ask('a1') })] };
    assert.deepEqual(trayView(waiting), {
      title: '1',
      tooltip: 'xAgent Device Bridge — 1 agent asks you to take over',
      summary: '1 agent asks you to take over',
      badgeCount: 1,
    });
    assert.equal(trayView(waiting, 'zh-CN').summary, '1 个智能体请你接管');
    const held = {
      approvals: [],
      pairings: [],
      devices: [
        device('dev_1', 'Pixel 7', {
          ask: ask('a1', { taken_at: 2000 }),
          taken_over: { since: 2000, by: 'p', agent_may_watch: false },
        }),
      ],
    };
    assert.equal(trayView(held).badgeCount, 0);
  });

  test('Take over / Hand back per leased phone; the asking phone leads with the agent’s words, cut to one line', () => {
    const devices = [
      device('dev_a', 'Alpha'),
      device('dev_h', 'Held', {
        lease: null,
        taken_over: { since: 1, by: 'person at the computer', agent_may_watch: false },
      }),
      device('dev_z', 'Zulu', { ask: ask('a2', { device_id: 'dev_z', reason: `type the PIN\n${'x'.repeat(120)}` }) }),
      device('dev_free', 'Free', { lease: null }),
      device('dev_off', 'Offline', { state: 'offline' }),
    ];
    const entries = trayTakeoverEntries({ devices });
    assert.deepEqual(
      entries.map((e) => [e.deviceId, e.action, e.asked]),
      [
        ['dev_z', 'take', true],
        ['dev_a', 'take', false],
        ['dev_h', 'hand_back', false],
      ],
    );
    assert.equal(entries[1]!.label, 'Take over Alpha');
    assert.equal(entries[2]!.label, 'Hand back Held');
    assert.ok(
      entries[0]!.label.startsWith('Take over Zulu — the agent asks you to: type the PIN xxx'),
      entries[0]!.label,
    );
    assert.ok(entries[0]!.label.endsWith('…') && !entries[0]!.label.includes('\n'), entries[0]!.label);
    assert.deepEqual(
      trayTakeoverEntries({ devices: devices.slice(0, 2) }, 'zh-CN').map((e) => e.label),
      ['接管 Alpha', '交还 Held'],
    );
  });

  test('a Take over from the tray offers the phone view’s choice: the agent sees nothing (first), or may watch', () => {
    const devices = [
      device('dev_a', 'Alpha'),
      device('dev_h', 'Held', { lease: null, taken_over: { since: 1, by: 'p', agent_may_watch: false } }),
    ];
    const [take, back] = trayTakeoverEntries({ devices });
    assert.deepEqual(take?.choices, [
      { label: 'Take over — the agent sees nothing', agentMayWatch: false },
      { label: 'Take over — the agent may watch', agentMayWatch: true },
    ]);
    assert.deepEqual(back?.choices, [], 'a hand-back has no choice to make');
    assert.deepEqual(
      trayTakeoverEntries({ devices }, 'zh-CN')[0]?.choices.map((c) => [c.label, c.agentMayWatch]),
      [
        ['接管 — 智能体看不到屏幕', false],
        ['接管 — 允许智能体观看', true],
      ],
    );
  });

  test('each ask is notified once, with the phone and the agent’s words; one already waiting at start is notified too', () => {
    const notifier = new PersonAskNotifier();
    const first = { devices: [device('dev_1', 'Pixel 7', { ask: ask('a1') })] };
    assert.deepEqual(notifier.fresh(first), [
      { deviceId: 'dev_1', phone: 'Pixel 7', reason: 'log in to the test account' },
    ]);
    assert.deepEqual(notifier.fresh(first), []);
    // Taken over: no longer waiting; a new ask on the phone later is news again.
    assert.deepEqual(
      notifier.fresh({ devices: [device('dev_1', 'Pixel 7', { ask: ask('a1', { taken_at: 5 }) })] }),
      [],
    );
    assert.equal(notifier.fresh({ devices: [device('dev_1', 'Pixel 7', { ask: ask('a3') })] }).length, 1);

    assert.deepEqual(personAskNotification({ phone: 'Pixel 7', reason: 'log in to the test account' }), {
      title: 'The agent asks you to take over Pixel 7',
      body: 'The agent asks you to: log in to the test account',
    });
    assert.deepEqual(personAskNotification({ phone: 'Pixel 7', reason: '登录测试账号' }, 'zh-CN'), {
      title: '智能体请你接管 Pixel 7',
      body: '智能体请你：登录测试账号',
    });
  });
});
