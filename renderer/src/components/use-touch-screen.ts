/**
 * Whether the person points with a finger (a phone, a tablet) rather than a mouse: the
 * words that teach how to drive a phone say "tap" and "drag" there, never "click", "wheel" or
 * "keyboard" (issue #37 point 4). Follows the browser's own answer as it changes (a tablet
 * that gets a mouse).
 */
import { useSyncExternalStore } from 'react';

const COARSE = '(pointer: coarse)';

function subscribe(listener: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const query = window.matchMedia(COARSE);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

function snapshot(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(COARSE).matches;
}

/** True while the main pointer is a finger. */
export function useTouchScreen(): boolean {
  return useSyncExternalStore(subscribe, snapshot, () => false);
}
