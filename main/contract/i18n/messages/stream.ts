/**
 * Screen stream area (a phone's "Fast live screen" on its card and view, Settings → Screen
 * stream): minicap, run only with the person's consent. English and Simplified Chinese.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    toggle: 'Fast live screen',
    toggleTitle: 'Run minicap on this phone while it is leased or its live view is watched',
    explain:
      'Copies minicap (Apache-2.0) to this phone and runs it only while the phone is leased or its live view is watched, so the live view follows the screen (20–30+ frames a second) and the agent’s screenshots come faster. Reached only through adb: nothing listens on the phone’s network. Stopped and removed afterwards.',
    fps: '{fps, plural, one {# frame a second} other {# frames a second}}',
    fpsFor: '{fps, plural, one {# frame a second} other {# frames a second}}, {purpose}',
    'for.lease': 'for the lease',
    'for.view': 'for this view',
    'for.liveView': 'for the live view',
    'for.leaseAndView': 'for the lease and this view',
    'for.leaseAndLiveView': 'for the lease and the live view',
    'settings.title': 'Screen stream',
    'settings.explain':
      'A program, minicap (Apache-2.0, from the @u4/minicap-prebuilt package shipped with the bridge), is copied to the phone’s /data/local/tmp/xagent-minicap and runs only while the phone is leased or its live view is watched. The bridge reaches it only through adb: nothing listens on the phone’s network. When neither need remains, it is stopped and its files are removed. It makes the live view follow the screen (20–30+ frames a second) and the agent’s screenshots faster. A person turns it on per phone (“Fast live screen” on its card or view), or for every phone here.',
    'settings.default': 'Default for phones',
    'settings.ask': 'Ask: only phones a person turned it on for',
    'settings.on': 'On: every phone unless turned off on it',
    'settings.version': 'Package version: {version}',
    'settings.unavailable':
      'This build has no minicap files: the live view and the agent’s screenshots use the other ways.',
  },
  {
    toggle: '快速实时画面',
    toggleTitle: '在这台手机被租用或有人观看其实时画面时运行 minicap',
    explain:
      '把 minicap（Apache-2.0）复制到这台手机上，只在手机被租用或有人观看其实时画面时运行，让实时画面跟上屏幕（每秒 20–30 帧以上），智能体的截图也更快。只通过 adb 访问：不在手机的网络上监听任何端口。用完即停止并删除。',
    fps: '每秒 {fps} 帧',
    fpsFor: '每秒 {fps} 帧，{purpose}',
    'for.lease': '用于租约',
    'for.view': '用于此页面的实时画面',
    'for.liveView': '用于实时画面',
    'for.leaseAndView': '用于租约和此页面的实时画面',
    'for.leaseAndLiveView': '用于租约和实时画面',
    'settings.title': '屏幕流',
    'settings.explain':
      '一个程序 minicap（Apache-2.0，来自随桥接器附带的 @u4/minicap-prebuilt 软件包）会被复制到手机的 /data/local/tmp/xagent-minicap，只在手机被租用或有人观看其实时画面时运行。桥接器只通过 adb 访问它：不在手机的网络上监听任何端口。两种需要都不再存在时，它会被停止，文件也会被删除。它让实时画面跟上屏幕（每秒 20–30 帧以上），智能体的截图也更快。可以在每台手机上逐台开启（卡片或手机页面上的“快速实时画面”），也可以为这里的所有手机开启。',
    'settings.default': '手机的默认设置',
    'settings.ask': '询问：仅限有人开启过的手机',
    'settings.on': '开启：所有手机，除非在手机上关闭',
    'settings.version': '软件包版本：{version}',
    'settings.unavailable': '此版本未包含 minicap 文件：实时画面和智能体的截图使用其他方式。',
  },
);
