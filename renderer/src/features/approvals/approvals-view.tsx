/**
 * Approvals: risky tool calls held until a person decides. Shows what the agent is about
 * to do (screen at that moment, tool, redacted arguments, why it was held) and a countdown
 * after which the call is refused — never executed.
 */
import type { AdminApproval, AdminState } from '../../../../main/contract/admin-api';
import type { ApprovalDecision, BridgeApi } from '../../api/bridge-api';
import { bridgePath } from '../../api/bridge-path';
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

export function ApprovalsView(props: { api: BridgeApi; state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { approvals } = props.state;
  const { t } = useT();
  return (
    <section aria-labelledby="approvals-heading">
      <header className="view-header">
        <h2 id="approvals-heading">{t('approvals.title')}</h2>
        <p className="view-sub">{t('approvals.sub')}</p>
      </header>
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
              api={props.api}
              approval={approval}
              state={props.state}
              onChanged={props.onChanged}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function ApprovalCard(props: {
  api: BridgeApi;
  approval: AdminApproval;
  state: AdminState;
  onChanged: () => void;
}): React.JSX.Element {
  const { approval } = props;
  const { t } = useT();
  const id = approval.approval_id;
  const decide = useAction((decision: ApprovalDecision) => props.api.decideApproval(id, decision), props.onChanged);
  const phone = props.state.devices.find((d) => d.device_id === approval.device_id);

  return (
    <li className="card approval-card" data-testid={`approval-${id}`}>
      <div className="approval-shot">
        {approval.screenshot_url ? (
          <img
            src={bridgePath(approval.screenshot_url)}
            alt={t('approvals.shot.alt', { name: phone?.display_name ?? t('approvals.shot.thePhone') })}
            data-testid={`approval-screenshot-${id}`}
          />
        ) : (
          <span className="thumb-placeholder" data-testid={`approval-screenshot-${id}`}>
            {t('approvals.shot.none')}
          </span>
        )}
      </div>
      <div className="approval-body">
        <div className="card-title-row">
          <h3 className="card-title mono" data-testid={`approval-tool-${id}`}>
            {approval.tool_id}
          </h3>
          <StatusBadge tone={riskTone(approval.risk)} testId={`approval-risk-${id}`}>
            {riskText(t, approval.risk)}
          </StatusBadge>
        </div>
        <p className="muted small">
          {t('approvals.on')} <b>{phone?.display_name ?? approval.device_id}</b> · {t('approvals.channel')}{' '}
          <span className="mono">{shortId(approval.connector_channel_id)}</span> · {t('approvals.refusedIn')}{' '}
          <Countdown to={approval.expires_at} warnBelowMs={30_000} testId={`approval-expires-${id}`} />
        </p>
        {approval.reasons.length > 0 ? (
          <>
            <h4>{t('approvals.why')}</h4>
            {approval.risk_classes && approval.risk_classes.length > 0 ? (
              <p className="small" data-testid={`approval-classes-${id}`}>
                {t('approvals.classes', {
                  classes: approval.risk_classes.map((c) => known(t, `settings.risk.${c}`, c)).join(' · '),
                })}
              </p>
            ) : null}
            <ul className="reasons" data-testid={`approval-reasons-${id}`}>
              {approval.reasons.map((reason, i) => (
                <li key={`${i}-${reason}`}>{reason}</li>
              ))}
            </ul>
          </>
        ) : null}
        <h4>{t('approvals.arguments')}</h4>
        <pre className="json" data-testid={`approval-arguments-${id}`}>
          {JSON.stringify(approval.arguments, null, 2)}
        </pre>
        <div className="actions">
          <button
            type="button"
            className="btn btn-primary"
            disabled={decide.pending}
            onClick={() => decide.run('approve')}
            data-testid={`approval-approve-once-${id}`}
          >
            {t('approvals.approveOnce')}
          </button>
          <button
            type="button"
            className="btn"
            disabled={decide.pending}
            onClick={() => decide.run('approve_for_lease')}
            data-testid={`approval-approve-lease-${id}`}
            title={t('approvals.approveLeaseTitle')}
          >
            {t('approvals.approveLease')}
          </button>
          <button
            type="button"
            className="btn btn-danger"
            disabled={decide.pending}
            onClick={() => decide.run('deny')}
            data-testid={`approval-deny-${id}`}
          >
            {t('approvals.deny')}
          </button>
        </div>
        <ErrorText error={decide.error} testId={`approval-error-${id}`} />
      </div>
    </li>
  );
}
