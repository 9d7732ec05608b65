/**
 * Words that make what an action touches sensitive: payments, transfers, deleting an account,
 * factory resets — in English and Chinese. English matches whole words, case-insensitive
 * (so "Pay $25.00" and "pay_button" match, "Display" does not); Chinese matches substrings.
 */

const ENGLISH_MONEY = [
  'pay',
  'pay now',
  'payment',
  'payments',
  'confirm payment',
  'checkout',
  'check out',
  'purchase',
  'buy now',
  'place order',
  'send money',
  'transfer',
  'transfer money',
  'wire transfer',
  'withdraw',
  'withdrawal',
  'top up',
];
const ENGLISH_ACCOUNT = [
  'delete account',
  'delete my account',
  'delete your account',
  'close account',
  'remove account',
  'deactivate account',
];
const ENGLISH_RESET = [
  'factory reset',
  'factory data reset',
  'erase all data',
  'erase everything',
  'reset phone',
  'wipe data',
];
const ENGLISH = [...ENGLISH_MONEY, ...ENGLISH_ACCOUNT, ...ENGLISH_RESET];

const CHINESE_MONEY = ['支付', '付款', '转账', '汇款', '提现', '充值', '购买', '下单', '收银台'];
const CHINESE_ACCOUNT = ['删除账户', '删除账号', '删除帐户', '删除帐号', '注销账户', '注销账号', '注销帐号'];
const CHINESE_RESET = ['恢复出厂设置', '恢复出厂', '清除所有数据', '抹掉所有内容'];
const CHINESE = [...CHINESE_MONEY, ...CHINESE_ACCOUNT, ...CHINESE_RESET];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Word boundaries that also split snake_case and camelCase ids (pay_button, btnPay).
const ENGLISH_RE = new RegExp(
  `(?:^|[^a-z0-9])(${ENGLISH.map((w) => escape(w).replace(/ /g, '[\\s_-]+')).join('|')})(?=$|[^a-z0-9])`,
  'i',
);

function normalise(text: string): string {
  // camelCase → camel case, so "btnPay" and "confirmPayment" match like their words.
  return text.replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** The first sensitive word or phrase found in `text`, or null. */
export function sensitiveWord(text: string): string | null {
  if (!text) return null;
  for (const word of CHINESE) if (text.includes(word)) return word;
  const match = ENGLISH_RE.exec(normalise(text));
  return match?.[1] ? match[1].toLowerCase() : null;
}

export type SensitiveWordKind = 'money' | 'account' | 'reset';

const KIND = new Map<string, SensitiveWordKind>([
  ...[...ENGLISH_MONEY, ...CHINESE_MONEY].map((w) => [w, 'money'] as const),
  ...[...ENGLISH_ACCOUNT, ...CHINESE_ACCOUNT].map((w) => [w, 'account'] as const),
  ...[...ENGLISH_RESET, ...CHINESE_RESET].map((w) => [w, 'reset'] as const),
]);

/**
 * What a sensitive word puts at stake, for the person's reason ("can spend or move money").
 * English matches are folded to single spaces first ("pay_now" matched as "pay now").
 */
export function sensitiveWordKind(word: string): SensitiveWordKind {
  return KIND.get(word.toLowerCase().replace(/[\s_-]+/g, ' ')) ?? 'money';
}

export const SENSITIVE_WORDS = { english: ENGLISH, chinese: CHINESE } as const;
