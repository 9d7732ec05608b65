/**
 * com.example.login: username + password (a real password field) and Sign in. ENTER in the
 * username field moves to the password; ENTER in the password field signs in. Signing in
 * needs both fields and shows "Welcome, <user>".
 */
import type { ActionContext, AppDef } from './app-types';
import { APP_BACKGROUND_RGB, LOGIN_HEADER_RGB } from './colors';
import { appPage, button, editText, errorText, pageRow, textView } from './app-widgets';
import { rect } from './ui-node';

export const LOGIN_PKG = 'com.example.login';

function signIn(ctx: ActionContext): void {
  const user = ctx.field('username').text;
  const password = ctx.field('password').text;
  if (user.trim() === '') {
    ctx.entry.state.set('error', 'Enter your username');
    return;
  }
  if (password === '') {
    ctx.entry.state.set('error', 'Enter your password');
    return;
  }
  ctx.entry.state.delete('error');
  ctx.data.set('signed_in_user', user);
  ctx.setField('password', '');
  ctx.focus(undefined);
  ctx.open('welcome', { user });
}

export const loginApp: AppDef = {
  pkg: LOGIN_PKG,
  label: 'Login',
  system: false,
  launchable: true,
  header: LOGIN_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'login',
  screens: {
    login: {
      activity: 'com.example.login.LoginActivity',
      exported: true,
      build(ctx) {
        const L = ctx.layout;
        const m = L.margin;
        let y = L.body.top + m;
        const next = (height: number): ReturnType<typeof rect> => {
          const r = rect(m, y, L.width - m, y + height);
          y += height + m;
          return r;
        };
        const body = [
          textView(L, LOGIN_PKG, next(L.dp(32)), 'Sign in to continue', { id: 'prompt' }),
          editText(ctx, next(L.dp(56)), { id: 'username', hint: 'Username' }),
          editText(ctx, next(L.dp(56)), { id: 'password', hint: 'Password', password: true }),
          button(L, LOGIN_PKG, next(L.dp(48)), 'Sign in', {
            id: 'sign_in',
            action: 'sign_in',
            color: LOGIN_HEADER_RGB,
          }),
        ];
        const error = ctx.entry.state.str('error');
        if (error) body.push(errorText(L, LOGIN_PKG, next(L.dp(32)), error, 'error'));
        return appPage(L, LOGIN_PKG, 'Sign in', LOGIN_HEADER_RGB, body);
      },
      onAction(action, ctx) {
        if (action === 'sign_in') signIn(ctx);
      },
      onSubmit(fieldId, ctx) {
        if (fieldId === 'username') ctx.focus('password');
        else signIn(ctx);
        return true;
      },
    },
    welcome: {
      activity: 'com.example.login.WelcomeActivity',
      build(ctx) {
        const L = ctx.layout;
        const user = ctx.entry.params.user ?? '';
        return appPage(L, LOGIN_PKG, 'Welcome', LOGIN_HEADER_RGB, [
          textView(L, LOGIN_PKG, pageRow(L, 0, 48), `Welcome, ${user}`, {
            id: 'welcome_text',
            size: L.dp(24),
            bold: true,
          }),
          button(L, LOGIN_PKG, pageRow(L, 64, 112), 'Sign out', {
            id: 'sign_out',
            action: 'sign_out',
            color: LOGIN_HEADER_RGB,
          }),
        ]);
      },
      onAction(action, ctx) {
        if (action !== 'sign_out') return;
        ctx.data.delete('signed_in_user');
        ctx.finish();
      },
    },
  },
};
