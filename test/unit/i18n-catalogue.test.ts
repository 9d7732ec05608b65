/**
 * The catalogue (main/contract/i18n): both languages have the same keys in every area, no
 * message is empty, placeholders and <b>/<code> markup match between the languages, plurals
 * and parameters fill in, the locale is picked from system or browser languages, and the
 * time formatters speak each language.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  LOCALES,
  catalogue,
  formatters,
  hasMessage,
  interpolate,
  pickLocale,
  placeholderNames,
  resolveLocale,
  translate,
  type MessageKey,
} from '../../main/contract/i18n';
import { ERROR_CODES } from '../../main/core/errors';
import { UNAUTHORIZED_FIX, USB_PERMISSION_FIX } from '../../main/core/devices/adb-state-reason';

const areas = Object.entries(catalogue) as Array<
  [string, { en: Record<string, string>; 'zh-CN': Record<string, string> }]
>;
const CJK = /[\u4e00-\u9fff]/;

function markup(message: string): string[] {
  return [...message.matchAll(/<\/?(b|code)>/g)].map((m) => m[0]);
}

void describe('catalogue completeness', () => {
  void test('every area, every language: the same keys', () => {
    assert.ok(
      areas.length >= 13,
      'common, devices, phone-check, phone-view, helper, bindings, approvals, activity, settings, lan, pairings, tray, errors',
    );
    for (const [area, messages] of areas) {
      for (const locale of LOCALES) {
        const missing = Object.keys(messages.en).filter((key) => !(key in messages[locale]));
        const extra = Object.keys(messages[locale]).filter((key) => !(key in messages.en));
        assert.deepEqual(missing, [], `${area}: keys missing in ${locale}`);
        assert.deepEqual(extra, [], `${area}: keys in ${locale} that English does not have`);
      }
    }
  });

  void test('no empty message, placeholders and markup identical in both languages', () => {
    for (const [area, messages] of areas) {
      for (const [key, en] of Object.entries(messages.en)) {
        const zh = messages['zh-CN'][key] ?? '';
        assert.notEqual(en.trim(), '', `${area}.${key} is empty in en`);
        assert.notEqual(zh.trim(), '', `${area}.${key} is empty in zh-CN`);
        assert.deepEqual(
          [...placeholderNames(zh)].sort(),
          [...placeholderNames(en)].sort(),
          `${area}.${key}: placeholders differ`,
        );
        assert.deepEqual(markup(zh), markup(en), `${area}.${key}: <b>/<code> markup differs`);
      }
    }
  });

  void test('the Chinese catalogue is Chinese: most messages carry CJK characters', () => {
    let total = 0;
    let chinese = 0;
    for (const [, messages] of areas) {
      for (const zh of Object.values(messages['zh-CN'])) {
        total += 1;
        if (CJK.test(zh)) chinese += 1;
      }
    }
    // The rest are names and units the same in both (ADB 服务 counts; "English", "{n} ms" do not).
    assert.ok(chinese / total > 0.85, `${chinese} of ${total} zh-CN messages contain Chinese`);
  });

  void test('every stable error code of the bridge has an explanation', () => {
    const missing = ERROR_CODES.filter((code) => !hasMessage(`errors.${code}`));
    assert.deepEqual(missing, []);
  });
});

void describe('translate and interpolate', () => {
  void test('parameters and plurals in both languages', () => {
    assert.equal(translate('en', 'devices.stop.done', { count: 1 }), 'Stopped 1 action.');
    assert.equal(translate('en', 'devices.stop.done', { count: 3 }), 'Stopped 3 actions.');
    assert.equal(translate('zh-CN', 'devices.stop.done', { count: 3 }), '已停止 3 个操作。');
    assert.equal(translate('zh-CN', 'devices.countOnline', { online: 2, total: 3 }), '2/3 台在线');
    assert.equal(interpolate('en', '{n, plural, =0 {none} one {# item} other {# items}}', { n: 0 }), 'none');
    assert.equal(interpolate('en', 'Hi {name}, {missing}', { name: 'Ann' }), 'Hi Ann, {missing}');
  });

  void test('an unknown key shows itself instead of throwing', () => {
    assert.equal(translate('zh-CN', 'devices.nope' as MessageKey), 'devices.nope');
    assert.equal(hasMessage('devices.nope'), false);
    assert.equal(hasMessage('devices.title'), true);
  });
});

void describe('choosing the language', () => {
  void test('pickLocale: the first language we speak wins; Chinese of any region reads Simplified Chinese', () => {
    assert.equal(pickLocale(['zh-CN', 'en-US']), 'zh-CN');
    assert.equal(pickLocale(['zh']), 'zh-CN');
    assert.equal(pickLocale(['zh-Hans-SG']), 'zh-CN');
    assert.equal(pickLocale(['zh-TW']), 'zh-CN');
    assert.equal(pickLocale(['zh_CN']), 'zh-CN');
    assert.equal(pickLocale(['en-GB', 'zh-CN']), 'en');
    assert.equal(pickLocale(['fr-FR', 'de', 'zh-CN']), 'zh-CN');
    assert.equal(pickLocale(['fr-FR']), 'en');
    assert.equal(pickLocale([]), 'en');
  });

  void test('the Settings choice beats the system languages', () => {
    assert.equal(resolveLocale('en', ['zh-CN']), 'en');
    assert.equal(resolveLocale('zh-CN', ['en-US']), 'zh-CN');
    assert.equal(resolveLocale('system', ['zh-CN']), 'zh-CN');
    assert.equal(resolveLocale(undefined, ['en-US']), 'en');
  });
});

void describe('formatters follow the language', () => {
  const now = Date.UTC(2026, 4, 20, 12, 0, 0);
  const en = formatters('en');
  const zh = formatters('zh-CN');

  void test('relative times, countdowns, durations, limits', () => {
    assert.equal(en.relative(now - 5 * 60_000, now), '5 min ago');
    assert.equal(zh.relative(now - 5 * 60_000, now), '5 分钟前');
    assert.equal(zh.relative(now + 10 * 60_000, now), '10 分钟后');
    assert.equal(zh.relative(now - 3_000, now), '刚刚');
    assert.equal(en.countdown(5_460_000), '1 h 31 min');
    assert.equal(zh.countdown(5_460_000), '1 小时 31 分');
    assert.equal(zh.countdown(0), '已过期');
    assert.equal(zh.countdown(245_000), '4:05');
    assert.equal(en.duration(1_234), '1.2 s');
    assert.equal(zh.duration(1_234), '1.2 秒');
    assert.equal(zh.duration(125_000), '2 分 05 秒');
    assert.equal(zh.limit(90 * 60_000), '1 小时 30 分钟');
    assert.equal(zh.limit(null), '无');
    assert.equal(zh.secondsLeft(4_200), '5 秒后');
  });

  void test('dates: English and Chinese order and words', () => {
    const may1 = new Date(2024, 4, 1, 14, 3, 27).getTime();
    assert.equal(en.clock(may1, now), '2024-05-01 14:03');
    assert.equal(zh.clock(may1, now), '2024年5月1日 14:03');
    assert.equal(zh.clock(now - 1000, now).length, 8);
    assert.match(zh.dateTime(may1), /^2024年5月1日/);
    assert.match(en.dateTime(may1), /May 1, 2024/);
  });
});

void describe('the phone check speaks the catalogue', () => {
  void test('the fixes the bridge also tells agents are the catalogue’s English words', () => {
    assert.equal(translate('en', 'phone-check.fix.unauthorized'), UNAUTHORIZED_FIX);
    assert.equal(translate('en', 'phone-check.fix.usbPermission'), USB_PERMISSION_FIX);
  });

  void test('a row in Chinese: the same key and parameters, other words', () => {
    const key = 'phone-check.detail.displayOnly';
    assert.equal(
      translate('en', key, { width: 1080, height: 2400 }),
      'display 0 (default), 1080×2400, the only display',
    );
    assert.equal(translate('zh-CN', key, { width: 1080, height: 2400 }), '显示屏 0（默认），1080×2400，唯一的显示屏');
  });
});
