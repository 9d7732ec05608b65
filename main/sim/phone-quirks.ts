/**
 * Named quirks a simulated phone can carry: the ways phones people own fail, each
 * reproducing the real phone's output, exit status and (where it matters) timing. Where
 * each one comes from and what the bridge does about it: main/sim/QUIRKS.md.
 */
import type { TimingProfile } from './timing-profiles';

export const QUIRK_NAMES = [
  /** MIUI/HyperOS without "USB debugging (Security settings)": every `input` injection throws SecurityException. */
  'inject-events-denied',
  /** "Install via USB" off (Xiaomi): `pm install` answers INSTALL_FAILED_USER_RESTRICTED. */
  'install-user-restricted',
  /** A newer version of the app is installed: INSTALL_FAILED_VERSION_DOWNGRADE. */
  'install-version-downgrade',
  /** The phone's storage is full: INSTALL_FAILED_INSUFFICIENT_STORAGE. */
  'install-insufficient-storage',
  /** "Verify apps over USB": the install waits for the verifier prompt, nobody answers, INSTALL_FAILED_VERIFICATION_FAILURE. */
  'install-verifier-timeout',
  /** Animation or video never lets the UI settle: `uiautomator dump` waits 10 s, then "ERROR: could not get idle state.". */
  'ui-dump-idle-timeout',
  /** No active window root (screen off, transitions, some Android 9 builds): "ERROR: null root node returned by UiTestAutomationBridge.". */
  'ui-dump-null-root',
  /** The dump is an empty `<hierarchy rotation="0" />`. */
  'ui-dump-empty',
  /** The dump says it was written, but nothing can be read back (no XML on /dev/tty, the file is missing). */
  'ui-dump-unreadable',
  /** The screen holds several thousand nodes (a long web page, a big grid). */
  'ui-huge-tree',
  /** The runtime permission prompt (GrantPermissionsActivity, "Allow … to …?") over the app in front until a button or BACK answers it. */
  'permission-dialog',
  /** "App isn't responding" (window `Application Not Responding: <pkg>`, Close app / Wait) over the app in front until answered. */
  'anr-dialog',
  /** 5 % and not charging (a phone on Wi-Fi, or a USB port that gives too little current): the status bar shows it, `dumpsys battery` says status 3, unplugged. */
  'low-battery',
  /** adbd without the `shell_v2` feature (vendor adbd, Android < 7): `shell,v2,…` is refused; `shell:` merges stderr into stdout and sends no exit status. */
  'no-shell-v2',
  /** The screen is off (mWakefulness=Asleep) until a wake key or the power button. */
  'screen-off',
  /** Always-on display: the screen dozes (mWakefulness=Dozing, Display Power: state=DOZE) until woken. */
  'dozing',
  /** A lock screen without a secret (swipe): the keyguard shows, secure=false, until the person unlocks. */
  'locked-swipe',
  /** A lock screen with a PIN or pattern: the keyguard shows, secure=true, until the person unlocks. */
  'locked-pin',
  /** A Chinese-language phone (zh-CN): launcher labels, buttons and pages in Simplified Chinese; persist.sys.locale=zh-CN. */
  'zh-cn',
  /** The resident helper's instrumentation dies on the next action request (once per time the quirk is set): its connection resets, its port refuses. */
  'helper-crash',
  /** The system kills the resident helper's process a while after it started (background killers, low memory). */
  'helper-killed',
  /** `pm install` of the helper's APKs is refused (INSTALL_FAILED_USER_RESTRICTED); other installs work. */
  'helper-install-refused',
  /** The helper's server answers only after many seconds (slow or busy phone). */
  'helper-slow-start',
  /** The helper's page source misses content `uiautomator dump` sees (React Native new architecture, custom views). */
  'helper-sparse-tree',
  /** After a navigation the helper's page source shows the previous screen for a few reads. */
  'helper-stale-tree',
  /** The phone refuses to start the helper's instrumentation (`am instrument` fails with a SecurityException). */
  'helper-no-instrumentation',
  /** Turned a quarter clockwise (rotation 1): landscape pixels, taps and dump bounds; `wm size` still says the portrait size. */
  'landscape',
  /** Turned the other way (rotation 3, "seascape"). */
  'reverse-landscape',
  /** A tablet whose natural orientation is landscape (2560x1600 at rotation 0, Samsung Galaxy Tab class). */
  'landscape-tablet',
  /** `wm size` override in force: `Physical size:` and `Override size:`; apps, taps and screenshots use the override. */
  'wm-size-override',
  /** `wm density` override in force: `Physical density:` and `Override density:`. */
  'wm-density-override',
  /** A foldable (Pixel Fold): inner and outer panels, folded (outer in use) until setFolded(false); screencap without -d warns on stderr. */
  'foldable',
  /** Casting to a second (virtual) display, logical display 2, while the phone's own screen stays display 0. */
  'cast-second-display',
  /** agent-device's snapshot helper's process dies during every read (an app killer, low memory, a ROM's accessibility crash): `am` prints `shortMsg=Process crashed.`. */
  'snapshot-helper-crash',
  /** minicap segfaults on this phone (Samsung Galaxy S5 Neo class): `-t` crashes, a stream dies after a few frames. */
  'minicap-segfault',
  /** The focused field ignores the PASTE key (a password or PIN field, some banking apps): text pasted through the clipboard never arrives. */
  'field-refuses-paste',
  /** The phone refuses the shell user's clipboard calls (some Android 10 builds, Meizu): scrcpy-server's control thread dies with a SecurityException. */
  'clipboard-refused',
  /** A stripped ROM without /system/framework/uiautomator.jar: stock `uiautomator` and the bridge's UI reader cannot load their classes. */
  'no-uiautomator-jar',
] as const;

export type QuirkName = (typeof QUIRK_NAMES)[number];

export function isQuirkName(value: string): value is QuirkName {
  return (QUIRK_NAMES as readonly string[]).includes(value);
}

/** Checks a list of quirk names; throws a TypeError naming the unknown ones and the known list. */
export function checkQuirks(names: readonly string[]): QuirkName[] {
  const unknown = names.filter((n) => !isQuirkName(n));
  if (unknown.length > 0) {
    throw new TypeError(
      `unknown quirk${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known quirks: ${QUIRK_NAMES.join(', ')}`,
    );
  }
  return [...new Set(names as QuirkName[])];
}

/** `a,b,c` (the `--quirks` flag) as checked names; empty items are ignored. */
export function parseQuirkList(text: string): QuirkName[] {
  return checkQuirks(
    text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}

/** How many nodes `ui-huge-tree` adds to the front window's dump. */
export const HUGE_TREE_NODES = 6_000;

/**
 * How long a real phone takes before giving up: DumpCommand waits for idle with a 10 s global
 * timeout; the package verifier's default timeout is 10 s. Instant phones wait a token time.
 */
export function quirkWaitMs(profile: TimingProfile, what: 'idle' | 'verifier'): number {
  if (!profile.realDurations) return what === 'idle' ? 0 : 50;
  return 10_000;
}

/**
 * The `ui-huge-tree` rows: a grid of small clickable cells inside the screen, spliced into
 * the front window's dump just before its root closes.
 */
export function hugeTreeNodes(pkg: string, width: number, height: number): string {
  const columns = 20;
  const rows = Math.ceil(HUGE_TREE_NODES / columns);
  const cellW = Math.max(1, Math.floor(width / columns));
  const cellH = Math.max(1, Math.floor(height / rows));
  const out: string[] = [];
  for (let i = 0; i < HUGE_TREE_NODES; i++) {
    const left = (i % columns) * cellW;
    const top = Math.floor(i / columns) * cellH;
    out.push(
      `<node index="${i}" text="Cell ${i + 1}" resource-id="${pkg}:id/cell" class="android.widget.TextView" package="${pkg}" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[${left},${top}][${left + cellW},${top + cellH}]" />`,
    );
  }
  return out.join('');
}

/** The locale a phone with `zh-cn` reports (`persist.sys.locale`, `ro.product.locale`). */
export const ZH_CN_LOCALE = 'zh-CN';

/**
 * What the sim's screens show on a zh-CN phone: each English string of the screen model and
 * its Simplified Chinese form (AOSP / Pixel zh-CN wording where the app is a system app).
 * Strings not listed (names, amounts, typed text) stay as they are.
 */
const ZH_CN_TEXT: ReadonlyMap<string, string> = new Map([
  // launcher labels and recents
  ['Settings', '设置'],
  ['Wallet', '钱包'],
  ['Notes', '笔记'],
  ['Login', '登录'],
  ['Play Store', 'Play 商店'],
  ['Long list', '长列表'],
  ['Chrome', 'Chrome'],
  ['Pixel Launcher', 'Pixel 启动器'],
  ['Clear all', '全部清除'],
  ['No recent items', '近期没有任何内容'],
  // wallet
  ['Balance', '余额'],
  ['Recent activity', '最近活动'],
  ['Confirm payment', '确认付款'],
  ['Cancel', '取消'],
  ['Receipt', '付款凭证'],
  ['Payment sent', '付款成功'],
  ['Done', '完成'],
  ['OK', '确定'],
  // settings
  ['Network & internet', '网络和互联网'],
  ['Mobile, Wi\u2011Fi, hotspot', '移动网络、WLAN、热点'],
  ['Connected devices', '已连接的设备'],
  ['Bluetooth, pairing', '蓝牙、配对'],
  ['Apps', '应用'],
  ['Assistant, recent apps, default apps', '助理、最近使用的应用、默认应用'],
  ['Battery', '电池'],
  ['Display', '显示'],
  ['Dark theme, font size, brightness', '深色主题、字号、亮度'],
  ['Security & privacy', '安全和隐私'],
  ['App security, device lock, permissions', '应用安全、设备锁定、权限'],
  ['About phone', '关于手机'],
  ['Internet', '互联网'],
  ['Airplane mode', '飞行模式'],
  ['Screen lock', '屏幕锁定'],
  ['None', '无'],
  ['Find My Device', '查找我的设备'],
  ['On', '已开启'],
  ['Factory reset', '恢复出厂设置'],
  ['Erase all data', '清除所有数据'],
  ['Device name', '设备名称'],
  ['Model', '型号'],
  ['Android version', 'Android 版本'],
  ['Build number', '版本号'],
]);

/** Strings built around a value (an amount, a balance). */
const ZH_CN_PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^Pay (\$[\d,]+\.\d\d)$/, (m) => `立即支付 ${m[1]}`],
  [/^Send (\$[\d,]+\.\d\d) to (.+)\?$/, (m) => `向 ${m[2]} 支付 ${m[1]}？`],
  [/^New balance: (.+)$/, (m) => `新余额：${m[1]}`],
];

/** `text` as a zh-CN phone shows it (unchanged when the screen model has no Chinese for it). */
export function zhCnText(text: string): string {
  if (text === '') return text;
  const exact = ZH_CN_TEXT.get(text);
  if (exact !== undefined) return exact;
  for (const [re, make] of ZH_CN_PATTERNS) {
    const m = re.exec(text);
    if (m) return make(m);
  }
  return text;
}
