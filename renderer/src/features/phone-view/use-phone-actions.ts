/**
 * The phone view's timeline data: fetched when the view opens and again on every `action`
 * (and `approval`) event from the bridge, at most four times a second however busy the
 * agent is. Each action's picture is fetched once and kept as an object URL while the
 * action is in the list; URLs of actions that left the ring are released, so a view left
 * open for hours holds at most one ring's worth.
 */
import { useEffect, useRef, useState } from 'react';
import type { AdminPhoneAction } from '../../../../main/contract/admin-api';
import { useApi } from '../../api/api-context';
import { useBridgeQuery } from '../../api/use-bridge-query';

export interface PhoneActions {
  actions: AdminPhoneAction[];
  capacity: number;
  /** Object URLs of the pictures fetched so far, by action id. */
  pictures: ReadonlyMap<string, string>;
  failed: boolean;
}

const MIN_INTERVAL_MS = 250;
const NO_ACTIONS: AdminPhoneAction[] = [];

export function usePhoneActions(deviceId: string): PhoneActions {
  const list = useBridgeQuery((api) => api.getDeviceActions({ device_id: deviceId }), [deviceId], {
    refetchOn: (event) => event.type === 'action' || event.type === 'approval',
    minIntervalMs: MIN_INTERVAL_MS,
  });
  const actions = list.data?.actions ?? NO_ACTIONS;
  const pictures = useActionPictures(deviceId, actions);
  return { actions, capacity: list.data?.capacity ?? 0, pictures, failed: list.error !== null };
}

/** The object URLs one phone's pictures are shown through; all released when the phone or view changes. */
interface PictureShelf {
  open: boolean;
  urls: Map<string, string>;
  fetching: Set<string>;
  /** The actions in the list now: a picture that arrives for another is dropped. */
  listed: Set<string>;
}

function useActionPictures(deviceId: string, actions: readonly AdminPhoneAction[]): ReadonlyMap<string, string> {
  const api = useApi();
  const [pictures, setPictures] = useState<ReadonlyMap<string, string>>(() => new Map());
  const shelf = useRef<PictureShelf | null>(null);

  useEffect(() => {
    const mine: PictureShelf = { open: true, urls: new Map(), fetching: new Set(), listed: new Set() };
    shelf.current = mine;
    setPictures(new Map());
    return () => {
      mine.open = false;
      for (const url of mine.urls.values()) URL.revokeObjectURL(url);
      mine.urls.clear();
    };
  }, [api, deviceId]);

  useEffect(() => {
    const mine = shelf.current;
    if (!mine?.open) return;
    mine.listed = new Set(actions.map((a) => a.action_id));
    let released = false;
    for (const [id, url] of mine.urls) {
      if (mine.listed.has(id)) continue;
      URL.revokeObjectURL(url);
      mine.urls.delete(id);
      released = true;
    }
    if (released) setPictures(new Map(mine.urls));
    for (const action of actions) {
      const id = action.action_id;
      if (!action.screen || mine.urls.has(id) || mine.fetching.has(id)) continue;
      mine.fetching.add(id);
      api.getActionScreen({ device_id: deviceId, action_id: id }).then(
        (blob) => {
          mine.fetching.delete(id);
          if (!mine.open || !mine.listed.has(id)) return;
          mine.urls.set(id, URL.createObjectURL(blob));
          setPictures(new Map(mine.urls));
        },
        () => mine.fetching.delete(id),
      );
    }
  }, [api, deviceId, actions]);

  return pictures;
}
