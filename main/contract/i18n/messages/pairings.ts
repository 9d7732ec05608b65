/** Pairing requests area: approve a binding when the codes match. */
import { defineMessages } from '../define';

export default defineMessages(
  {
    title: 'Pairing requests',
    sub: 'Approve only when the code matches the one shown in xAgent.',
    'empty.title': 'No pairing request waiting',
    'empty.text': 'When someone binds this connector in xAgent, a code appears there and here at the same time.',
    'empty.hint':
      'Check that the codes match, pick the phone, and approve. To let lab users claim phones by name without a request, set an access code under <b>Settings → Lab access codes</b>.',
    codeLabel: 'Pairing code {code}',
    channel: 'Channel',
    expiresIn: 'expires in',
    messageTitle: 'What xAgent shows the person who asked',
    says: 'xAgent says: “{message}”',
    phoneToBind: 'Phone to bind',
    noPhoneOnline: 'No phone is online. Connect one (see Devices) to approve this request.',
    choosePhone: 'Choose a phone…',
    inUse: ' (in use)',
    'state.offline': ' (offline)',
    'state.unauthorized': ' (unauthorized)',
    'state.gone': ' (disconnected)',
    approve: 'Approve',
    deny: 'Deny',
  },
  {
    title: '配对请求',
    sub: '只有在配对码与 xAgent 中显示的一致时才批准。',
    'empty.title': '没有等待中的配对请求',
    'empty.text': '有人在 xAgent 中绑定此连接器时，xAgent 和这里会同时显示一个配对码。',
    'empty.hint':
      '核对配对码一致后，选择手机并批准。如要让实验室用户无需请求就能按名称领用手机，请在<b>设置 → 实验室访问码</b>中设置访问码。',
    codeLabel: '配对码 {code}',
    channel: '通道',
    expiresIn: '过期倒计时',
    messageTitle: 'xAgent 向发起请求的人显示的内容',
    says: 'xAgent 附言：“{message}”',
    phoneToBind: '要绑定的手机',
    noPhoneOnline: '没有在线的手机。请先连接一台（见“设备”），再批准此请求。',
    choosePhone: '选择手机…',
    inUse: '（使用中）',
    'state.offline': '（离线）',
    'state.unauthorized': '（未授权）',
    'state.gone': '（已断开）',
    approve: '批准',
    deny: '拒绝',
  },
);
