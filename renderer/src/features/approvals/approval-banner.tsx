/**
 * The held call that waits for the person, as a banner at the top of every view but Approvals
 * (issue #37 point 3): on a phone the Approvals list can sit far down or out of the tab bar, so
 * the oldest waiting call is answered here, in one sentence with Approve / Deny within reach;
 * the others are counted and one link away. The screenshot and the reasons stay on Approvals,
 * where there is room for them.
 */
import type { AdminApproval, AdminState } from '../../../../main/contract/admin-api';
import type { ConsoleRoute } from '../../../../main/contract/console-route';
import type { ApprovalDecision } from '../../api/bridge-api';
import { Countdown } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useState } from 'react';
import { DoneNote, type Done } from '../../components/done-note';
import { approvalDone, ApprovalButtons, ApprovalSentence } from './approval-parts';
import { useApi } from '../../api/api-context';

export function ApprovalBanner(props: {
  state: AdminState;
  onChanged: () => void;
  go: (route: ConsoleRoute) => void;
}): React.JSX.Element | null {
  const { t } = useT();
  // The banner goes with the last waiting call: what the answer did, and where to watch, stay.
  const [done, setDone] = useState<Done | null>(null);
  // Oldest first: the one closest to being refused is the one to answer now.
  const waiting = [...props.state.approvals].sort((a, b) => a.expires_at - b.expires_at);
  const first = waiting[0];
  if (!first) return <DoneNote done={done} onDismiss={() => setDone(null)} testId="approval-banner-done" />;
  const phone = props.state.devices.find((d) => d.device_id === first.device_id)?.display_name ?? first.device_id;
  return (
    <section
      className="approval-banner"
      role="alert"
      aria-label={t('approvals.banner.region')}
      data-testid="approval-banner"
    >
      <p className="approval-banner-title">{t('approvals.banner.title')}</p>
      {/* Keyed by the call: a new call gets fresh buttons, never the last one's pending state. */}
      <BannerCall key={first.approval_id} {...props} approval={first} phone={phone} onDone={setDone} />
      <p className="approval-banner-more">
        {waiting.length > 1 ? (
          <span data-testid="approval-banner-more">{t('approvals.banner.more', { count: waiting.length - 1 })} · </span>
        ) : null}
        <a
          href="#/approvals"
          onClick={(event) => {
            event.preventDefault();
            props.go({ section: 'approvals' });
          }}
          title={t('approvals.banner.openTitle')}
          data-testid="approval-banner-open"
        >
          {t('approvals.banner.open')}
        </a>
      </p>
    </section>
  );
}

function BannerCall(props: {
  approval: AdminApproval;
  phone: string;
  onChanged: () => void;
  onDone: (done: Done) => void;
}): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const id = props.approval.approval_id;
  const decide = useAction(
    async (decision: ApprovalDecision) => {
      await api.decideApproval({ approval_id: id, decision });
      return decision;
    },
    (decision) => {
      props.onDone(approvalDone(t, decision, props.approval.device_id, props.phone));
      props.onChanged();
    },
  );
  return (
    <div className="approval-banner-call" data-approval={id}>
      <p className="approval-banner-sentence">
        <ApprovalSentence approval={props.approval} testId="approval-banner-sentence" />
      </p>
      <p className="muted small">
        {t('approvals.banner.on', { phone: props.phone })}{' '}
        <Countdown
          to={props.approval.expires_at}
          from={props.approval.created_at}
          warnBelowMs={30_000}
          testId="approval-banner-expires"
        />
      </p>
      <ApprovalButtons
        pending={decide.pending}
        onDecide={(decision) => decide.run(decision)}
        testIds={{
          once: 'approval-banner-approve',
          lease: 'approval-banner-approve-lease',
          deny: 'approval-banner-deny',
        }}
      />
      <ErrorText error={decide.error} testId="approval-banner-error" />
    </div>
  );
}
