/**
 * The phone view's timeline data: fetched when the view opens and again on every `action`
 * (and `approval`) event from the bridge, at most four times a second however busy the
 * agent is (RefetchScheduler). Each action's picture is fetched once and kept as an object
 * URL while the action is in the list; URLs of actions that left the ring are released, so a
 * view left open for hours holds at most one ring's worth.
 */
import { useEffect, useRef, useState } from 'react';
import type { AdminPhoneAction } from '../../../../main/contract/admin-api';
import { RefetchScheduler } from '../../api/refetch-scheduler';
import { useApi } from '../../api/api-context';

export interface PhoneActions {
  actions: AdminPhoneAction[];
  capacity: number;
  /** Object URLs of the pictures fetched so far, by action id. */
  pictures: ReadonlyMap<string, string>;
  failed: boolean;
}

export function usePhoneActions(deviceId: string): PhoneActions {
  const api = useApi();
  const [data, setData] = useState<PhoneActions>({ actions: [], capacity: 0, pictures: new Map(), failed: false });
  const pictures = useRef(new Map<string, string>());

  useEffect(() => {
    let disposed = false;
    const owned = pictures.current;
    const fetching = new Set<string>();
    const publish = (actions: AdminPhoneAction[], capacity: number, failed: boolean): void => {
      if (!disposed) setData({ actions, capacity, pictures: new Map(owned), failed });
    };
    let latest: { actions: AdminPhoneAction[]; capacity: number } = { actions: [], capacity: 0 };

    const fetchPicture = (action: AdminPhoneAction): void => {
      if (!action.screen || owned.has(action.action_id) || fetching.has(action.action_id)) return;
      fetching.add(action.action_id);
      api.getActionScreen({ device_id: deviceId, action_id: action.action_id }).then(
        (blob) => {
          fetching.delete(action.action_id);
          if (disposed || !latest.actions.some((a) => a.action_id === action.action_id)) return;
          owned.set(action.action_id, URL.createObjectURL(blob));
          publish(latest.actions, latest.capacity, false);
        },
        () => fetching.delete(action.action_id),
      );
    };

    const refetch = new RefetchScheduler(async () => {
      try {
        const answer = await api.getDeviceActions({ device_id: deviceId });
        if (disposed) return;
        latest = { actions: answer.actions, capacity: answer.capacity };
        const keep = new Set(answer.actions.map((a) => a.action_id));
        for (const [id, url] of owned) {
          if (keep.has(id)) continue;
          URL.revokeObjectURL(url);
          owned.delete(id);
        }
        publish(answer.actions, answer.capacity, false);
        for (const action of answer.actions) fetchPicture(action);
      } catch {
        publish(latest.actions, latest.capacity, true);
      }
    }, 250);
    refetch.trigger();
    const unsubscribe = api.subscribe(
      (event) => {
        if (event.type === 'action' || event.type === 'approval') refetch.trigger();
      },
      (status) => {
        // Events may have been missed while the stream was down.
        if (status === 'live') refetch.trigger();
      },
    );
    return () => {
      disposed = true;
      refetch.dispose();
      unsubscribe();
      for (const url of owned.values()) URL.revokeObjectURL(url);
      owned.clear();
    };
  }, [api, deviceId]);

  return data;
}
