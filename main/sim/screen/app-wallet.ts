/**
 * com.example.wallet: a balance and "Pay $25.00". Paying opens a confirmation screen that
 * is FLAG_SECURE (screenshots come out black, the accessibility tree does not), and
 * confirming shows "Payment sent" with the new balance.
 */
import type { AppDef } from './app-types';
import { APP_BACKGROUND_RGB, HINT_RGB, WALLET_HEADER_RGB } from './colors';
import { appPage, button, pageRow, textView } from './app-widgets';

export const WALLET_PKG = 'com.example.wallet';
export const WALLET_START_BALANCE_CENTS = 123456;
export const WALLET_PAYMENT_CENTS = 2500;

export function formatMoney(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}

const CONFIRM_RGB = [0x2e, 0x7d, 0x32] as const;

export const walletApp: AppDef = {
  pkg: WALLET_PKG,
  label: 'Wallet',
  system: false,
  launchable: true,
  header: WALLET_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'home',
  screens: {
    home: {
      activity: 'com.example.wallet.WalletActivity',
      exported: true,
      build(ctx) {
        const L = ctx.layout;
        const balance = ctx.data.num('balance_cents', WALLET_START_BALANCE_CENTS);
        const history = ['Coffee Shop   -$4.50', 'Salary   +$2,000.00', 'Groceries   -$56.20'];
        return appPage(L, WALLET_PKG, 'Wallet', WALLET_HEADER_RGB, [
          textView(L, WALLET_PKG, pageRow(L, 0, 24), 'Balance', { id: 'balance_label', color: HINT_RGB }),
          textView(L, WALLET_PKG, pageRow(L, 24, 72), formatMoney(balance), {
            id: 'balance',
            size: L.dp(32),
            bold: true,
          }),
          button(L, WALLET_PKG, pageRow(L, 88, 136), `Pay ${formatMoney(WALLET_PAYMENT_CENTS)}`, {
            id: 'pay_button',
            action: 'pay',
            color: WALLET_HEADER_RGB,
          }),
          textView(L, WALLET_PKG, pageRow(L, 160, 192), 'Recent activity', { bold: true }),
          ...history.map((line, i) =>
            textView(L, WALLET_PKG, pageRow(L, 200 + i * 40, 236 + i * 40), line, { id: 'history_row' }),
          ),
        ]);
      },
      onAction(action, ctx) {
        if (action === 'pay') ctx.open('confirm');
      },
    },
    confirm: {
      activity: 'com.example.wallet.ConfirmPaymentActivity',
      secure: true,
      build(ctx) {
        const L = ctx.layout;
        return appPage(L, WALLET_PKG, 'Confirm payment', WALLET_HEADER_RGB, [
          textView(L, WALLET_PKG, pageRow(L, 0, 48), `Send ${formatMoney(WALLET_PAYMENT_CENTS)} to Coffee Shop?`, {
            id: 'confirm_text',
            size: L.dp(20),
          }),
          button(L, WALLET_PKG, pageRow(L, 64, 112), 'Confirm payment', {
            id: 'confirm_button',
            action: 'confirm',
            color: CONFIRM_RGB,
          }),
          button(L, WALLET_PKG, pageRow(L, 128, 176), 'Cancel', {
            id: 'cancel_button',
            action: 'cancel',
            color: [0xe0, 0xe0, 0xe0],
          }),
        ]);
      },
      onAction(action, ctx) {
        if (action === 'cancel') ctx.finish();
        if (action !== 'confirm') return;
        ctx.data.set('balance_cents', ctx.data.num('balance_cents', WALLET_START_BALANCE_CENTS) - WALLET_PAYMENT_CENTS);
        ctx.data.set('payments', ctx.data.num('payments') + 1);
        ctx.finish();
        ctx.open('sent');
      },
    },
    sent: {
      activity: 'com.example.wallet.ReceiptActivity',
      build(ctx) {
        const L = ctx.layout;
        const balance = ctx.data.num('balance_cents', WALLET_START_BALANCE_CENTS);
        return appPage(L, WALLET_PKG, 'Receipt', WALLET_HEADER_RGB, [
          textView(L, WALLET_PKG, pageRow(L, 0, 48), 'Payment sent', { id: 'sent_text', size: L.dp(24), bold: true }),
          textView(L, WALLET_PKG, pageRow(L, 56, 88), `New balance: ${formatMoney(balance)}`, { id: 'balance' }),
          button(L, WALLET_PKG, pageRow(L, 104, 152), 'Done', {
            id: 'done_button',
            action: 'done',
            color: WALLET_HEADER_RGB,
          }),
        ]);
      },
      onAction(action, ctx) {
        if (action === 'done') ctx.finish();
      },
    },
  },
};
