/**
 * com.android.vending: the app-store stand-in that `market://` links open (a real phone
 * sends them to Google Play). It only shows the link it was opened with; no launcher icon.
 */
import type { AppDef } from './app-types';
import { APP_BACKGROUND_RGB, GENERIC_HEADER_RGB } from './colors';
import { appPage, button, pageRow, textView } from './app-widgets';

export const STORE_PKG = 'com.android.vending';
export const STORE_ACTIVITY = 'com.google.android.finsky.activities.MainActivity';

export const storeApp: AppDef = {
  pkg: STORE_PKG,
  label: 'Play Store',
  system: true,
  launchable: false,
  header: GENERIC_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'details',
  screens: {
    details: {
      activity: STORE_ACTIVITY,
      exported: true,
      build(ctx) {
        const L = ctx.layout;
        const link = ctx.entry.params.url ?? '';
        const id = /[?&]id=([\w.]+)/.exec(link)?.[1] ?? 'an app';
        return appPage(L, STORE_PKG, 'Google Play', GENERIC_HEADER_RGB, [
          textView(L, STORE_PKG, pageRow(L, 0, 32), id, { id: 'title', bold: true }),
          button(L, STORE_PKG, pageRow(L, 48, 96), 'Install', {
            id: 'install_button',
            action: 'none',
            color: GENERIC_HEADER_RGB,
          }),
        ]);
      },
    },
  },
};
