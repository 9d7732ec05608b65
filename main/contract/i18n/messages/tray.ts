/** Tray and desktop notifications (main/electron/tray-state.ts). */
import { defineMessages } from '../define';

export default defineMessages(
  {
    approvalsWaiting: '{count, plural, one {# approval waiting} other {# approvals waiting}}',
    pairingsWaiting: '{count, plural, one {# pairing request waiting} other {# pairing requests waiting}}',
    listSeparator: ', ',
    nothingWaiting: 'Nothing waiting for you',
    tooltip: '{app} — {summary}',
    open: 'Open Device Bridge',
    openPhone: 'Watch {phone}',
    quit: 'Quit',
    'notify.title': 'Approval needed',
    'notify.titleMany': '{count} approvals needed',
    'notify.line': '{phone}: {sentence}',
    'notify.reason': '{line}\n{reason}',
    'notify.aPhone': 'a phone',
    'notify.helperTitle': 'Fast lane stopped on {phone}',
  },
  {
    approvalsWaiting: '{count} 个审批等待处理',
    pairingsWaiting: '{count} 个配对请求等待处理',
    listSeparator: '，',
    nothingWaiting: '没有需要你处理的事项',
    tooltip: '{app} — {summary}',
    open: '打开设备桥',
    openPhone: '查看 {phone}',
    quit: '退出',
    'notify.title': '需要审批',
    'notify.titleMany': '{count} 个操作需要审批',
    'notify.line': '{phone}：{sentence}',
    'notify.reason': '{line}\n{reason}',
    'notify.aPhone': '一台手机',
    'notify.helperTitle': '{phone} 上的快速通道已停止',
  },
);
