/**
 * "Programs on this phone" on a device card (renderer/src/features/devices/programs-panel.tsx):
 * every program the bridge runs on a phone — scrcpy-server, the xagent UI reader and agent-device's
 * snapshot helper (through adb only), appium-uiautomator2-server (open ports, opt-in), minicap (the screen stream).
 * English and Simplified Chinese; add each key to both objects.
 *
 * Every sentence here is checked against main/core/phone-programs/phone-programs.ts and its
 * tests (test/integration/phone-programs.test.ts): say what they do, no more.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    title: 'Programs on this phone',
    summary:
      'scrcpy-server, the UI reader and the snapshot helper run only while an agent holds this phone’s lease, and are reached only through USB debugging (adb): nothing of theirs listens where an app or the network could reach it. The switch here acts on these three.',
    'name.scrcpy_input': 'scrcpy-server',
    'name.snapshot_tree': 'agent-device snapshot helper',
    'name.ui_reader': 'xagent UI reader',
    'name.uia2_server': 'appium-uiautomator2-server (open ports)',
    'name.minicap_stream': 'minicap (screen stream)',
    'stream.fps': '{fps} frames a second',
    'consent.uia2_server':
      'Off on every phone until you turn it on below, after reading what it exposes: while it runs, any app on this phone and any computer on its network can control the phone without a password.',
    'consent.minicap_stream':
      'Runs through adb only, while the phone is leased or its live view is watched, where the lab’s default or your choice below allows it.',
    'state.uia2_server.idle': 'not running; starts at a lease’s next call that can use it',
    'state.uia2_server.starting': 'installing or starting…',
    'state.uia2_server.ready': 'running, ports 6790 and 7810 open',
    'state.minicap_stream.idle': 'not running; runs while the phone is leased or its live view is watched',
    'state.minicap_stream.starting': 'starting…',
    'state.minicap_stream.ready': 'running',
    'scrcpy.what':
      'scrcpy-server taps, swipes, presses keys and types: plain ASCII as key presses, other text pasted through the clipboard, which is emptied at the lease’s end if it still holds what the agent pasted. It also reads the phone’s list of apps with their names, so the timeline and Activity say “Notes” rather than a package. It is stopped at the lease’s end and after {idle} without use.',
    'snapshot.what':
      'The snapshot helper is an app (com.callstack.agentdevice.snapshothelper) that reads the screen’s elements; it runs only for each read of the screen.',
    'ui_reader.what':
      'The UI reader is the bridge’s own small program that reads the screen’s elements the way “uiautomator dump” does, kept running so each read is quick. Only the bridge’s USB debugging (adb) connection reaches it. While it runs it holds the phone’s UI automation, as every “uiautomator dump” does while it reads: appium-uiautomator2-server does not run beside it, and accessibility services such as TalkBack are held back. It is stopped at the lease’s end and after {idle} without use.',
    'off.what':
      'Turn off leaves this phone to the stock adb commands: slower, and text other than ASCII then needs ADB Keyboard. Remove from phone also deletes the files of scrcpy-server and the UI reader and uninstalls the snapshot helper app.',
    disable: 'Turn off',
    enable: 'Turn on',
    remove: 'Remove from phone',
    working: 'Working…',
    version: 'version {version}',
    'state.scrcpy_input.idle': 'not running; starts at a lease’s next call',
    'state.scrcpy_input.starting': 'starting…',
    'state.scrcpy_input.ready': 'running',
    'state.snapshot_tree.idle': 'checked at a lease’s next call',
    'state.snapshot_tree.starting': 'checking the app on the phone…',
    'state.snapshot_tree.ready': 'checked; runs for each read',
    'state.ui_reader.idle': 'not running; starts at a lease’s next call',
    'state.ui_reader.starting': 'checking its file and starting…',
    'state.ui_reader.ready': 'running',
    'state.failed': 'failed; stock adb serves',
    'state.unavailable': 'not available',
    'state.off': 'off',
    served: 'Calls: {served} by it, {fell_back} by stock adb instead',
    lastError: 'Last error: {error}',
    retryIn: 'tried again {time}',
    retryNext: 'tried again at the next call',
    retryEnable: 'stays off until you turn it on again',
    'reason.uia2_crashed':
      'appium-uiautomator2-server stopped on the phone; it starts again at a later call, unless it stopped twice in 10 minutes.',
    'reason.uia2_check_unreadable':
      'The phone did not answer the check of appium-uiautomator2-server’s files; it is checked again at a later call.',
    'reason.uia2_paused': 'Stopped for a while after a screen it could not read fully; stock adb serves until then.',
    'reason.uia2_not_verified':
      'Not started to keep the phone safe: the copy installed on the phone is not the bridge’s. Turn it on again to install the bridge’s copy.',
    'reason.uia2_foreign_connection':
      'Stopped to keep the phone safe: something other than the bridge connected to its ports.',
    'reason.uia2_no_instrumentation': 'This phone cannot run appium-uiautomator2-server’s instrumentation.',
    'reason.uia2_install_refused':
      'The phone refused to install appium-uiautomator2-server; look at the phone for a prompt, or allow installs over USB in Developer options.',
    'reason.uia2_start_failed': 'appium-uiautomator2-server did not start on the phone.',
    'unavailable.build': 'This build does not carry it; stock adb serves.',
    'unavailable.phone': 'This phone cannot run it; stock adb serves until the phone reconnects.',
    'reason.inject_denied':
      'This phone refuses input from USB debugging. On Xiaomi, Redmi or POCO: Settings → Additional settings → Developer options → turn on “USB debugging (Security settings)”, then restart the phone.',
    'reason.android_too_old': 'This phone’s Android is too old for it; stock adb serves.',
    'reason.clipboard_refused':
      'This phone refuses the clipboard to programs over USB debugging; text is typed another way.',
    'reason.version_mismatch':
      'The phone held another version of scrcpy-server; the bridge puts its own back at the next start.',
    'reason.jar_unreadable': 'The phone could not load scrcpy-server; the bridge replaces its copy at the next start.',
    'reason.server_crashed': 'scrcpy-server stopped on the phone; it is started again at a later call.',
    'reason.apk_missing': 'This build’s snapshot helper APK is missing; reinstall the bridge.',
    'reason.apk_tampered':
      'This build’s snapshot helper APK is not the shipped file, so it was not installed; reinstall the bridge.',
    'reason.install_refused':
      'The phone refused to install the snapshot helper; look at the phone for a prompt, or allow installs over USB in Developer options.',
    'reason.install_unverified':
      'After installing, the phone held other bytes than the snapshot helper’s; uninstall com.callstack.agentdevice.snapshothelper from the phone.',
    'reason.not_installed': 'The snapshot helper is not installed on the phone; it is installed again at a later call.',
    'reason.start_refused': 'The phone would not start the snapshot helper.',
    'reason.crashed': 'The snapshot helper stopped during a read; the stock dump read the screen.',
    'reason.timeout': 'The snapshot helper did not answer in time; the stock dump read the screen.',
    'reason.accessibility_timeout': 'The phone’s accessibility service did not answer the snapshot helper in time.',
    'reason.helper_error': 'The snapshot helper reported an error reading the screen.',
    'reason.malformed_output': 'The snapshot helper’s answer could not be read.',
    'reason.reader_jar_mismatch':
      'The phone’s copy of the UI reader was not the bridge’s even after it was put back, so it was not run; the snapshot helper or stock adb reads the screen.',
    'reason.reader_connect_failed':
      'The UI reader could not take the phone’s UI automation (something else was using it); it is tried again at a later call.',
    'reason.reader_unsupported': 'This phone’s Android lacks what the UI reader uses; other ways read the screen.',
    'reason.reader_version_mismatch': 'The phone ran another version of the UI reader; the bridge puts its own back.',
    'reason.reader_ended':
      'The UI reader stopped on the phone; another way read the screen, and it starts again later.',
    'reason.reader_timeout': 'The UI reader did not answer in time; another way read the screen.',
    'reason.reader_read_failed':
      'The UI reader could not read this screen once; another way read it, and the reader keeps running.',
    'reason.reader_no_window':
      'The UI reader found no window to read (the screen off or locked, or between apps); stock adb read it.',
    'reason.reader_too_large':
      'This screen’s elements were too many for one answer of the UI reader (over 16 MiB); another way read it.',
    'reason.reader_wire_broken': 'The UI reader’s answer could not be read; it was stopped and starts again later.',
  },
  {
    title: '手机上的程序',
    summary:
      'scrcpy-server、界面读取器和快照助手只在智能体持有这台手机的租约期间运行，且只能通过 USB 调试（adb）访问：它们不会在任何应用或网络可以连接的地方监听。这里的开关只作用于这三个程序。',
    'name.scrcpy_input': 'scrcpy-server',
    'name.snapshot_tree': 'agent-device 快照助手',
    'name.ui_reader': 'xagent 界面读取器',
    'name.uia2_server': 'appium-uiautomator2-server（开放端口）',
    'name.minicap_stream': 'minicap（屏幕流）',
    'stream.fps': '每秒 {fps} 帧',
    'consent.uia2_server':
      '每台手机默认关闭，需在下方读完它会暴露什么后自行开启：它运行时，这台手机上的任何应用和其网络上的任何电脑都可以不用密码操控手机。',
    'consent.minicap_stream':
      '只通过 adb 访问，在手机被租用或有人观看实时画面时运行，前提是实验室默认设置或你在下方的选择允许。',
    'state.uia2_server.idle': '未运行；租约中下一次能用到它的调用时启动',
    'state.uia2_server.starting': '正在安装或启动…',
    'state.uia2_server.ready': '运行中，6790 和 7810 端口开放',
    'state.minicap_stream.idle': '未运行；在手机被租用或有人观看实时画面时运行',
    'state.minicap_stream.starting': '正在启动…',
    'state.minicap_stream.ready': '运行中',
    'scrcpy.what':
      'scrcpy-server 负责点击、滑动、按键和输入：纯 ASCII 文本以按键输入，其他文本通过剪贴板粘贴；租约结束时，如果剪贴板里仍是智能体粘贴的内容，就会被清空。它还会读取手机上的应用列表及其名称，让时间线和活动记录显示“Notes”这样的名称而不是包名。租约结束时以及闲置 {idle} 后，它会被停止。',
    'snapshot.what':
      '快照助手是一个应用（com.callstack.agentdevice.snapshothelper），用于读取屏幕上的元素；它只在每次读取屏幕时运行。',
    'ui_reader.what':
      '界面读取器是桥接程序自己的小程序，像“uiautomator dump”一样读取屏幕上的元素，并保持运行，让每次读取都很快。只有桥接程序的 USB 调试（adb）连接能访问它。它运行时会占用手机的界面自动化（UI automation），和每次“uiautomator dump”读取时一样：appium-uiautomator2-server 不会与它同时运行，TalkBack 等无障碍服务也会暂时被压下。租约结束时以及闲置 {idle} 后，它会被停止。',
    'off.what':
      '关闭后，这台手机改用常规 adb 命令：速度较慢，且输入 ASCII 以外的文本需要 ADB Keyboard。“从手机上移除”还会删除 scrcpy-server 和界面读取器的文件并卸载快照助手应用。',
    disable: '关闭',
    enable: '开启',
    remove: '从手机上移除',
    working: '处理中…',
    version: '版本 {version}',
    'state.scrcpy_input.idle': '未运行；租约中的下一次调用时启动',
    'state.scrcpy_input.starting': '正在启动…',
    'state.scrcpy_input.ready': '运行中',
    'state.snapshot_tree.idle': '租约中的下一次调用时检查',
    'state.snapshot_tree.starting': '正在检查手机上的应用…',
    'state.snapshot_tree.ready': '已检查；每次读取时运行',
    'state.ui_reader.idle': '未运行；租约中的下一次调用时启动',
    'state.ui_reader.starting': '正在检查文件并启动…',
    'state.ui_reader.ready': '运行中',
    'state.failed': '失败；由常规 adb 处理',
    'state.unavailable': '不可用',
    'state.off': '已关闭',
    served: '调用：经由它 {served} 次，改由常规 adb {fell_back} 次',
    lastError: '最近的错误：{error}',
    retryIn: '{time}重试',
    retryNext: '下次调用时重试',
    retryEnable: '在你重新开启前保持关闭',
    'reason.uia2_crashed':
      'appium-uiautomator2-server 在手机上停止了；之后的调用会再次启动它，除非它在 10 分钟内停止了两次。',
    'reason.uia2_check_unreadable': '手机没有响应对 appium-uiautomator2-server 文件的检查；之后的调用会再次检查。',
    'reason.uia2_paused': '遇到无法完整读取的屏幕后暂停一段时间；在此期间由常规 adb 处理。',
    'reason.uia2_not_verified': '为保护手机未启动：手机上安装的副本不是桥接器的。重新开启即可安装桥接器的副本。',
    'reason.uia2_foreign_connection': '为保护手机已停止：有桥接器以外的东西连接了它的端口。',
    'reason.uia2_no_instrumentation': '这台手机无法运行 appium-uiautomator2-server 的 instrumentation。',
    'reason.uia2_install_refused':
      '手机拒绝安装 appium-uiautomator2-server；请查看手机上的提示，或在开发者选项中允许通过 USB 安装。',
    'reason.uia2_start_failed': 'appium-uiautomator2-server 没有在手机上启动。',
    'unavailable.build': '此版本未包含它；由常规 adb 处理。',
    'unavailable.phone': '这台手机无法运行它；在手机重新连接前由常规 adb 处理。',
    'reason.inject_denied':
      '这台手机拒绝来自 USB 调试的输入。小米、红米或 POCO：设置 → 更多设置 → 开发者选项 → 打开“USB 调试（安全设置）”，然后重启手机。',
    'reason.android_too_old': '这台手机的 Android 版本太旧，无法运行它；由常规 adb 处理。',
    'reason.clipboard_refused': '这台手机不允许经由 USB 调试的程序使用剪贴板；文字改用其他方式输入。',
    'reason.version_mismatch': '手机上是另一个版本的 scrcpy-server；下次启动时桥接程序会换回自己的版本。',
    'reason.jar_unreadable': '手机无法加载 scrcpy-server；下次启动时桥接程序会替换它的副本。',
    'reason.server_crashed': 'scrcpy-server 在手机上停止了；之后的调用会再次启动它。',
    'reason.apk_missing': '此版本缺少快照助手 APK；请重新安装桥接程序。',
    'reason.apk_tampered': '此版本的快照助手 APK 不是发布的文件，因此没有安装；请重新安装桥接程序。',
    'reason.install_refused': '手机拒绝安装快照助手；请查看手机上的提示，或在开发者选项中允许通过 USB 安装。',
    'reason.install_unverified':
      '安装后手机上的文件与快照助手不一致；请从手机上卸载 com.callstack.agentdevice.snapshothelper。',
    'reason.not_installed': '手机上没有安装快照助手；之后的调用会重新安装。',
    'reason.start_refused': '手机不肯启动快照助手。',
    'reason.crashed': '快照助手在读取时停止了；屏幕改由常规 dump 读取。',
    'reason.timeout': '快照助手没有及时响应；屏幕改由常规 dump 读取。',
    'reason.accessibility_timeout': '手机的无障碍服务没有及时响应快照助手。',
    'reason.helper_error': '快照助手读取屏幕时报告了错误。',
    'reason.malformed_output': '无法读取快照助手的回复。',
    'reason.reader_jar_mismatch':
      '重新放回后，手机上的界面读取器副本仍不是桥接程序的，因此没有运行；屏幕改由快照助手或常规 adb 读取。',
    'reason.reader_connect_failed': '界面读取器无法占用手机的界面自动化（有其他程序正在使用）；之后的调用会再试。',
    'reason.reader_unsupported': '这台手机的 Android 缺少界面读取器所用的组件；屏幕改由其他方式读取。',
    'reason.reader_version_mismatch': '手机上运行的是另一个版本的界面读取器；桥接程序会换回自己的版本。',
    'reason.reader_ended': '界面读取器在手机上停止了；屏幕改由其他方式读取，之后会再次启动它。',
    'reason.reader_timeout': '界面读取器没有及时响应；屏幕改由其他方式读取。',
    'reason.reader_read_failed': '界面读取器这一次没能读取此屏幕；已改用其他方式读取，读取器继续运行。',
    'reason.reader_no_window': '界面读取器没有找到可读取的窗口（屏幕关闭、锁定或正在切换应用）；已改用常规 adb 读取。',
    'reason.reader_too_large': '此屏幕的元素太多，超出界面读取器单次回答的上限（16 MiB）；已改用其他方式读取。',
    'reason.reader_wire_broken': '无法读取界面读取器的回复；它已被停止，之后会再次启动。',
  },
);
