/**
 * Renderer entry: picks the transport (the preload's `window.deviceBridge` in the desktop
 * app, the admin HTTP API with the console token otherwise) and mounts the app; a new token
 * pasted into the open tab mounts it again with that token.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { bridgePathBase } from './api/bridge-path';
import { forgetConsoleToken, takeConsoleToken, tokenFromFragment } from './api/console-token';
import { createHttpTransport } from './api/http-transport';
import { createIpcTransport, findIpcBridge } from './api/ipc-transport';
import { ApiProvider } from './api/api-context';
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
        <ApiProvider api={createIpcTransport(ipc)}>
          <App />
        </ApiProvider>
      </StrictMode>,
    );
    return;
  }
  let token = takeConsoleToken(window);
  const show = (): void => {
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
        <ApiProvider key={token} api={api}>
          <App onUnauthorized={() => forgetConsoleToken(window)} />
        </ApiProvider>
      </StrictMode>,
    );
  };
  // The console link pasted into this open tab changes only the fragment: no reload happens,
  // so its token is taken here. Registered before the app's own listener (use-console-route),
  // which then reads the address without it.
  window.addEventListener('hashchange', () => {
    if (tokenFromFragment(window.location.hash) === null) return;
    const pasted = takeConsoleToken(window);
    if (pasted === token) return;
    token = pasted;
    show();
  });
  show();
}

start();
