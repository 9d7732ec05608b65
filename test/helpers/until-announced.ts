/**
 * Waiting for what the console would show, the way the console learns of it: the bridge
 * announces each change on its event hub (what the admin events stream and the desktop IPC
 * carry), and the test reads again on each announcement of the types it names. There is no
 * polling: a change that is never announced is never seen, as in the console, and the wait
 * fails at its deadline with the last reading.
 */
import type { AdminEventType } from '../../main/contract/admin-api';
import type { HubEvent } from '../../main/core/events/event-hub';
import type { TestBridge } from './bridge';

/**
 * Resolves with the first reading `accept` takes: one now, then one after each announcement
 * of `types` (announcements made while a reading is under way count for the next one).
 */
export async function untilAnnounced<R>(
  bridge: TestBridge,
  types: AdminEventType | readonly AdminEventType[],
  read: () => Promise<R>,
  accept: (reading: R) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<R> {
  const wanted = new Set<AdminEventType>(typeof types === 'string' ? [types] : types);
  let announced: boolean;
  let wake: (() => void) | undefined;
  const listener = (event: HubEvent): void => {
    if (!wanted.has(event.type)) return;
    announced = true;
    wake?.();
  };
  const hub = bridge.core.hub;
  hub.on('event', listener);
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      announced = false;
      const reading = await read();
      if (accept(reading)) return reading;
      const late = (): Error =>
        new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last reading: ${JSON.stringify(reading)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw late();
      if (!announced) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
        wake = undefined;
        if (!announced) throw late();
      }
    }
  } finally {
    clearTimeout(timer);
    hub.off('event', listener);
  }
}
