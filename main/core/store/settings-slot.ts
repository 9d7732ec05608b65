/**
 * One saved setting as a small store of its own (a phone program's consent, the stream's),
 * so a room keeps its consent without knowing the state file's shape or repeating the
 * read-with-default and write-in-a-draft dance.
 */
import type { PersistedState, StateStore } from './state-store';

type Settings = PersistedState['settings'];

export interface SettingsSlot<T> {
  get(): T;
  set(next: T): void;
}

/** The setting `key` of `store`, read as `fallback` while it was never saved. */
export function settingsSlot<K extends keyof Settings>(
  store: Pick<StateStore, 'get' | 'update'>,
  key: K,
  fallback: NonNullable<Settings[K]>,
): SettingsSlot<NonNullable<Settings[K]>> {
  return {
    get: () => store.get().settings[key] ?? fallback,
    set: (next) =>
      store.update((draft) => {
        draft.settings[key] = next;
      }),
  };
}
