/**
 * Electron entry: starts the same core as the headless CLI with its data under userData and
 * opens the window. Everything Electron-specific lives in main/electron/.
 */
import { app, dialog } from 'electron';
import { startDesktopApp } from './electron/desktop-app';

startDesktopApp().catch((error: unknown) => {
  // A start-up failure (port taken, unreadable data folder…) is shown, not left as a silent tray-less process.
  const message = error instanceof Error ? error.message : String(error);
  dialog.showErrorBox('xAgent Device Bridge could not start', message);
  app.exit(1);
});
