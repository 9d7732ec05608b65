/**
 * Announces newly arrived approval and pairing requests and agents' asks to screen readers (aria-live) and
 * keeps the tab title showing how many wait, so a person in another tab notices.
 */
import { useEffect, useRef, useState } from 'react';
import type { AdminState } from '../api/bridge-api';
import { approvalSentence } from '../../../main/contract/approval-wording';
import { useT } from '../i18n/i18n-context';
import { unansweredAsks } from '../features/person-asks/person-ask-cards';

export function useApprovalAnnouncer(state: AdminState | null, baseTitle: string): string {
  const { t } = useT();
  const [announcement, setAnnouncement] = useState('');
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    if (!state) return;
    const asks = unansweredAsks(state);
    const ids = new Set([
      ...state.approvals.map((a) => `a:${a.approval_id}`),
      ...state.pairings.map((p) => `p:${p.auth_session_id}`),
      ...asks.map(({ ask }) => `k:${ask.ask_id}`),
    ]);
    const previous = seen.current;
    seen.current = ids;
    // The first state is what was already waiting, not news.
    if (!previous) return;
    const messages: string[] = [];
    for (const approval of state.approvals) {
      if (previous.has(`a:${approval.approval_id}`)) continue;
      const phone = state.devices.find((d) => d.device_id === approval.device_id)?.display_name ?? approval.device_id;
      messages.push(t('common.announce.approval', { sentence: approvalSentence(t, approval), phone }));
    }
    for (const { device, ask } of asks) {
      if (!previous.has(`k:${ask.ask_id}`))
        messages.push(t('asks.announce', { phone: device.display_name, reason: ask.reason }));
    }
    for (const pairing of state.pairings) {
      if (!previous.has(`p:${pairing.auth_session_id}`))
        messages.push(t('common.announce.pairing', { code: pairing.code }));
    }
    if (messages.length > 0) setAnnouncement(messages.join(' '));
  }, [state, t]);

  const waiting = state ? state.approvals.length + state.pairings.length + unansweredAsks(state).length : 0;
  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) ${baseTitle}` : baseTitle;
  }, [waiting, baseTitle]);

  return announcement;
}
