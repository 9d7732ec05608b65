/**
 * Fast lane helper area (device card and Settings sections): English and Simplified Chinese.
 * Add each key to both objects; the zh-CN object must have exactly the English keys.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    title: 'Fast lane',
    explain:
      'Installs a small helper (appium-uiautomator2-server {version}, Apache-2.0: two APKs) on this phone that runs while an agent holds a lease, so taps, typing (any language, no ADB Keyboard) and screen reads are much faster. While it runs it listens on the phone’s ports 6790 and 7810 with no password: the bridge starts it on a phone that is on a network (Wi-Fi, mobile data) only after you allow it, checks that the installed helper is its own copy, and stops it the moment anything else connects.',
    enable: 'Enable fast lane',
    enableAgain: 'Enable again',
    disable: 'Turn off',
    remove: 'Remove helper',
    working: 'Working…',
    unavailable: 'This build carries no helper APKs.',
    'state.absent': 'not installed',
    'state.installing': 'installing…',
    'state.stopped': 'installed, starts with the next call',
    'state.starting': 'starting…',
    'state.running': 'running',
    'state.failed': 'failed',
    state: 'Helper: {state}',
    version: 'version {version}',
    lastError: 'Last error: {error}',
    lanes: 'Calls: {helper} fast lane, {adb} stock',
    paused: 'Stopped for a while after a screen it could not read fully; the stock lane serves until then.',
    byDefault: 'On by the lab-wide default.',
    'network.exposed':
      'This phone is on a network ({addresses}). While the helper runs, anyone who can reach the phone there could drive it through ports 6790 and 7810, with no password. The bridge stops it the moment anything but the bridge connects, but it cannot stop the first request. Allow it only on a network you trust.',
    'network.accepted':
      'Allowed on this phone’s network ({addresses}); the bridge stops the helper the moment anything but the bridge connects.',
    'network.accept': 'Allow on this network',
    'guard.watching': 'Only the bridge may connect to the helper: the bridge checks every 2 s and stops it otherwise.',
    'guard.foreign': 'Stopped to keep the phone safe: something other than the bridge connected to the helper.',
    'guard.notVerified': 'Not started: the helper installed on the phone is not the bridge’s copy.',
    'settings.title': 'Fast lane',
    'settings.explain':
      'The fast lane installs a resident helper on a phone and uses it for the UI tree, taps, swipes, keys and typing; anything it cannot do goes the stock adb way in the same call. A person enables it per phone on its card, or for every phone here.',
    'settings.default': 'Default for phones',
    'settings.ask': 'Ask: only phones enabled on their card',
    'settings.on': 'On: every phone unless turned off on its card',
    'settings.saved': 'Saved.',
    'settings.network': 'Allow the helper on phones that are on a network',
    'settings.networkExplain':
      'Off: a phone with a Wi-Fi or mobile-data address runs the helper only after a person allows it on the phone’s card. On: for a lab whose phones sit on its own closed network. Either way the bridge stops the helper the moment anything but the bridge connects to it.',
  },
  {
    title: '快速通道',
    explain:
      '在这台手机上安装一个小助手（appium-uiautomator2-server {version}，Apache-2.0：两个 APK），在智能体持有租约期间运行，使点击、输入（任何语言，无需 ADB Keyboard）和读取屏幕快得多。运行时它在手机的 6790 和 7810 端口上监听，没有密码：手机连着网络（Wi-Fi、移动数据）时，只有在你允许后桥接器才会启动它；桥接器会核对已安装的助手是否是它自己的副本，一旦有其他任何东西连接，会立即停止它。',
    enable: '启用快速通道',
    enableAgain: '重新启用',
    disable: '关闭',
    remove: '移除助手',
    working: '处理中…',
    unavailable: '此版本未包含助手 APK。',
    'state.absent': '未安装',
    'state.installing': '正在安装…',
    'state.stopped': '已安装，下次调用时启动',
    'state.starting': '正在启动…',
    'state.running': '运行中',
    'state.failed': '失败',
    state: '助手：{state}',
    version: '版本 {version}',
    lastError: '最近的错误：{error}',
    lanes: '调用：快速通道 {helper} 次，常规 {adb} 次',
    paused: '遇到无法完整读取的屏幕后暂停一段时间；在此期间由常规通道处理。',
    byDefault: '由全实验室的默认设置启用。',
    'network.exposed':
      '这台手机连着网络（{addresses}）。助手运行时，能在该网络上访问这台手机的任何人都可以通过 6790 和 7810 端口操控它，无需密码。一旦有桥接器以外的连接，桥接器会立即停止助手，但无法阻止第一个请求。只在你信任的网络上允许。',
    'network.accepted': '已允许在这台手机的网络上运行（{addresses}）；一旦有桥接器以外的连接，桥接器会立即停止助手。',
    'network.accept': '允许在此网络上运行',
    'guard.watching': '只有桥接器可以连接助手：桥接器每 2 秒检查一次，发现其他连接即停止它。',
    'guard.foreign': '为保护手机已停止：有桥接器以外的东西连接了助手。',
    'guard.notVerified': '未启动：手机上安装的助手不是桥接器自己的副本。',
    'settings.title': '快速通道',
    'settings.explain':
      '快速通道会在手机上安装一个常驻助手，用于界面树、点击、滑动、按键和输入；它做不到的操作会在同一次调用中改走常规 adb 方式。可以在每台手机的卡片上逐台启用，也可以为这里的所有手机启用。',
    'settings.default': '手机的默认设置',
    'settings.ask': '询问：仅限在卡片上启用的手机',
    'settings.on': '开启：所有手机，除非在卡片上关闭',
    'settings.saved': '已保存。',
    'settings.network': '允许在连着网络的手机上运行助手',
    'settings.networkExplain':
      '关闭：有 Wi-Fi 或移动数据地址的手机，只有在有人于手机卡片上允许后才运行助手。开启：适用于手机位于自己封闭网络中的实验室。无论哪种，一旦有桥接器以外的连接，桥接器都会立即停止助手。',
  },
);
