/**
 * The client (HTTP or IPC) for every component below the app shell, from one React context
 * instead of a prop handed down through each view.
 */
import { createContext, useContext } from 'react';
import type { BridgeApi } from './bridge-api';

const ApiContext = createContext<BridgeApi | null>(null);

export function ApiProvider(props: { api: BridgeApi; children: React.ReactNode }): React.JSX.Element {
  return <ApiContext.Provider value={props.api}>{props.children}</ApiContext.Provider>;
}

/** The client; a component outside ApiProvider is a programming error and says so. */
export function useApi(): BridgeApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() outside <ApiProvider>');
  return api;
}
