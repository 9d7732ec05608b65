/**
 * One shared 1-second clock for every countdown on screen: a single interval runs only
 * while something is subscribed, so idle views cost nothing.
 */
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;
let now = Date.now();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const snapshot = (): number => now;

/** The current time in ms, re-rendering the caller once a second. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
