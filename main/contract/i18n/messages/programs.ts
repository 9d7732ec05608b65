/**
 * "Programs on this phone" on a device card (renderer/src/features/devices/programs-panel.tsx):
 * scrcpy-server and agent-device's snapshot helper, which the bridge runs through adb only.
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
      'They run only while an agent holds this phone’s lease, and are reached only through USB debugging (adb): nothing on the phone listens where an app or the network could reach it.',
    more: 'What they do',
    'name.scrcpy_input': 'scrcpy-server',
    'name.snapshot_tree': 'agent-device snapshot helper',
    'scrcpy.what':
      'scrcpy-server taps, swipes, presses keys and types: plain ASCII as key presses, other text pasted through the clipboard, which is emptied at the lease’s end if it still holds what the agent pasted. It is stopped at the lease’s end and after {idle} without use.',
    'snapshot.what':
      'The snapshot helper is an app (com.callstack.agentdevice.snapshothelper) that reads the screen’s elements; it runs only for each read of the screen.',
    'off.what':
      'Turn off leaves this phone to the stock adb commands: slower, and text other than ASCII then needs ADB Keyboard. Remove from phone also deletes scrcpy-server’s file and uninstalls the snapshot helper app.',
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
    'state.failed': 'failed; stock adb serves',
    'state.unavailable': 'not available',
    'state.off': 'off',
    served: 'Calls: {served} by it, {fell_back} by stock adb instead',
    lastError: 'Last error: {error}',
    retryIn: 'tried again {time}',
    retryNext: 'tried again at the next call',
    'unavailable.build': 'This build does not carry it; stock adb serves.',
    'unavailable.phone': 'This phone cannot run it; stock adb serves until the phone reconnects.',
  },
  {
    title: '手机上的程序',
    summary:
      '它们只在智能体持有这台手机的租约期间运行，且只能通过 USB 调试（adb）访问：手机上没有任何应用或网络可以连接的监听端口。',
    more: '它们做什么',
    'name.scrcpy_input': 'scrcpy-server',
    'name.snapshot_tree': 'agent-device 快照助手',
    'scrcpy.what':
      'scrcpy-server 负责点击、滑动、按键和输入：纯 ASCII 文本以按键输入，其他文本通过剪贴板粘贴；租约结束时，如果剪贴板里仍是智能体粘贴的内容，就会被清空。租约结束时以及闲置 {idle} 后，它会被停止。',
    'snapshot.what':
      '快照助手是一个应用（com.callstack.agentdevice.snapshothelper），用于读取屏幕上的元素；它只在每次读取屏幕时运行。',
    'off.what':
      '关闭后，这台手机改用常规 adb 命令：速度较慢，且输入 ASCII 以外的文本需要 ADB Keyboard。“从手机上移除”还会删除 scrcpy-server 的文件并卸载快照助手应用。',
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
    'state.failed': '失败；由常规 adb 处理',
    'state.unavailable': '不可用',
    'state.off': '已关闭',
    served: '调用：经由它 {served} 次，改由常规 adb {fell_back} 次',
    lastError: '最近的错误：{error}',
    retryIn: '{time}重试',
    retryNext: '下次调用时重试',
    'unavailable.build': '此版本未包含它；由常规 adb 处理。',
    'unavailable.phone': '这台手机无法运行它；在手机重新连接前由常规 adb 处理。',
  },
);
