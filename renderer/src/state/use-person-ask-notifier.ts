/**
 * The web console's notification of an agent's ask (docs/REFERENCE.md "Ask the person"): the
 * browser's Notification API, only when the person allowed it and only when the page is not in
 * front (then the ask's card shows it). A click brings the page forward, where the card is. The
 * desktop app notifies through Electron instead (main/electron/desktop-app.ts), so this runs in
 * the web console only.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminState } from '../api/bridge-api';
import { useT } from '../i18n/i18n-context';
import { unansweredAsks } from '../features/person-asks/person-ask-cards';

/** What the browser lets this page do: 'unsupported' when it has no Notification API. */
export type NotifyPermission = NotificationPermission | 'unsupported';

function currentPermission(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Whether the person is looking at the page now: a visible, focused page shows the card itself. */
function pageInFront(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

export function usePersonAskNotifier(
  state: AdminState | null,
  enabled: boolean,
): { permission: NotifyPermission; allow: () => void } {
  const { t } = useT();
  const [permission, setPermission] = useState<NotifyPermission>(currentPermission);
  const seen = useRef(new Set<string>());

  useEffect(() => {
    if (!state || !enabled) return;
    const asks = unansweredAsks(state);
    const previous = seen.current;
    seen.current = new Set(asks.map((a) => a.ask.ask_id));
    if (currentPermission() !== 'granted' || pageInFront()) return;
    for (const { device, ask } of asks) {
      if (previous.has(ask.ask_id)) continue;
      const notification = new Notification(t('asks.notify.title', { phone: device.display_name }), {
        body: t('asks.notify.body', { reason: ask.reason }),
        tag: ask.ask_id,
      });
      notification.onclick = () => {
        window.focus();
        notification.close();
      };
    }
  }, [state, enabled, t]);

  const allow = useCallback(() => {
    if (typeof Notification === 'undefined') return;
    void Notification.requestPermission().then(setPermission);
  }, []);

  return { permission, allow };
}
