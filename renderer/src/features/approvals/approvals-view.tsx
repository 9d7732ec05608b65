/**
 * Approvals: risky tool calls held until a person decides. Says in one sentence what the agent
 * is about to do, in which app, and why it was held, with the screen at that moment and the
 * target marked on it; the tool and its redacted arguments wait behind "Details for
 * developers". A countdown runs after which the call is refused — never executed.
 */
import type { AdminApproval, AdminState } from '../../../../main/contract/admin-api';
import type { ApprovalDecision } from '../../api/bridge-api';
import { Countdown } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { shortId } from '../../lib/time-format';
import { hasMessage } from '../../../../main/contract/i18n';
import { known, useT, type I18n } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useState } from 'react';
import { DoneNote, type Done } from '../../components/done-note';
import {
  approvalDone,
  ApprovalButtons,
  ApprovalReasons,
  ApprovalScreenshot,
  ApprovalSentence,
  AppIdentity,
} from './approval-parts';
import { useApi } from '../../api/api-context';

function riskTone(risk: string): Tone {
  const r = risk.toLowerCase();
  if (r === 'high' || r === 'critical') return 'danger';
  if (r === 'medium') return 'warn';
  return 'info';
}

function riskText(t: I18n['t'], risk: string): string {
  const key = `approvals.risk.${risk.toLowerCase()}`;
  return hasMessage(key) ? t(key) : t('approvals.risk.other', { risk });
}

export function ApprovalsView(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { approvals } = props.state;
  const { t } = useT();
  // An answered card leaves the list: what the answer did, and where to watch, stay here.
  const [done, setDone] = useState<Done | null>(null);
  return (
    <section aria-labelledby="approvals-heading">
      <header className="view-header">
        <h2 id="approvals-heading">{t('approvals.title')}</h2>
        <p className="view-sub">{t('approvals.sub')}</p>
      </header>
      <DoneNote done={done} onDismiss={() => setDone(null)} testId="approval-done" />
      {approvals.length === 0 ? (
        <EmptyState title={t('approvals.empty.title')} testId="approvals-empty">
          <p>{t('approvals.empty.text')}</p>
          <p className="hint">
            <Rich text={t('approvals.empty.hint')} />
          </p>
        </EmptyState>
      ) : (
        <ul className="approval-list" data-testid="approval-list">
          {approvals.map((approval) => (
            <ApprovalCard
              key={approval.approval_id}
              approval={approval}
              state={props.state}
              onChanged={props.onChanged}
              onDone={setDone}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function ApprovalCard(props: {
  approval: AdminApproval;
  state: AdminState;
  onChanged: () => void;
  onDone: (done: Done) => void;
}): React.JSX.Element {
  const api = useApi();
  const { approval } = props;
  const { t } = useT();
  const id = approval.approval_id;
  const phone = props.state.devices.find((d) => d.device_id === approval.device_id);
  const decide = useAction(
    async (decision: ApprovalDecision) => {
      await api.decideApproval({ approval_id: id, decision });
      return decision;
    },
    (decision) => {
      props.onDone(approvalDone(t, decision, approval.device_id, phone?.display_name ?? approval.device_id));
      props.onChanged();
    },
  );

  return (
    <li className="card approval-card" data-testid={`approval-${id}`}>
      <div className="approval-shot">
        <ApprovalScreenshot approval={approval} phoneName={phone?.display_name ?? t('approvals.shot.thePhone')} />
      </div>
      <div className="approval-body">
        <div className="card-title-row">
          {approval.app ? <AppIdentity app={approval.app} testId={`approval-app-${id}`} /> : <span />}
          <StatusBadge tone={riskTone(approval.risk)} testId={`approval-risk-${id}`}>
            {riskText(t, approval.risk)}
          </StatusBadge>
        </div>
        <h3 className="card-title approval-title">
          <ApprovalSentence approval={approval} testId={`approval-sentence-${id}`} />
        </h3>
        <p className="muted small">
          {t('approvals.on')} <b>{phone?.display_name ?? approval.device_id}</b> · {t('approvals.refusedIn')}{' '}
          <Countdown
            to={approval.expires_at}
            from={approval.created_at}
            warnBelowMs={30_000}
            testId={`approval-expires-${id}`}
          />
        </p>
        {approval.reasons.length > 0 ? (
          <>
            <h4>{t('approvals.why')}</h4>
            <ApprovalReasons approval={approval} testId={`approval-reasons-${id}`} />
          </>
        ) : null}
        <ApprovalButtons
          pending={decide.pending}
          onDecide={(decision) => decide.run(decision)}
          testIds={{
            once: `approval-approve-once-${id}`,
            lease: `approval-approve-lease-${id}`,
            deny: `approval-deny-${id}`,
          }}
        />
        <ErrorText error={decide.error} testId={`approval-error-${id}`} />
        <details className="approval-details" data-testid={`approval-details-${id}`}>
          <summary>{t('approvals.details')}</summary>
          <p className="small">
            {t('approvals.tool')} <code data-testid={`approval-tool-${id}`}>{approval.tool_id}</code> ·{' '}
            {t('approvals.channel')} <span className="mono">{shortId(approval.connector_channel_id)}</span>
          </p>
          {approval.risk_classes && approval.risk_classes.length > 0 ? (
            <p className="small" data-testid={`approval-classes-${id}`}>
              {t('approvals.classes', {
                classes: approval.risk_classes.map((c) => known(t, `settings.risk.${c}`, c)).join(' · '),
              })}
            </p>
          ) : null}
          <h4>{t('approvals.arguments')}</h4>
          <pre className="json" data-testid={`approval-arguments-${id}`}>
            {JSON.stringify(approval.arguments, null, 2)}
          </pre>
        </details>
      </div>
    </li>
  );
}
