/**
 * The maintained list of sensitive apps: acting inside them (or launching them) needs the
 * `sensitive_app` decision. Edit this list to add well-known apps for everyone; a person adds
 * their own in Settings → Policies (`policies.sensitive_apps` in state.json).
 *
 * Besides exact package names, any package with a name segment containing "bank" or
 * "wallet" counts (com.example.bank, com.acme.mywallet), and the Settings app counts only on
 * its security, lock-screen, account, privacy and reset pages.
 */

export type SensitiveCategory = 'payments' | 'banking' | 'wallet' | 'app_store' | 'password_manager' | 'security';

export const BUILTIN_SENSITIVE_APPS: ReadonlyArray<{ package: string; category: SensitiveCategory; label: string }> = [
  // Payments and wallets
  // The simulated phone's wallet (main/sim/screen/app-wallet.ts), named as its launcher shows it.
  { package: 'com.example.wallet', category: 'wallet', label: 'Wallet' },
  { package: 'com.google.android.apps.walletnfcrel', category: 'wallet', label: 'Google Wallet' },
  { package: 'com.google.android.apps.nbu.paisa.user', category: 'payments', label: 'Google Pay' },
  { package: 'com.samsung.android.spay', category: 'wallet', label: 'Samsung Wallet' },
  { package: 'com.paypal.android.p2pmobile', category: 'payments', label: 'PayPal' },
  { package: 'com.venmo', category: 'payments', label: 'Venmo' },
  { package: 'com.squareup.cash', category: 'payments', label: 'Cash App' },
  { package: 'com.eg.android.AlipayGphone', category: 'payments', label: 'Alipay 支付宝' },
  { package: 'com.unionpay', category: 'payments', label: 'UnionPay 云闪付' },
  { package: 'com.phonepe.app', category: 'payments', label: 'PhonePe' },
  { package: 'net.one97.paytm', category: 'payments', label: 'Paytm' },
  { package: 'com.revolut.revolut', category: 'banking', label: 'Revolut' },
  { package: 'com.transferwise.android', category: 'payments', label: 'Wise' },
  { package: 'com.coinbase.android', category: 'wallet', label: 'Coinbase' },
  { package: 'com.binance.dev', category: 'wallet', label: 'Binance' },
  { package: 'com.wallet.crypto.trustapp', category: 'wallet', label: 'Trust Wallet' },
  { package: 'io.metamask', category: 'wallet', label: 'MetaMask' },
  // Banking
  { package: 'com.chase.sig.android', category: 'banking', label: 'Chase' },
  { package: 'com.wf.wellsfargomobile', category: 'banking', label: 'Wells Fargo' },
  { package: 'com.infonow.bofa', category: 'banking', label: 'Bank of America' },
  { package: 'com.citi.citimobile', category: 'banking', label: 'Citi' },
  { package: 'com.usaa.mobile.android.usaa', category: 'banking', label: 'USAA' },
  { package: 'com.konylabs.capitalone', category: 'banking', label: 'Capital One' },
  { package: 'de.number26.android', category: 'banking', label: 'N26' },
  { package: 'cmb.pb', category: 'banking', label: '招商银行' },
  { package: 'com.icbc', category: 'banking', label: '中国工商银行' },
  { package: 'com.chinamworld.main', category: 'banking', label: '中国建设银行' },
  { package: 'com.chinamworld.bocmbci', category: 'banking', label: '中国银行' },
  { package: 'com.android.bankabc', category: 'banking', label: '中国农业银行' },
  // App stores and installers
  { package: 'com.android.vending', category: 'app_store', label: 'Google Play' },
  { package: 'com.google.android.packageinstaller', category: 'app_store', label: 'Package installer' },
  { package: 'com.android.packageinstaller', category: 'app_store', label: 'Package installer' },
  { package: 'com.sec.android.app.samsungapps', category: 'app_store', label: 'Galaxy Store' },
  { package: 'com.huawei.appmarket', category: 'app_store', label: 'Huawei AppGallery' },
  { package: 'com.xiaomi.market', category: 'app_store', label: 'Xiaomi GetApps' },
  { package: 'com.heytap.market', category: 'app_store', label: 'OPPO App Market' },
  { package: 'com.bbk.appstore', category: 'app_store', label: 'vivo App Store' },
  { package: 'com.tencent.android.qqdownloader', category: 'app_store', label: '应用宝' },
  { package: 'com.amazon.venezia', category: 'app_store', label: 'Amazon Appstore' },
  // Password managers and security apps
  { package: 'com.x8bit.bitwarden', category: 'password_manager', label: 'Bitwarden' },
  { package: 'com.onepassword.android', category: 'password_manager', label: '1Password' },
  { package: 'com.lastpass.lpandroid', category: 'password_manager', label: 'LastPass' },
  { package: 'com.dashlane', category: 'password_manager', label: 'Dashlane' },
  { package: 'proton.android.pass', category: 'password_manager', label: 'Proton Pass' },
  { package: 'keepass2android.keepass2android', category: 'password_manager', label: 'Keepass2Android' },
  { package: 'com.kunzisoft.keepass.libre', category: 'password_manager', label: 'KeePassDX' },
  { package: 'com.google.android.apps.authenticator2', category: 'security', label: 'Google Authenticator' },
  { package: 'com.miui.securitycenter', category: 'security', label: 'MIUI Security' },
];

/** Settings apps: sensitive only on security / account pages (see settingsPageIsSensitive). */
export const SETTINGS_PACKAGES: ReadonlySet<string> = new Set(['com.android.settings']);

const BY_PACKAGE = new Map(BUILTIN_SENSITIVE_APPS.map((a) => [a.package, a]));
const SEGMENT_HINT = /bank|wallet/i;

/** The reason codes of a sensitive app (approvals.reason.<code> in the catalogue), by category. */
const CATEGORY_REASON: Record<SensitiveCategory, SensitiveAppReasonCode> = {
  payments: 'app_payments',
  banking: 'app_banking',
  wallet: 'app_wallet',
  app_store: 'app_store',
  password_manager: 'app_password_manager',
  security: 'app_security',
};

export type SensitiveAppReasonCode =
  | 'app_payments'
  | 'app_banking'
  | 'app_wallet'
  | 'app_store'
  | 'app_password_manager'
  | 'app_security'
  | 'app_listed'
  | 'app_looks_financial';

/** An app's name as people know it, for the apps this list names; null for others (the bridge reads no labels). */
export function appLabel(pkg: string): string | null {
  return BY_PACKAGE.get(pkg)?.label ?? null;
}

/**
 * Why a package is sensitive, or null: a reason code with the app's name (its package when
 * the list does not name it) and package. `userApps` are the person's additions.
 */
export function sensitiveAppReason(
  pkg: string,
  userApps: readonly string[],
): { code: SensitiveAppReasonCode; params: { app: string; package: string } } | null {
  if (!pkg) return null;
  const known = BY_PACKAGE.get(pkg);
  if (known) return { code: CATEGORY_REASON[known.category], params: { app: known.label, package: pkg } };
  if (userApps.includes(pkg)) return { code: 'app_listed', params: { app: pkg, package: pkg } };
  if (
    pkg
      .split('.')
      .slice(1)
      .some((segment) => SEGMENT_HINT.test(segment))
  )
    return { code: 'app_looks_financial', params: { app: pkg, package: pkg } };
  return null;
}

// Activity class names of Settings pages about security, locks, accounts, privacy and reset
// (AOSP: SecuritySettingsActivity, ChooseLockGeneric, AccountDashboardActivity,
// MasterClear/FactoryReset…, DeviceAdminSettings, PrivacyDashboardActivity).
const SETTINGS_ACTIVITY =
  /security|lock|account|password|masterclear|factoryreset|reset|privacy|deviceadmin|biometric|fingerprint|faceunlock|trustagent|encryption/i;

/** Labels of Settings rows that lead into (or are) security / account pages. */
export const SETTINGS_SENSITIVE_LABELS =
  /\b(security|privacy|screen lock|device lock|accounts?|passwords?|passkeys?|factory reset|reset options|erase all data|device admin(?:istrators)?|encryption|fingerprint|face unlock|biometrics?)\b|安全|隐私|锁屏|账户|账号|帐户|帐号|密码|恢复出厂|重置|指纹|人脸/i;

/** Home-screen apps whose icons open sensitive apps (tapping the icon is like launching it). */
export const LAUNCHER_PACKAGE = /launcher|\.home$|miui\.home|trebuchet/i;
export const SENSITIVE_ICON_LABELS =
  /\b(wallet|bank(?:ing)?|pay|paypal|venmo|cash app|play store|google play|app ?store|galaxy store|appgallery|authenticator|password manager|bitwarden|1password|lastpass)\b|钱包|银行|支付|应用商店|应用市场|密码/i;

/** Whether the Settings page in front is a security / account page, from its activity name. */
export function settingsActivityIsSensitive(activity: string | null): boolean {
  if (!activity) return false;
  const simple = activity.slice(activity.lastIndexOf('.') + 1);
  return SETTINGS_ACTIVITY.test(simple);
}
