/**
 * Hand-over area (device card and Settings → Hand-over): what a lease's end puts back on its
 * phone, and the line of lab claims for a busy phone. English and Simplified Chinese.
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    'card.label': 'Reset',
    'card.running': 'Resetting the phone after the last lease…',
    'card.waiting': 'The phone will be reset when it is back online.',
    'card.done':
      'Reset {duration} after the last lease: {removed, plural, =0 {no apps removed} one {# app removed} other {# apps removed}}, {deleted, plural, =0 {no files deleted} one {# file deleted} other {# files deleted}}{stopped, plural, =0 {} one {, # app stopped} other {, # apps stopped}}{restored, plural, =0 {} one {, # permission put back} other {, # permissions put back}}.',
    'card.failed':
      'Resetting the phone after the last lease failed, so nobody can bind it until you check it: {problems}',
    'card.retry': 'Try the reset again',
    'card.dismiss': 'I checked the phone',
    'card.dismissTitle': 'Let agents bind this phone again as it is',
    'card.line':
      '{count, plural, one {# lab claim waiting for this phone} other {# lab claims waiting for this phone}}',
    'settings.title': 'Hand-over',
    'settings.explain':
      'When a lease ends, the bridge can reset the phone before the next agent gets it: it stops the apps the lease started, uninstalls the apps it installed, deletes the files it pushed, puts back the permissions it changed, clears the apps you list below and presses Home. A reset that fails keeps the phone for you to check.',
    'settings.claims': 'Reset lab phones (phones an access code of their own names) after every lease',
    'settings.approvals': 'Reset the other phones (your own: no code of their own names them) after every lease',
    'settings.clearData': 'Also clear the data of these apps at every reset (package names, one per line)',
    'settings.save': 'Save apps',
    'settings.perPhone':
      'A phone’s own choice overrides these: {count, plural, =0 {none set} one {# phone set} other {# phones set}}.',
  },
  {
    'card.label': '重置',
    'card.running': '正在重置上一次租约结束后的手机…',
    'card.waiting': '手机重新连接后将被重置。',
    'card.done':
      '上一次租约结束后已重置，用时 {duration}：{removed, plural, =0 {未移除应用} other {移除了 # 个应用}}，{deleted, plural, =0 {未删除文件} other {删除了 # 个文件}}{stopped, plural, =0 {} other {，停止了 # 个应用}}{restored, plural, =0 {} other {，恢复了 # 项权限}}。',
    'card.failed': '上一次租约结束后重置手机失败，在你检查之前任何人都无法绑定它：{problems}',
    'card.retry': '重新尝试重置',
    'card.dismiss': '我已检查手机',
    'card.dismissTitle': '让智能体可以按现状再次绑定这台手机',
    'card.line': '{count, plural, other {有 # 个实验室认领在排队等待这台手机}}',
    'settings.title': '交接',
    'settings.explain':
      '租约结束时，桥接服务可以在下一个智能体使用前重置手机：停止租约启动的应用、卸载它安装的应用、删除它推送的文件、恢复它更改的权限、清除下方列出的应用的数据，并按下主屏幕键。重置失败时，手机会留给你检查。',
    'settings.claims': '每次租约结束后重置实验室手机（有专属访问码的手机）',
    'settings.approvals': '每次租约结束后重置其他手机（你自己的手机：没有专属访问码）',
    'settings.clearData': '每次重置时也清除这些应用的数据（包名，每行一个）',
    'settings.save': '保存应用',
    'settings.perPhone': '单台手机的设置优先于这些：{count, plural, =0 {尚未设置} other {已设置 # 台}}。',
  },
);
