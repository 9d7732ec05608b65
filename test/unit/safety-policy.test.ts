/**
 * The policy engine without a phone: screen words in English and Chinese, password fields,
 * URL schemes, sensitive apps, FLAG_SECURE windows, per-phone overrides, strict policy
 * parsing, window-facts parsing and argument redaction.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UiNode } from '../../main/core/android/ui-tree';
import { isBridgeError } from '../../main/core/errors';
import { StateStore } from '../../main/core/store/state-store';
import { classify, decideFor, nodeAt, screenNeeds, type CallFacts } from '../../main/core/safety/policy-engine';
import { PolicyStore, parsePolicies } from '../../main/core/safety/policies';
import { REDACTED, redactArguments } from '../../main/core/safety/redact';
import { DEFAULT_DECISIONS, RISK_CLASSES } from '../../main/core/safety/risk-classes';
import { parseWindowFacts, type ScreenFacts } from '../../main/core/android/screen-probe';
import { sensitiveAppReason } from '../../main/core/safety/sensitive-apps';
import { sensitiveWord } from '../../main/core/safety/screen-words';
import { compactTree } from '../../main/core/android/ui-tree';
import { formatRef } from '../../main/core/tools/element-refs';
import { PhoneMemory } from '../../main/core/tools/phone-memory';
import { orderedRiskClasses } from '../../renderer/src/lib/policy-edit';
import { hasMessage, translate } from '../../main/contract/i18n';

let nextIndex = 0;
function node(partial: Partial<UiNode> & { bounds?: [number, number, number, number] }): UiNode {
  const bounds = partial.bounds ?? [0, 0, 100, 100];
  return {
    index: nextIndex++,
    text: '',
    resourceId: '',
    contentDesc: '',
    className: 'android.widget.TextView',
    package: 'com.example.app',
    center: [Math.round((bounds[0] + bounds[2]) / 2), Math.round((bounds[1] + bounds[3]) / 2)],
    clickable: false,
    longClickable: false,
    scrollable: false,
    focusable: false,
    focused: false,
    checked: false,
    enabled: true,
    password: false,
    selected: false,
    depth: 1,
    ...partial,
    bounds,
  };
}

function screen(pkg: string, nodes: UiNode[], extra: { secure?: boolean; activity?: string } = {}): ScreenFacts {
  return {
    window: {
      token: `Window{1 u0 ${pkg}}`,
      package: pkg,
      activity: extra.activity ?? `${pkg}.MainActivity`,
      secure: extra.secure ?? false,
    },
    nodes: [node({ className: 'android.widget.FrameLayout', depth: 0, bounds: [0, 0, 1080, 2400] }), ...nodes],
    problems: [],
    fatal: null,
    reusedTree: false,
  };
}

function control(toolId: string, args: Record<string, unknown>): CallFacts {
  return { toolId, kind: 'control', args };
}

const LOGIN = [
  node({
    resourceId: 'com.example.login:id/username',
    className: 'android.widget.EditText',
    clickable: true,
    focusable: true,
    bounds: [40, 300, 1040, 400],
  }),
  node({
    resourceId: 'com.example.login:id/password',
    className: 'android.widget.EditText',
    clickable: true,
    focusable: true,
    password: true,
    bounds: [40, 450, 1040, 550],
  }),
  node({
    resourceId: 'com.example.login:id/sign_in',
    text: 'Sign in',
    className: 'android.widget.Button',
    clickable: true,
    bounds: [40, 600, 1040, 700],
  }),
];

/** A shop's checkout: a "Pay $25.00" button above a "Reviews" row. */
function shopScreen(): ScreenFacts {
  const pay = node({
    resourceId: 'com.shop:id/buy',
    text: 'Pay $25.00',
    className: 'android.widget.Button',
    clickable: true,
    bounds: [40, 800, 1040, 900],
  });
  const other = node({ text: 'Reviews', clickable: true, bounds: [40, 1000, 1040, 1100] });
  return screen('com.shop', [pay, other]);
}

describe('screen words', () => {
  test('English payment, account and reset words match as words; look-alikes do not', () => {
    assert.equal(sensitiveWord('Pay $25.00'), 'pay');
    assert.equal(sensitiveWord('pay_button'), 'pay');
    assert.equal(sensitiveWord('btnPay'), 'pay');
    assert.equal(sensitiveWord('Confirm payment'), 'confirm payment');
    assert.equal(sensitiveWord('Send money to Alice'), 'send money');
    assert.equal(sensitiveWord('Delete account'), 'delete account');
    assert.equal(sensitiveWord('Factory data reset'), 'factory data reset');
    assert.equal(sensitiveWord('Erase all data (factory reset)'), 'erase all data');
    assert.equal(sensitiveWord('Display'), null);
    assert.equal(sensitiveWord('Paypal'), null);
    assert.equal(sensitiveWord('Save note'), null);
    assert.equal(sensitiveWord(''), null);
  });

  test('Chinese payment, transfer, account deletion and factory reset words match inside text', () => {
    assert.equal(sensitiveWord('确认支付 ¥25.00'), '支付');
    assert.equal(sensitiveWord('立即付款'), '付款');
    assert.equal(sensitiveWord('转账给张三'), '转账');
    assert.equal(sensitiveWord('删除账户'), '删除账户');
    assert.equal(sensitiveWord('注销账号'), '注销账号');
    assert.equal(sensitiveWord('恢复出厂设置'), '恢复出厂设置');
    assert.equal(sensitiveWord('保存笔记'), null);
  });
});

describe('classification', () => {
  test('tool risk: installs, file pushes and non-web URLs are high; https is ordinary', () => {
    const install = classify({
      call: control('android_install_apk', { file_ref: 'file_x' }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(install.classes.sort(), ['control', 'install_app']);
    assert.equal(install.risk, 'high');
    assert.ok(
      classify({
        call: control('android_push_file', { file_ref: 'file_x' }),
        screen: null,
        userApps: [],
      }).classes.includes('push_file'),
    );
    const web = classify({
      call: control('android_open_url', { url: 'https://example.com/' }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(web.classes, ['control']);
    assert.equal(web.risk, 'low');
    for (const url of [
      'market://details?id=com.x',
      'tel:+123',
      'intent://scan#Intent;end',
      'myapp://pay?amount=5',
      'HTTP-ish:x',
    ]) {
      const c = classify({ call: control('android_open_url', { url }), screen: null, userApps: [] });
      assert.ok(c.classes.includes('non_web_url'), url);
      assert.equal(c.risk, 'high');
    }
    assert.deepEqual(
      screenNeeds(control('android_open_url', { url: 'tel:1' })),
      { window: false, tree: false },
      'no screen read for a URL',
    );
  });

  test('the clipboard, permissions and app data: reading the clipboard, changing a permission and clearing data ask; setting the clipboard is ordinary; no screen read', () => {
    const policy = { decisions: { ...DEFAULT_DECISIONS }, sensitiveApps: [] };
    const read = classify({ call: control('android_read_clipboard', {}), screen: null, userApps: [] });
    assert.deepEqual(read.classes.sort(), ['clipboard_read', 'control']);
    assert.equal(read.risk, 'high');
    assert.match(read.reasons.join(' '), /clipboard.*password or a one-time code/);
    assert.equal(decideFor(read.classes, policy).decision, 'ask');
    const set = classify({ call: control('android_set_clipboard', { text: 'hello' }), screen: null, userApps: [] });
    assert.deepEqual(set.classes, ['control']);
    assert.equal(decideFor(set.classes, policy).decision, 'allow');
    const grant = classify({
      call: control('android_grant_permission', {
        package: 'com.example.notes',
        permission: 'android.permission.CAMERA',
      }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(grant.classes.sort(), ['control', 'permission_change']);
    assert.deepEqual(grant.reasons, ['It grants CAMERA to com.example.notes']);
    assert.deepEqual(grant.why, [
      {
        code: 'grants_permission',
        params: { permission: 'android.permission.CAMERA', app: 'com.example.notes', package: 'com.example.notes' },
      },
    ]);
    const revoke = classify({
      call: control('android_revoke_permission', {
        package: 'com.example.notes',
        permission: 'android.permission.CAMERA',
      }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(revoke.reasons, ['It revokes CAMERA from com.example.notes']);
    const clear = classify({
      call: control('android_clear_app_data', { package: 'com.example.notes' }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(clear.classes.sort(), ['clear_app_data', 'control']);
    assert.equal(clear.risk, 'high');
    for (const c of [grant, revoke, clear]) assert.equal(decideFor(c.classes, policy).decision, 'ask');
    // The app they change can be sensitive too.
    const wallet = classify({
      call: control('android_clear_app_data', { package: 'com.example.wallet' }),
      screen: null,
      userApps: [],
    });
    assert.deepEqual(wallet.classes.sort(), ['clear_app_data', 'control', 'sensitive_app']);
    assert.ok(
      classify({
        call: control('android_grant_permission', {
          package: 'com.example.notes',
          permission: 'android.permission.CAMERA',
        }),
        screen: null,
        userApps: ['com.example.notes'],
      }).classes.includes('sensitive_app'),
    );
    for (const [id, args] of [
      ['android_read_clipboard', {}],
      ['android_set_clipboard', { text: 'x' }],
      ['android_grant_permission', { package: 'com.example.notes', permission: 'android.permission.CAMERA' }],
      ['android_revoke_permission', { package: 'com.example.notes', permission: 'android.permission.CAMERA' }],
      ['android_clear_app_data', { package: 'com.example.notes' }],
    ] as const) {
      assert.deepEqual(screenNeeds(control(id, args)), { window: false, tree: false }, `${id}: no screen read`);
    }
    // A lab may allow them: then nothing asks.
    assert.equal(
      decideFor(clear.classes, { decisions: { ...DEFAULT_DECISIONS, clear_app_data: 'allow' }, sensitiveApps: [] })
        .decision,
      'allow',
    );
  });

  test('launching or acting inside a sensitive app; the simulated wallet is on the list; user additions count', () => {
    const wallet = classify({
      call: control('android_launch_app', { package: 'com.example.wallet' }),
      screen: null,
      userApps: [],
    });
    assert.ok(wallet.classes.includes('sensitive_app'));
    assert.match(wallet.reasons.join(' '), /wallet/i);
    assert.deepEqual(
      classify({ call: control('android_launch_app', { package: 'com.example.notes' }), screen: null, userApps: [] })
        .classes,
      ['control'],
    );
    assert.ok(
      classify({
        call: control('android_launch_app', { package: 'com.example.notes' }),
        screen: null,
        userApps: ['com.example.notes'],
      }).classes.includes('sensitive_app'),
    );
    assert.ok(sensitiveAppReason('com.android.vending', []));
    assert.ok(sensitiveAppReason('com.acme.mybank', []), 'a bank-looking package');
    assert.equal(sensitiveAppReason('com.example.notes', []), null);
    const inside = classify({
      call: control('android_swipe', { direction: 'up' }),
      screen: screen('com.eg.android.AlipayGphone', []),
      userApps: [],
    });
    assert.ok(inside.classes.includes('sensitive_app'));
  });

  test('tapping a wallet, bank or store icon on the home screen is like launching it', () => {
    const home = screen('com.google.android.apps.nexuslauncher', [
      node({ text: 'Notes', contentDesc: 'Notes', clickable: true, bounds: [0, 300, 200, 500] }),
      node({ text: 'Wallet', contentDesc: 'Wallet', clickable: true, bounds: [200, 300, 400, 500] }),
      node({ text: '招商银行', clickable: true, bounds: [400, 300, 600, 500] }),
    ]);
    assert.deepEqual(
      classify({ call: control('android_tap', { x: 100, y: 400 }), screen: home, userApps: [] }).classes,
      ['control'],
    );
    assert.ok(
      classify({ call: control('android_tap', { x: 300, y: 400 }), screen: home, userApps: [] }).classes.includes(
        'sensitive_app',
      ),
    );
    assert.ok(
      classify({
        call: control('android_tap', { element: { text: '招商银行' } }),
        screen: home,
        userApps: [],
      }).classes.includes('sensitive_app'),
    );
    assert.deepEqual(
      classify({ call: control('android_swipe', { direction: 'left' }), screen: home, userApps: [] }).classes,
      ['control'],
      'paging the home screen is fine',
    );
    // A tap on empty wallpaper lands on the page container, not on the icons drawn inside it.
    const page = screen('com.google.android.apps.nexuslauncher', [
      node({ className: 'android.widget.FrameLayout', longClickable: true, bounds: [0, 200, 1080, 2000], depth: 1 }),
      node({ text: 'Wallet', contentDesc: 'Wallet', clickable: true, bounds: [200, 300, 400, 500], depth: 2 }),
      node({ className: 'android.view.View', bounds: [0, 1500, 1080, 1900], depth: 2 }),
    ]);
    assert.deepEqual(
      classify({ call: control('android_tap', { x: 500, y: 1000 }), screen: page, userApps: [] }).classes,
      ['control'],
    );
    assert.deepEqual(
      classify({ call: control('android_tap', { x: 21, y: 1600 }), screen: page, userApps: [] }).classes,
      ['control'],
    );
  });

  test('payment words on the tap target (by element or coordinates), in English and Chinese', () => {
    const facts = shopScreen();
    assert.ok(
      classify({ call: control('android_tap', { x: 500, y: 850 }), screen: facts, userApps: [] }).classes.includes(
        'sensitive_screen',
      ),
    );
    assert.ok(
      classify({
        call: control('android_tap', { element: { text: 'Pay $25.00' } }),
        screen: facts,
        userApps: [],
      }).classes.includes('sensitive_screen'),
    );
    assert.deepEqual(
      classify({ call: control('android_tap', { x: 500, y: 1050 }), screen: facts, userApps: [] }).classes,
      ['control'],
    );
    // A clickable container whose child text is Chinese.
    const row = node({
      className: 'android.widget.LinearLayout',
      clickable: true,
      bounds: [0, 1200, 1080, 1300],
      depth: 1,
    });
    const label = node({ text: '确认付款', bounds: [40, 1210, 600, 1290], depth: 2 });
    const cn = screen('com.shop', [row, label]);
    assert.equal(nodeAt(cn.nodes ?? [], 300, 1250)?.className, 'android.widget.LinearLayout');
    const tapped = classify({ call: control('android_tap', { x: 300, y: 1250 }), screen: cn, userApps: [] });
    assert.ok(tapped.classes.includes('sensitive_screen'));
    assert.match(tapped.reasons.join(' '), /付款/);
    // Swipes look at everything tappable on the screen.
    assert.ok(
      classify({ call: control('android_swipe', { direction: 'up' }), screen: cn, userApps: [] }).classes.includes(
        'sensitive_screen',
      ),
    );
  });

  test('a ref is judged as the element it names in the channel’s last tree: "Pay" is sensitive, a password field secret', () => {
    const facts = shopScreen();
    const memory = new PhoneMemory(Date.now);
    const read = compactTree(facts.nodes ?? [], { maxNodes: 3000 }).nodes;
    const last = memory.rememberTree('chan-1', 'phone-1', read, 'sig', 0);
    const refOf = (text: string): string => formatRef(last.refs.tag, read.find((n) => n.text === text)?.index ?? -1);

    const onPay = classify({
      call: control('android_tap', { ref: refOf('Pay $25.00') }),
      screen: facts,
      lastTree: last,
      userApps: [],
    });
    assert.ok(onPay.classes.includes('sensitive_screen'), JSON.stringify(onPay));
    assert.deepEqual(onPay.reasons, ['It taps “Pay $25.00”, which can spend or move money']);
    assert.deepEqual(onPay.why, [{ code: 'taps_money', params: { label: 'Pay $25.00', word: 'pay' } }]);
    // What the approval card names and marks: the element's words and where it is.
    const pay = read.find((n) => n.text === 'Pay $25.00');
    assert.deepEqual(onPay.target, { label: 'Pay $25.00', bounds: pay?.bounds, point: null });
    // Without a screen read (the policy needed none) the remembered element still counts.
    assert.ok(
      classify({
        call: control('android_long_press', { ref: refOf('Pay $25.00') }),
        screen: null,
        lastTree: last,
        userApps: [],
      }).classes.includes('sensitive_screen'),
    );
    assert.deepEqual(
      classify({ call: control('android_tap', { ref: refOf('Reviews') }), screen: facts, lastTree: last, userApps: [] })
        .classes,
      ['control'],
    );
    // A batch's first step, too.
    const batch = classify({
      call: control('android_batch', { steps: [{ tool: 'android_tap', arguments: { ref: refOf('Pay $25.00') } }] }),
      screen: facts,
      lastTree: last,
      userApps: [],
    });
    assert.ok(batch.classes.includes('sensitive_screen'));
    // A ref of another read names nothing known: the screen's words decide, as for an unknown target.
    const unknown = classify({
      call: control('android_tap', { ref: '@zzzz1' }),
      screen: facts,
      lastTree: last,
      userApps: [],
    });
    assert.ok(unknown.classes.includes('sensitive_screen'), 'the screen offers "pay"');

    const login = screen('com.example.login', LOGIN);
    const loginRead = compactTree(login.nodes ?? [], { maxNodes: 3000 }).nodes;
    const loginTree = memory.rememberTree('chan-1', 'phone-1', loginRead, 'sig2', 0);
    const password = formatRef(loginTree.refs.tag, loginRead.find((n) => n.password)?.index ?? -1);
    const username = formatRef(
      loginTree.refs.tag,
      loginRead.find((n) => n.resourceId.endsWith('username'))?.index ?? -1,
    );
    const secret = classify({
      call: control('android_type_text', { text: 'hunter2', ref: password }),
      screen: login,
      lastTree: loginTree,
      userApps: [],
    });
    assert.ok(secret.classes.includes('password_field'));
    assert.equal(secret.secretText, true);
    assert.equal(
      classify({
        call: control('android_type_text', { text: 'alice', ref: username }),
        screen: login,
        lastTree: loginTree,
        userApps: [],
      }).secretText,
      false,
    );
  });

  test('escape keys never ask; Enter on a payment screen does', () => {
    const facts = screen('com.example.wallet', [node({ text: 'Pay', clickable: true })]);
    assert.deepEqual(
      classify({ call: control('android_press_key', { key: 'back' }), screen: null, userApps: [] }).classes,
      ['control'],
    );
    assert.deepEqual(screenNeeds(control('android_press_key', { key: 'home' })), { window: false, tree: false });
    const enter = classify({ call: control('android_press_key', { key: 'enter' }), screen: facts, userApps: [] });
    assert.ok(enter.classes.includes('sensitive_screen') && enter.classes.includes('sensitive_app'));
  });

  test('password fields: focused, targeted by element, or unknown target with one on screen', () => {
    const focusedPassword = LOGIN.map((n) => ({ ...n, focused: n.password }));
    const a = classify({
      call: control('android_type_text', { text: 'hunter2' }),
      screen: screen('com.example.login', focusedPassword),
      userApps: [],
    });
    assert.ok(a.classes.includes('password_field'));
    assert.equal(a.secretText, true);
    const focusedUser = LOGIN.map((n) => ({ ...n, focused: n.resourceId.endsWith('username') }));
    const b = classify({
      call: control('android_type_text', { text: 'alice' }),
      screen: screen('com.example.login', focusedUser),
      userApps: [],
    });
    assert.deepEqual(b.classes, ['control']);
    assert.equal(b.secretText, false);
    const c = classify({
      call: control('android_type_text', { text: 'hunter2', element: { resource_id: 'password' } }),
      screen: screen('com.example.login', focusedUser),
      userApps: [],
    });
    assert.ok(c.classes.includes('password_field'));
    assert.equal(c.secretText, true);
    const d = classify({
      call: control('android_type_text', { text: 'alice', element: { resource_id: 'username' } }),
      screen: screen('com.example.login', LOGIN),
      userApps: [],
    });
    assert.equal(d.secretText, false);
    // Nothing focused, a password field on screen: assume the worst.
    const e = classify({
      call: control('android_type_text', { text: 'x' }),
      screen: screen('com.example.login', LOGIN),
      userApps: [],
    });
    assert.equal(e.secretText, true);
    // In a batch, a type_text step on a screen with a password field is secret too.
    const batch = classify({
      call: control('android_batch', {
        steps: [
          { tool: 'android_tap', arguments: { element: { resource_id: 'password' } } },
          { tool: 'android_type_text', arguments: { text: 'x' } },
        ],
      }),
      screen: screen('com.example.login', LOGIN),
      userApps: [],
    });
    assert.ok(batch.classes.includes('password_field'));
    assert.equal(batch.secretText, true);
    // Even when the username field has focus now: the tap step moves it to the password field.
    const moved = classify({
      call: control('android_batch', {
        steps: [
          { tool: 'android_tap', arguments: { element: { resource_id: 'password' } } },
          { tool: 'android_type_text', arguments: { text: 'x' } },
        ],
      }),
      screen: screen('com.example.login', focusedUser),
      userApps: [],
    });
    assert.ok(moved.classes.includes('password_field'));
    // A batch typing after another step on a screen without password fields: allowed, but its text is never logged.
    const notes = classify({
      call: control('android_batch', {
        steps: [
          { tool: 'android_tap', arguments: { x: 5, y: 5 } },
          { tool: 'android_type_text', arguments: { text: 'milk' } },
        ],
      }),
      screen: screen('com.example.notes', [node({ className: 'android.widget.EditText', focused: true })]),
      userApps: [],
    });
    assert.deepEqual(notes.classes, ['control']);
    assert.equal(notes.secretText, true);
  });

  test('a FLAG_SECURE window, an unreadable screen, and Settings security pages', () => {
    assert.ok(
      classify({
        call: control('android_tap', { x: 5, y: 5 }),
        screen: screen('com.example.app', [], { secure: true }),
        userApps: [],
      }).classes.includes('secure_screen'),
    );
    const unreadable = classify({
      call: control('android_tap', { x: 5, y: 5 }),
      screen: {
        window: null,
        nodes: null,
        problems: ['the screen content could not be read'],
        fatal: null,
        reusedTree: false,
      },
      userApps: [],
    });
    assert.ok(unreadable.classes.includes('unreadable_screen'));
    assert.equal(unreadable.risk, 'medium');
    const top = screen('com.android.settings', [
      node({ text: 'Battery', clickable: true, bounds: [0, 300, 1080, 400] }),
      node({ text: 'Security & privacy', clickable: true, bounds: [0, 500, 1080, 600] }),
    ]);
    assert.deepEqual(classify({ call: control('android_tap', { x: 50, y: 350 }), screen: top, userApps: [] }).classes, [
      'control',
    ]);
    assert.ok(
      classify({ call: control('android_tap', { x: 50, y: 550 }), screen: top, userApps: [] }).classes.includes(
        'sensitive_app',
      ),
    );
    const page = screen('com.android.settings', [
      node({ text: 'Screen lock', clickable: true, bounds: [0, 300, 1080, 400] }),
    ]);
    assert.ok(
      classify({ call: control('android_swipe', { direction: 'up' }), screen: page, userApps: [] }).classes.includes(
        'sensitive_app',
      ),
    );
    const byActivity = screen('com.android.settings', [], {
      activity: 'com.android.settings.Settings$SecurityDashboardActivity',
    });
    assert.ok(
      classify({
        call: control('android_swipe', { direction: 'up' }),
        screen: byActivity,
        userApps: [],
      }).classes.includes('sensitive_app'),
    );
  });

  test('observation calls are only observation', () => {
    const c = classify({
      call: { toolId: 'android_screenshot', kind: 'observation', args: {} },
      screen: null,
      userApps: [],
    });
    assert.deepEqual(c.classes, ['observation']);
  });
});

describe('policies', () => {
  test('defaults ask for every high-risk class; per-device overrides win; strictest decision wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'safety-policy-'));
    try {
      const store = new PolicyStore(new StateStore(dir));
      const got = store.get();
      assert.deepEqual(Object.keys(got.defaults).sort(), [...RISK_CLASSES].sort());
      assert.equal(got.defaults.install_app, 'ask');
      assert.equal(got.defaults.control, 'allow');
      store.put({
        defaults: { sensitive_app: 'deny' },
        per_device: { 'phone-1': { sensitive_app: 'allow', control: 'ask' } },
        sensitive_apps: ['com.example.notes', 'com.example.notes'],
      });
      assert.equal(store.forDevice('phone-2').decisions.sensitive_app, 'deny');
      assert.equal(store.forDevice('phone-1').decisions.sensitive_app, 'allow');
      assert.deepEqual(store.get().sensitive_apps, ['com.example.notes']);
      assert.deepEqual(decideFor(['control', 'sensitive_app'], store.forDevice('phone-2')).decision, 'deny');
      assert.deepEqual(decideFor(['control', 'sensitive_app'], store.forDevice('phone-1')), {
        decision: 'ask',
        asking: ['control'],
        denying: [],
      });
      assert.equal(decideFor(['control'], store.forDevice('phone-2')).decision, 'allow');
      // Survives a reload from state.json.
      assert.equal(new PolicyStore(new StateStore(dir)).forDevice('phone-1').decisions.control, 'ask');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every risk class has a label and a hint in English and Chinese, and a place in the Settings table', () => {
    const rows = orderedRiskClasses(DEFAULT_DECISIONS);
    assert.deepEqual(
      rows.map((row) => row.id),
      [...RISK_CLASSES],
      "every class has its row, in the contract's order",
    );
    assert.ok(rows.every((row) => row.hint !== null));
    for (const cls of RISK_CLASSES) {
      for (const key of [`settings.risk.${cls}`, `settings.risk.${cls}.hint`]) {
        assert.ok(hasMessage(key), key);
        assert.notEqual(translate('zh-CN', key), translate('en', key), `${key} has its Chinese text`);
      }
    }
  });

  test('PUT bodies are checked strictly with messages naming the field', () => {
    const bad: Array<[unknown, RegExp]> = [
      [[], /JSON object/],
      [{ defaults: { payments: 'ask' } }, /defaults\.payments is not a risk class/],
      [{ defaults: { control: 'maybe' } }, /defaults\.control must be allow, ask or deny/],
      [{ per_device: { 'p-1': { control: 'yes' } } }, /per_device\.p-1\.control/],
      [{ per_device: [] }, /per_device must be an object/],
      [{ sensitive_apps: ['not a package'] }, /sensitive_apps\[0\]/],
      [{ sensitive_apps: 'com.x.y' }, /array/],
      [{ extra: 1 }, /unknown field extra/],
      [{ audit_typed_text: 'hashed' }, /audit_typed_text must be digest or full/],
      [{ audit_typed_text: true }, /audit_typed_text must be digest or full/],
    ];
    for (const [body, message] of bad) {
      assert.throws(
        () => parsePolicies(body),
        (error: unknown) => isBridgeError(error) && error.code === 'invalid_arguments' && message.test(error.message),
        JSON.stringify(body),
      );
    }
    assert.deepEqual(
      parsePolicies({ defaults: { ...DEFAULT_DECISIONS }, per_device: {}, sensitive_apps: [] }).sensitiveApps,
      [],
    );
    // Typed text in the audit trail: digest unless the body says full.
    assert.equal(parsePolicies({}).auditTypedText, 'digest');
    assert.equal(parsePolicies({ audit_typed_text: 'full' }).auditTypedText, 'full');
  });
});

describe('window facts', () => {
  test('the simulated phone’s dumpsys window windows: package, activity, FLAG_SECURE', () => {
    const out = [
      'WINDOW MANAGER WINDOWS (dumpsys window windows)',
      '  Window #1 Window{1a2b3c u0 StatusBar}:',
      '    mAttrs={(0,0)(fillxfill) ty=STATUS_BAR fmt=TRANSLUCENT}',
      '  Window #2 Window{4d5e6f u0 com.example.wallet/com.example.wallet.ConfirmPaymentActivity}:',
      '    mAttrs={(0,0)(fillxfill) sim={adjust=resize forwardNavigation} ty=BASE_APPLICATION fmt=TRANSLUCENT fl=SECURE}',
      '',
      '  mCurrentFocus=Window{4d5e6f u0 com.example.wallet/com.example.wallet.ConfirmPaymentActivity}',
    ].join('\n');
    assert.deepEqual(parseWindowFacts(out), {
      token: 'Window{4d5e6f',
      package: 'com.example.wallet',
      activity: 'com.example.wallet.ConfirmPaymentActivity',
      secure: true,
    });
    assert.equal(parseWindowFacts(out.replace(' fl=SECURE', ''))?.secure, false);
  });

  test('a real phone’s multi-line flags and an older phone’s hex flags', () => {
    const real = [
      '  Window #7 Window{9f8e7d u0 com.bank.app/com.bank.app.LoginActivity}:',
      '    mDisplayId=0 rootTaskId=31 mSession=Session{1 2:u0a1} mClient=android.os.BinderProxy@1',
      '    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSLUCENT wanim=0x10302fe',
      '      fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SECURE SPLIT_TOUCH HARDWARE_ACCELERATED',
      '      pfl=NO_MOVE_ANIMATION}',
      '  Window #6 Window{aaaaaa u0 com.android.systemui.ImageWallpaper}:',
      '    mAttrs={(0,0)(fillxfill) ty=WALLPAPER fmt=RGBX_8888 fl=NOT_FOCUSABLE SECURE}',
      '  mCurrentFocus=Window{9f8e7d u0 com.bank.app/com.bank.app.LoginActivity}',
      '  mFocusedApp=ActivityRecord{1 u0 com.bank.app/.LoginActivity t31}',
    ].join('\n');
    assert.deepEqual(parseWindowFacts(real), {
      token: 'Window{9f8e7d',
      package: 'com.bank.app',
      activity: 'com.bank.app.LoginActivity',
      secure: true,
    });
    const hex = [
      '  Window #3 Window{b1 u0 com.a/com.a.Main}:',
      '    mAttrs=WM.LayoutParams{(0,0)(fillxfill) ty=1 fl=#81812100 fmt=-3}',
      '  mCurrentFocus=Window{b1 u0 com.a/com.a.Main}',
    ].join('\n');
    assert.equal(parseWindowFacts(hex)?.secure, true);
    assert.equal(parseWindowFacts(hex.replace('#81812100', '#81810100'))?.secure, false);
    assert.equal(parseWindowFacts('nothing useful'), null);
  });
});

describe('redaction', () => {
  const secrets = ['test-api-key-0123456789abcdef', 'test-admin-token-0123456789abcdef'];
  test('password text, known secrets, access codes, URL signatures and random tokens never pass', () => {
    const typed = redactArguments(
      'android_type_text',
      { text: 'hunter2', submit: true },
      { secrets, secretText: true },
    );
    assert.deepEqual(typed, { text: REDACTED, submit: true });
    const plain = redactArguments('android_type_text', { text: 'hello world' }, { secrets, secretText: false });
    assert.equal(plain.text, 'hello world');
    const key = redactArguments(
      'android_type_text',
      { text: `key ${secrets[0]!} here` },
      { secrets, secretText: false },
    );
    assert.ok(!JSON.stringify(key).includes(secrets[0]!));
    const code = redactArguments(
      'android_type_text',
      { text: 'LAB-4242' },
      { secrets, secretText: false, isAccessCode: (v) => v === 'LAB-4242' },
    );
    assert.equal(code.text, REDACTED);
    const url = redactArguments(
      'android_open_url',
      { url: 'https://h/files/refs/file_x?exp=1&sig=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde' },
      { secrets, secretText: false },
    );
    assert.ok(!String(url.url).includes('AbCdEf'));
    assert.match(String(url.url), /sig=\[redacted\]/);
    const token = redactArguments(
      'android_type_text',
      { text: 'otp ghp_16C7e42F292c6912E7710c838347Ae178B4a' },
      { secrets, secretText: false },
    );
    assert.ok(!String(token.text).includes('16C7e42F'));
    const ref = redactArguments(
      'android_push_file',
      { file_ref: 'file_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' },
      { secrets, secretText: false },
    );
    assert.equal(ref.file_ref, 'file_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345');
    const batch = redactArguments(
      'android_batch',
      {
        steps: [
          { tool: 'android_type_text', arguments: { text: 'hunter2' } },
          { tool: 'android_tap', arguments: { element: { text: 'OK' } } },
        ],
      },
      { secrets, secretText: true },
    );
    assert.ok(!JSON.stringify(batch).includes('hunter2'));
    assert.match(JSON.stringify(batch), /"OK"/);
    assert.equal(
      redactArguments('android_tap', { password: 'x', x: 1 }, { secrets, secretText: false }).password,
      REDACTED,
    );
  });
});
