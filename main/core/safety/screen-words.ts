/**
 * Words that make what an action touches sensitive: payments, transfers, deleting an account,
 * factory resets — in English and Chinese. English matches whole words, case-insensitive
 * (so "Pay $25.00" and "pay_button" match, "Display" does not); Chinese matches substrings.
 */

const ENGLISH = [
  // payments and transfers
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
  // accounts
  'delete account',
  'delete my account',
  'delete your account',
  'close account',
  'remove account',
  'deactivate account',
  // resets
  'factory reset',
  'factory data reset',
  'erase all data',
  'erase everything',
  'reset phone',
  'wipe data',
];

const CHINESE = [
  '支付',
  '付款',
  '转账',
  '汇款',
  '提现',
  '充值',
  '购买',
  '下单',
  '收银台',
  '删除账户',
  '删除账号',
  '删除帐户',
  '删除帐号',
  '注销账户',
  '注销账号',
  '注销帐号',
  '恢复出厂设置',
  '恢复出厂',
  '清除所有数据',
  '抹掉所有内容',
];

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

export const SENSITIVE_WORDS = { english: ENGLISH, chinese: CHINESE } as const;
