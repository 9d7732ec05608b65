/**
 * The settings' wiring: the state file in the data dir and Settings → Limits on top of it.
 * A damaged state file is kept aside and a saved limit that no longer holds is ignored; both
 * are warnings the person sees, and lines in the log. Start options win over saved changes,
 * saved changes over defaults (live-limits.ts).
 */
import type { BridgeEventSink } from '../events/bridge-events';
import type { Logger } from '../logging/logger';
import { StateStore } from '../store/state-store';
import { startLimits, type CoreOptionsInput } from './core-options';
import { LiveLimits } from './live-limits';

export interface SettingsPorts {
  input: CoreOptionsInput;
  options: { dataDir: string };
  events: BridgeEventSink;
  /** A warning the person sees (the console's and the terminal's). */
  warn: (message: string) => void;
  logger: Pick<Logger, 'warn'>;
}

export function wireSettings(ports: SettingsPorts): { store: StateStore; limits: LiveLimits } {
  const { warn, logger } = ports;
  const store = new StateStore(ports.options.dataDir, ({ movedTo, reason }) => {
    warn(
      `The state file was damaged (${reason.slice(0, 120)}); it was kept aside as ${movedTo} and the bridge started with empty state.`,
    );
    logger.warn('state file corrupt; kept aside', { movedTo });
  });
  const start = startLimits(ports.input);
  const limits = new LiveLimits({
    store,
    start: start.values,
    startNames: start.names,
    warn: (message) => {
      warn(message);
      logger.warn('saved limit ignored', { message });
    },
    events: ports.events,
  });
  return { store, limits };
}
