/**
 * Electron entry: starts the same core as the headless CLI with its data under userData and
 * opens the window. Everything Electron-specific lives in main/electron/.
 */
import { app, dialog } from 'electron';
import { startDesktopApp } from './electron/desktop-app';
import { pickLocale, translate } from './contract/i18n';

startDesktopApp().catch((error: unknown) => {
  // A start-up failure (port taken, unreadable data folder…) is shown, not left as a silent tray-less process.
  const message = error instanceof Error ? error.message : String(error);
  // The bridge's own language setting is out of reach when it could not start: the system's languages.
  dialog.showErrorBox(translate(pickLocale(app.getPreferredSystemLanguages()), 'common.app.startFailed'), message);
  app.exit(1);
});
