/**
 * Fast lane helper area (device card and Settings sections): English and Simplified Chinese.
 * Add each key to both objects; the zh-CN object must have exactly the English keys.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    title: 'Fast lane',
    explain:
      'Installs a small helper (appium-uiautomator2-server {version}, Apache-2.0: two APKs) on this phone that stays running while an agent works, so taps, typing (any language, no ADB Keyboard) and screen reads are much faster.',
    enable: 'Enable fast lane',
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
    'settings.title': 'Fast lane',
    'settings.explain':
      'The fast lane installs a resident helper on a phone and uses it for the UI tree, taps, swipes, keys and typing; anything it cannot do goes the stock adb way in the same call. A person enables it per phone on its card, or for every phone here.',
    'settings.default': 'Default for phones',
    'settings.ask': 'Ask: only phones enabled on their card',
    'settings.on': 'On: every phone unless turned off on its card',
    'settings.saved': 'Saved.',
  },
  {
    title: '快速通道',
    explain:
      '在这台手机上安装一个小助手（appium-uiautomator2-server {version}，Apache-2.0：两个 APK），在智能体工作时保持运行，使点击、输入（任何语言，无需 ADB Keyboard）和读取屏幕快得多。',
    enable: '启用快速通道',
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
    'settings.title': '快速通道',
    'settings.explain':
      '快速通道会在手机上安装一个常驻助手，用于界面树、点击、滑动、按键和输入；它做不到的操作会在同一次调用中改走常规 adb 方式。可以在每台手机的卡片上逐台启用，也可以为这里的所有手机启用。',
    'settings.default': '手机的默认设置',
    'settings.ask': '询问：仅限在卡片上启用的手机',
    'settings.on': '开启：所有手机，除非在卡片上关闭',
    'settings.saved': '已保存。',
  },
);
