/**
 * Bindings & leases: every channel xAgent has bound, which phone it holds, who holds it as
 * far as the bridge knows (how it bound and when, the pairing code and the words the agent was
 * shown, the name given on the lab form), how long the lease still runs (max duration and idle
 * timeout, ticking), and Extend / Revoke. Bindings that ended (signed out, revoked, expired)
 * move to History, newest first, with how they ended.
 */
import type {
  AdminBindingHistoryEntry,
  AdminBindingHolder,
  AdminChannel,
  AdminState,
} from '../../../../main/contract/admin-api';
import { ConfirmButton } from '../../components/confirm-button';
import { Countdown, RelativeTime } from '../../components/countdown';
import { LeasePaused } from '../../components/lease-paused';
import { AwayIdle, AwayNote } from '../../components/away-note';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { shortId } from '../../lib/time-format';
import { hasMessage } from '../../../../main/contract/i18n';
import { known, useT, type I18n } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { toolName } from '../../lib/tool-names';
import { holderShown, shownWords } from '../../lib/agent-shown';
import { useApi } from '../../api/api-context';

export const EXTEND_MS = 30 * 60 * 1000;

function statusTone(status: string): Tone {
  if (status === 'connected') return 'ok';
  if (status === 'revoked' || status === 'error' || status === 'expired') return 'danger';
  if (status === 'pending' || status === 'connecting' || status === 'authenticating') return 'info';
  if (status === 'disconnected' || status === 'unavailable') return 'warn';
  return 'neutral';
}

function statusText(t: I18n['t'], status: string): string {
  const key = `bindings.status.${status}`;
  return hasMessage(key) ? t(key) : status;
}

/** A channel whose binding holds its phone now; one that ended is listed under History instead. */
export function isActiveBinding(channel: AdminChannel): boolean {
  return (
    channel.device_id !== null && channel.descriptor_status !== 'revoked' && channel.descriptor_status !== 'expired'
  );
}

export function BindingsView(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const channels = props.state.channels.filter(isActiveBinding);
  const history = props.state.binding_history ?? [];
  const { t } = useT();
  return (
    <section aria-labelledby="bindings-heading">
      <header className="view-header">
        <h2 id="bindings-heading">{t('bindings.title')}</h2>
        <p className="view-sub">{t('bindings.sub')}</p>
      </header>
      {channels.length === 0 ? (
        <EmptyState title={t('bindings.empty.title')} testId="bindings-empty">
          <p>
            <Rich text={t('bindings.empty.text')} />
          </p>
        </EmptyState>
      ) : (
        <ul className="row-list" data-testid="channel-list">
          {channels.map((channel) => (
            <ChannelRow
              key={channel.connector_channel_id}
              channel={channel}
              paused={props.state.devices.some((d) => d.device_id === channel.device_id && d.taken_over)}
              onChanged={props.onChanged}
            />
          ))}
        </ul>
      )}
      {history.length > 0 ? <BindingHistory history={history} /> : null}
    </section>
  );
}

/** How a binding came about, in words: who approved, with which code. */
function howBound(t: I18n['t'], holder: AdminBindingHolder): string {
  if (holder.how === 'access_code') return t('bindings.how.access_code');
  if (holder.how === 'access_code_approved') return t('bindings.how.access_code_approved');
  return holder.code ? t('bindings.how.approved', { code: holder.code }) : t('bindings.how.approvedNoCode');
}

/** What the binding knows of who holds it: the claimant's name, how and when it bound, the words shown. */
function HolderFacts(props: {
  holder: AdminBindingHolder | null | undefined;
  boundAt: number | null;
  id: string;
}): React.JSX.Element {
  const { t, format } = useT();
  const { holder } = props;
  if (!holder) {
    return (
      <>
        <dt>{t('bindings.fact.how')}</dt>
        <dd className="muted" data-testid={`binding-how-${props.id}`}>
          {t('bindings.how.unknown')}
        </dd>
      </>
    );
  }
  const shown = holderShown(holder);
  return (
    <>
      <dt>{t('bindings.fact.holder')}</dt>
      <dd data-testid={`binding-holder-${props.id}`}>
        {holder.requester ? (
          <strong>{holder.requester}</strong>
        ) : (
          <span className="muted">{t('bindings.holder.noName')}</span>
        )}
        {holder.claimed_as ? (
          <span className="muted"> · {t('bindings.holder.claimedAs', { name: holder.claimed_as })}</span>
        ) : null}
        {holder.client_address ? (
          <span className="muted small"> · {t('bindings.holder.from', { address: holder.client_address })}</span>
        ) : null}
      </dd>
      <dt>{t('bindings.fact.how')}</dt>
      <dd data-testid={`binding-how-${props.id}`}>
        {howBound(t, holder)}
        {props.boundAt !== null ? (
          <span className="muted">
            {' · '}
            <time dateTime={new Date(props.boundAt).toISOString()}>{format.dateTime(props.boundAt)}</time>
          </span>
        ) : null}
        {holder.requested_at !== null && props.boundAt !== null && props.boundAt - holder.requested_at >= 1000 ? (
          <span className="muted small">
            {' '}
            ({t('bindings.holder.asked', { when: format.clock(holder.requested_at, props.boundAt) })})
          </span>
        ) : null}
      </dd>
      {shown && holder.message ? (
        <>
          <dt>{t('bindings.fact.message')}</dt>
          {/* The console's words for what the bridge told the agent; the English it got is the tooltip. */}
          <dd className="small" data-testid={`binding-message-${props.id}`} title={holder.message}>
            {shownWords(t, shown, holder.code)}
          </dd>
        </>
      ) : null}
    </>
  );
}

/** Bindings that ended, newest first, each with how it ended. */
function BindingHistory(props: { history: readonly AdminBindingHistoryEntry[] }): React.JSX.Element {
  const { t, format } = useT();
  return (
    <section aria-labelledby="bindings-history-heading">
      <h3 id="bindings-history-heading" className="section-title">
        {t('bindings.history.title')}
      </h3>
      <p className="hint">{t('bindings.history.hint')}</p>
      <ul className="row-list compact" data-testid="binding-history">
        {props.history.map((entry) => {
          const id = `${entry.connector_channel_id}-${entry.ended_at}`;
          return (
            <li
              key={id}
              className="row"
              data-testid={`binding-history-${entry.connector_channel_id}`}
              data-end={entry.end}
            >
              <div className="row-main">
                <div className="card-title-row">
                  <h4 className="card-title history-title">{entry.display_name}</h4>
                  <StatusBadge
                    tone={entry.end === 'logout' ? 'neutral' : entry.end === 'revoked' ? 'danger' : 'warn'}
                    testId={`binding-history-end-${entry.connector_channel_id}`}
                  >
                    {t(`bindings.end.${entry.end}`)}
                  </StatusBadge>
                  <span className="muted small">
                    <time dateTime={new Date(entry.ended_at).toISOString()}>{format.dateTime(entry.ended_at)}</time>
                  </span>
                </div>
                <dl className="facts facts-wide">
                  <HolderFacts holder={entry.holder} boundAt={entry.bound_at} id={id} />
                  <dt>{t('bindings.fact.lastAction')}</dt>
                  <dd>
                    {entry.last_action ? (
                      <>
                        {toolName(t, entry.last_action.tool_id)} ·{' '}
                        {entry.last_action.outcome === 'ok'
                          ? t('activity.outcome.ok')
                          : known(t, `errors.${entry.last_action.outcome}`, entry.last_action.outcome)}
                      </>
                    ) : (
                      t('bindings.noneYet')
                    )}
                  </dd>
                  <dt>{t('bindings.fact.channel')}</dt>
                  <dd className="mono small muted" title={entry.connector_channel_id}>
                    {shortId(entry.connector_channel_id)}
                  </dd>
                </dl>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function ChannelRow(props: {
  channel: AdminChannel;
  /** Its phone is taken over: the lease's timers stand still until the hand-back. */
  paused: boolean;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { channel } = props;
  const { t } = useT();
  const id = channel.connector_channel_id;
  const extend = useAction(
    () => api.extendChannel({ connector_channel_id: id, extend_ms: EXTEND_MS }),
    props.onChanged,
  );
  const revoke = useAction(() => api.revokeChannel({ connector_channel_id: id }), props.onChanged);
  const bound = channel.device_id !== null;

  return (
    <li className="row channel-row" data-testid={`channel-${id}`}>
      <div className="row-main">
        <div className="card-title-row">
          <h3 className="card-title">{channel.display_name ?? t('bindings.noPhone')}</h3>
          <StatusBadge tone={statusTone(channel.descriptor_status)} testId={`channel-status-${id}`}>
            {statusText(t, channel.descriptor_status)}
          </StatusBadge>
          {!channel.open ? <StatusBadge tone="neutral">{t('bindings.channelClosed')}</StatusBadge> : null}
        </div>
        {channel.away_until != null ? <AwayNote until={channel.away_until} testId={`channel-away-${id}`} /> : null}
        <dl className="facts facts-wide">
          <HolderFacts holder={channel.holder} boundAt={channel.bound_at} id={id} />
          <dt>{t('bindings.fact.bound')}</dt>
          <dd>{channel.bound_at !== null ? <RelativeTime at={channel.bound_at} /> : '—'}</dd>
          <dt>{t('bindings.fact.lastAction')}</dt>
          <dd data-testid={`channel-last-action-${id}`}>
            {channel.last_action ? (
              <>
                <span title={channel.last_action.tool_id}>{toolName(t, channel.last_action.tool_id)}</span> ·{' '}
                {/* The outcome in words: ok, or what the agent was told (its code in the title). */}
                <span title={channel.last_action.outcome}>
                  {channel.last_action.outcome === 'ok'
                    ? t('activity.outcome.ok')
                    : known(t, `errors.${channel.last_action.outcome}`, channel.last_action.outcome)}
                </span>{' '}
                · <RelativeTime at={channel.last_action.at} />
              </>
            ) : (
              t('bindings.noneYet')
            )}
          </dd>
          <dt>{t('bindings.fact.leaseEnds')}</dt>
          <dd>
            {channel.lease_expires_at !== null && props.paused ? (
              <LeasePaused testId={`channel-lease-paused-${id}`} />
            ) : channel.lease_expires_at !== null ? (
              <>
                {t('bindings.in')}{' '}
                <Countdown
                  to={channel.lease_expires_at}
                  warnBelowMs={5 * 60_000}
                  testId={`channel-lease-${id}`}
                  label={t('bindings.lease.label')}
                />
              </>
            ) : (
              t('bindings.noMaximum')
            )}
          </dd>
          <dt>{t('bindings.fact.idleTimeout')}</dt>
          <dd>
            {channel.away_until != null ? (
              <AwayIdle testId={`channel-idle-away-${id}`} />
            ) : channel.idle_expires_at !== null && props.paused ? (
              <LeasePaused testId={`channel-idle-paused-${id}`} />
            ) : channel.idle_expires_at !== null ? (
              <>
                {t('bindings.in')}{' '}
                <Countdown
                  to={channel.idle_expires_at}
                  warnBelowMs={2 * 60_000}
                  testId={`channel-idle-${id}`}
                  label={t('bindings.idle.label')}
                />
              </>
            ) : (
              t('bindings.none')
            )}
          </dd>
          <dt>{t('bindings.fact.channel')}</dt>
          <dd className="mono small muted" title={id}>
            {shortId(id)}
          </dd>
        </dl>
        <ErrorText error={extend.error ?? revoke.error} testId={`channel-error-${id}`} />
        {extend.result ? (
          <p className="result" role="status">
            {t('bindings.extended')}
          </p>
        ) : null}
      </div>
      <div className="row-actions">
        {/* Extending means something only where the lease has a maximum to push back. */}
        {channel.lease_expires_at !== null ? (
          <button
            type="button"
            className="btn"
            onClick={() => extend.run()}
            disabled={!bound || extend.pending}
            data-testid={`channel-extend-${id}`}
            title={t('bindings.extendTitle')}
          >
            {extend.pending ? t('bindings.extending') : t('bindings.extend')}
          </button>
        ) : null}
        <ConfirmButton
          label={revoke.pending ? t('bindings.revoking') : t('bindings.revoke')}
          prompt={t('bindings.revokePrompt')}
          confirmLabel={t('bindings.revoke')}
          danger
          disabled={revoke.pending || channel.descriptor_status === 'revoked'}
          onConfirm={() => revoke.run()}
          testId={`channel-revoke-${id}`}
          confirmTestId={`channel-revoke-confirm-${id}`}
          cancelTestId={`channel-revoke-cancel-${id}`}
        />
      </div>
    </li>
  );
}
