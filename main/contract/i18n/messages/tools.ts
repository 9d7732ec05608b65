/**
 * What a person calls each tool, where the console shows an agent's call (a binding's last
 * action, the phone view's timeline, Activity). Keyed by the tool's id without its `android_`
 * prefix; test/unit/tool-names.test.ts keeps one name per tool of the catalogue, in every locale.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    device_status: 'Read phone status',
    ui_tree: 'Read the screen',
    list_apps: 'List apps',
    wait_for: 'Wait for the screen',
    screenshot: 'Take a screenshot',
    screen_record: 'Record the screen',
    logcat: 'Read the phone log',
    tap: 'Tap',
    long_press: 'Long press',
    swipe: 'Swipe',
    type_text: 'Type text',
    press_key: 'Press a key',
    launch_app: 'Open an app',
    stop_app: 'Close an app',
    open_url: 'Open a link',
    install_apk: 'Install an app',
    push_file: 'Copy a file to the phone',
    batch: 'Several steps',
    read_clipboard: 'Read the clipboard',
    set_clipboard: 'Set the clipboard',
    grant_permission: 'Grant a permission',
    revoke_permission: 'Revoke a permission',
    clear_app_data: 'Clear an app’s data',
  },
  {
    device_status: '读取手机状态',
    ui_tree: '读取屏幕',
    list_apps: '列出应用',
    wait_for: '等待屏幕',
    screenshot: '截屏',
    screen_record: '录屏',
    logcat: '读取手机日志',
    tap: '点按',
    long_press: '长按',
    swipe: '滑动',
    type_text: '输入文字',
    press_key: '按键',
    launch_app: '打开应用',
    stop_app: '关闭应用',
    open_url: '打开链接',
    install_apk: '安装应用',
    push_file: '复制文件到手机',
    batch: '多个步骤',
    read_clipboard: '读取剪贴板',
    set_clipboard: '设置剪贴板',
    grant_permission: '授予权限',
    revoke_permission: '撤销权限',
    clear_app_data: '清除应用数据',
  },
);
