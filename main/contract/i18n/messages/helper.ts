/**
 * The open-ports helper (appium-uiautomator2-server) area (device card and Settings sections): English and Simplified Chinese.
 * Add each key to both objects; the zh-CN object must have exactly the English keys.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    explain:
      'Off by default on every phone. Turning it on installs appium-uiautomator2-server {version} (Apache-2.0, two APKs) on this phone and runs it while an agent holds a lease, for faster taps, typing in any language without a keyboard app, and screen reads. While it runs it listens on the phone’s ports 6790 and 7810 with no password: any app on this phone, and any computer on a network the phone is on, can control the phone through them. The bridge starts only its own copy, looks every 2 seconds for connections to those ports that it did not make (also ones that already ended) and stops it when it finds one, but whatever such a connection did before that is done, and a connection that is reset instead of closed leaves nothing to find. Turn it on only for a phone without apps you do not trust, on a network you trust.',
    enable: 'Turn on, with open ports',
    enableAgain: 'Turn on again',
    disable: 'Turn off',
    remove: 'Remove from phone',
    unavailable: 'This build carries no appium-uiautomator2-server APKs.',
    'network.addresses':
      'This phone is on a network ({addresses}): while it runs, computers there can reach ports 6790 and 7810.',
    'guard.watching':
      'Running: ports 6790 and 7810 are open to any app on this phone and any computer on its network. The bridge looks every 2 s for connections it did not make and stops it when it finds one.',
    'guard.foreign': 'Stopped to keep the phone safe: something other than the bridge connected to it.',
    'guard.notVerified': 'Not started: the copy installed on the phone is not the bridge’s.',
    'settings.title': 'appium-uiautomator2-server (open ports)',
    'settings.explain':
      'An opt-in for each phone, off on every phone, with no lab-wide switch: turn it on from a phone’s card, where it says what it exposes. Without it the bridge never installs or starts it, and everything goes the stock adb way.',
  },
  {
    explain:
      '每台手机默认关闭。开启后会在这台手机上安装 appium-uiautomator2-server {version}（Apache-2.0，两个 APK），并在智能体持有租约期间运行，使点击、输入（任何语言，无需输入法应用）和读取屏幕更快。运行时它在手机的 6790 和 7810 端口上监听，没有密码：这台手机上的任何应用，以及手机所在网络上的任何电脑，都可以通过这些端口操控手机。桥接器只启动它自己的副本，每 2 秒查看一次这些端口上是否有不是它建立的连接（包括已经结束的连接），发现后即停止它；但这样的连接在此之前做的事已经做了，而以重置而非正常关闭结束的连接不会留下任何痕迹。只在手机上没有你不信任的应用、且所在网络可信时开启。',
    enable: '开启（开放端口）',
    enableAgain: '重新开启',
    disable: '关闭',
    remove: '从手机上移除',
    unavailable: '此版本未包含 appium-uiautomator2-server 的 APK。',
    'network.addresses': '这台手机连着网络（{addresses}）：它运行时，该网络上的电脑可以访问 6790 和 7810 端口。',
    'guard.watching':
      '运行中：6790 和 7810 端口向这台手机上的任何应用和其网络上的任何电脑开放。桥接器每 2 秒查看一次是否有不是它建立的连接，发现后即停止它。',
    'guard.foreign': '为保护手机已停止：有桥接器以外的东西连接了它。',
    'guard.notVerified': '未启动：手机上安装的副本不是桥接器的。',
    'settings.title': 'appium-uiautomator2-server（开放端口）',
    'settings.explain':
      '逐台手机选择开启，每台手机默认关闭，没有全实验室的开关：在手机卡片上开启，卡片上写明它会暴露什么。未开启时，桥接器从不安装或启动它，一切都走常规 adb 方式。',
  },
);
