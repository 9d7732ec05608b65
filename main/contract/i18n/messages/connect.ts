/** Connect xAgent: the guide the console opens on until an xAgent has said hello, and its live status. */
import { defineMessages } from '../define';

export default defineMessages(
  {
    title: 'Connect xAgent',
    sub: 'Give xAgent this bridge’s address and key. It then connects by itself, and this page says so.',
    loadFailed: 'Could not load the address and key.',
    'status.waiting': 'Waiting for xAgent…',
    'refused.title': 'An xAgent could not connect',
    'refused.wrong_key':
      'An xAgent at {address} tried {time} with a wrong API key — copy the key again (step 3) into its connector settings.',
    'refused.no_key':
      'An xAgent at {address} tried {time} without an API key — paste the key (step 3) into its connector settings.',
    'refused.count': '{count, plural, one {# try} other {# tries}}',
    'status.waitingHint': 'This turns to “xAgent connected” by itself as soon as xAgent says hello; no need to reload.',
    'status.connected': 'xAgent connected',
    'status.connector': 'Connector',
    'status.since': 'Connected',
    'status.away': 'xAgent is not connected right now',
    'status.lastHello':
      'It last said hello {time}. It reconnects by itself; if it does not, check its connector there.',
    'status.keptFor': 'Its bindings are kept for',
    'status.keptText': '— if xAgent does not reconnect by then, they are released.',
    'next.title': 'Next: pair a phone',
    'next.text':
      'In xAgent, ask to use a phone. The request appears under Pairing requests with a code: check it matches the code xAgent shows, pick the phone and approve.',
    'next.pairings': 'Open pairing requests',
    'next.devices': 'See the phones',
    'steps.title': 'What to enter in xAgent',
    step1: 'In xAgent, as an administrator, add a connector.',
    step2: 'Paste this as its <b>Connector Base URL</b>:',
    step3: 'Paste this as its <b>API key</b> (<b>Copy</b> copies the whole key; <b>Reveal</b> shows it):',
    step4: 'Save. xAgent reads this bridge’s card and connects; the status above turns to “xAgent connected”.',
    baseUrl: 'Base URL',
    apiKey: 'API key',
    hide: 'Hide',
    reveal: 'Reveal',
    rotate: 'Rotate',
    rotating: 'Rotating…',
    rotatePrompt: 'Make a new key? xAgent is disconnected until you enter the new key there.',
    rotateConfirm: 'Rotate key',
    rotated: 'New key created. Update it in xAgent’s connector settings; until then xAgent cannot connect.',
    envKey:
      'This key comes from the DEVICE_BRIDGE_API_KEY environment variable: a rotation lasts only until the bridge restarts, which sets that key again. Change the variable too.',
    loopback:
      'This address works only for an xAgent on this computer. For xAgent elsewhere, start the bridge on a reachable address with TLS (<code>--host</code> and <code>--tls self-signed</code>), or behind your TLS proxy (<code>--public-url</code>). docs/REFERENCE.md, “For labs”.',
  },
  {
    title: '连接 xAgent',
    sub: '把本桥接服务的地址和密钥填到 xAgent 中，它就会自动连接；连上后本页会显示出来。',
    loadFailed: '无法加载地址和密钥。',
    'status.waiting': '正在等待 xAgent…',
    'refused.title': '有 xAgent 连接失败',
    'refused.wrong_key':
      '来自 {address} 的 xAgent {time}尝试连接，但 API 密钥不对——请重新复制密钥（第 3 步），填入它的连接器设置。',
    'refused.no_key':
      '来自 {address} 的 xAgent {time}尝试连接，但没有提供 API 密钥——请把密钥（第 3 步）填入它的连接器设置。',
    'refused.count': '共 {count} 次',
    'status.waitingHint': 'xAgent 一连上，这里就会自动变为“xAgent 已连接”，无需刷新页面。',
    'status.connected': 'xAgent 已连接',
    'status.connector': '连接器',
    'status.since': '连接时间',
    'status.away': 'xAgent 当前未连接',
    'status.lastHello': '上次连接：{time}。它会自动重新连接；如果没有，请检查 xAgent 中的连接器设置。',
    'status.keptFor': '绑定保留时间',
    'status.keptText': '— 如果 xAgent 在此之前没有重新连接，它的绑定将被释放。',
    'next.title': '下一步：配对手机',
    'next.text':
      '在 xAgent 中申请使用一部手机。请求会带着一个代码出现在“配对请求”里：核对它与 xAgent 显示的代码一致，选好手机后批准。',
    'next.pairings': '打开配对请求',
    'next.devices': '查看手机',
    'steps.title': '在 xAgent 中填写',
    step1: '在 xAgent 中以管理员身份添加一个连接器。',
    step2: '将下面的地址粘贴为它的<b>连接器基础 URL</b>：',
    step3: '将下面的密钥粘贴为它的 <b>API 密钥</b>（<b>复制</b>会复制完整密钥；<b>显示</b>可查看密钥）：',
    step4: '保存。xAgent 会读取本桥接服务的卡片并连接，上方的状态随即变为“xAgent 已连接”。',
    baseUrl: '基础 URL',
    apiKey: 'API 密钥',
    hide: '隐藏',
    reveal: '显示',
    rotate: '更换',
    rotating: '正在更换…',
    rotatePrompt: '生成新密钥？在 xAgent 中填入新密钥之前，xAgent 将无法连接。',
    rotateConfirm: '更换密钥',
    rotated: '已生成新密钥。请在 xAgent 的连接器设置中更新；在此之前 xAgent 无法连接。',
    envKey:
      '此密钥来自环境变量 DEVICE_BRIDGE_API_KEY：更换只在桥接服务重启前有效，重启后会重新使用该变量中的密钥。请同时修改该变量。',
    loopback:
      '此地址仅适用于本机上的 xAgent。若 xAgent 在其他机器上，请在可访问的地址上以 TLS 启动桥接服务（<code>--host</code> 和 <code>--tls self-signed</code>），或放在你的 TLS 代理之后（<code>--public-url</code>）。详见 docs/REFERENCE.md 的“For labs”。',
  },
);
