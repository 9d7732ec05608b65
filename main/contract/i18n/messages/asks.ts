/**
 * The agent asks the person to take a phone over (docs/REFERENCE.md "Ask the person"): its
 * card in the console, the hand-back note, and the desktop and browser notifications. The
 * buttons' words are the phone view's (phone-view.takeover.take / handBack).
 */
import { defineMessages } from '../define';

export default defineMessages(
  {
    region: 'The agent asks for you',
    title: 'The agent asks you to take over {phone}',
    saysLabel: 'The agent asks you to:',
    // The countdown beside it says "in 1:05" itself.
    expires: 'Ends unanswered',
    decline: 'Decline',
    declineTitle: 'Tell the agent you will not take the phone over now',
    declineReason: 'Why (optional, for the agent)',
    declineSend: 'Decline',
    cancel: 'Cancel',
    handBackNote: 'Note for the agent (optional)',
    handBackNotePlaceholder: 'e.g. logged in as the test user',
    askedBanner: 'The agent asked you to: {reason}',
    'notify.title': 'The agent asks you to take over {phone}',
    'notify.body': 'The agent asks you to: {reason}',
    announce: 'The agent asks you to take over {phone}: {reason}.',
    'notify.allow': 'Notify me',
    'notify.allowTitle': 'Let this browser show a notification when an agent asks you to take a phone over',
  },
  {
    region: '智能体请求你协助',
    title: '智能体请你接管 {phone}',
    saysLabel: '智能体请你：',
    expires: '无人回应则结束：',
    decline: '拒绝',
    declineTitle: '告诉智能体你现在不接管这台手机',
    declineReason: '原因（可选，会告诉智能体）',
    declineSend: '拒绝',
    cancel: '取消',
    handBackNote: '给智能体的备注（可选）',
    handBackNotePlaceholder: '例如：已用测试账号登录',
    askedBanner: '智能体请你：{reason}',
    'notify.title': '智能体请你接管 {phone}',
    'notify.body': '智能体请你：{reason}',
    announce: '智能体请你接管 {phone}：{reason}。',
    'notify.allow': '开启通知',
    'notify.allowTitle': '智能体请你接管手机时，让此浏览器弹出通知',
  },
);
