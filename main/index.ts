/**
 * Electron entry: starts the same core as the headless CLI with its data under userData and
 * opens the window. Everything Electron-specific lives in main/electron/.
 */
import { startDesktopApp } from './electron/desktop-app';

void startDesktopApp();
