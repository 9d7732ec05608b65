/**
 * Renderer entry: picks the transport (the preload's `window.deviceBridge` in the desktop
 * app, the admin HTTP API with the console token otherwise) and mounts the app.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { bridgePathBase } from './api/bridge-path';
import { forgetConsoleToken, takeConsoleToken } from './api/console-token';
import { createHttpTransport } from './api/http-transport';
import { createIpcTransport, findIpcBridge } from './api/ipc-transport';
import { App } from './app';
import { TokenScreen } from './components/token-screen';
import { I18nProvider } from './i18n/i18n-context';

function start(): void {
  const container = document.getElementById('root');
  if (!container) throw new Error('index.html has no #root element');
  const root = createRoot(container);
  const ipc = findIpcBridge(window);
  if (ipc) {
    root.render(
      <StrictMode>
        <App api={createIpcTransport(ipc)} />
      </StrictMode>,
    );
    return;
  }
  const token = takeConsoleToken(window);
  if (!token) {
    root.render(
      <I18nProvider>
        <TokenScreen reason="missing" />
      </I18nProvider>,
    );
    return;
  }
  // The page's own origin, under a reverse proxy's path prefix when there is one.
  const api = createHttpTransport({ origin: bridgePathBase(window.location.pathname), token });
  root.render(
    <StrictMode>
      <App api={api} onUnauthorized={() => forgetConsoleToken(window)} />
    </StrictMode>,
  );
}

start();
