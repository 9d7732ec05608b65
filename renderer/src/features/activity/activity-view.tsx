/**
 * Activity: the audit trail as a table (what ran where, who decided, how it ended, a failure
 * explained in words with its code kept small for support), with client-side filters by phone
 * and channel and an export of the filtered rows as JSON lines.
 */
import { useMemo, useState } from 'react';
import type { AdminState, AuditEntry } from '../../../../main/contract/admin-api';
import { EmptyState, Loading } from '../../components/empty-state';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { distinctValues, exportFileName, filterAudit, newestFirst, toJsonLines } from '../../lib/audit-export';
import { shortId } from '../../lib/time-format';
import { hasMessage, translator, type Translate } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';
import { activityPrivacyNote } from '../../lib/typed-text-wording';
import { useAudit } from './use-audit';
import { toolName } from '../../lib/tool-names';
import { argumentWords, errorExplanation } from '../../lib/action-words';
import { auditSentence } from '../../../../main/contract/audit-wording';
import { FilterSelect } from '../../components/form-fields';

const NO_ENTRIES: AuditEntry[] = [];

// Calls a person or the policy stopped are not failures of the phone: named, in amber.
// (renderer/src/lib/action-words.ts isStoppedCode says the same for the phone view.)
const STOPPED = new Set(['approval_denied', 'approval_timeout', 'policy_denied', 'canceled']);

/** A catalogue word for a value the bridge sends (`activity.outcome.ok`), else the value as sent. */
function word(t: Translate, prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  return hasMessage(key) ? t(key) : value;
}

export function outcomeView(
  entry: Pick<AuditEntry, 'outcome' | 'error_code'>,
  t: Translate = translator('en'),
): { label: string; tone: Tone; code: string | null } {
  if (entry.error_code && STOPPED.has(entry.error_code))
    return { label: word(t, 'activity.stopped', entry.error_code), tone: 'warn', code: null };
  const label = word(t, 'activity.outcome', entry.outcome);
  if (entry.outcome === 'ok' || entry.outcome === 'success' || entry.outcome === 'succeeded')
    return { label, tone: 'ok', code: null };
  if (entry.error_code || entry.outcome === 'error' || entry.outcome === 'failed')
    return { label, tone: 'danger', code: entry.error_code };
  if (entry.outcome === 'denied' || entry.outcome === 'canceled' || entry.outcome === 'timeout')
    return { label, tone: 'warn', code: null };
  return { label, tone: 'neutral', code: entry.error_code };
}

function download(entries: AuditEntry[], now: number): void {
  const blob = new Blob([toJsonLines(entries)], { type: 'application/x-ndjson' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(now);
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has started from the URL; release it on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ActivityView(props: { state: AdminState; stateVersion: number }): React.JSX.Element {
  const audit = useAudit(props.stateVersion);
  const { t, format } = useT();
  const [deviceId, setDeviceId] = useState('');
  const [channelId, setChannelId] = useState('');
  // Only decides whether to print the date; no need to re-render every second.
  const now = Date.now();
  const names = useMemo(
    () => new Map(props.state.devices.map((d) => [d.device_id, d.display_name])),
    [props.state.devices],
  );

  const all = audit.entries ?? NO_ENTRIES;
  const rows = useMemo(() => newestFirst(filterAudit(all, { deviceId, channelId })), [all, deviceId, channelId]);
  const deviceIds = useMemo(() => distinctValues(all, 'device_id'), [all]);
  const channelIds = useMemo(() => distinctValues(all, 'connector_channel_id'), [all]);

  return (
    <section aria-labelledby="activity-heading">
      <header className="view-header">
        <h2 id="activity-heading">{t('activity.title')}</h2>
        <p className="view-sub">
          {t('activity.sub')} <span data-testid="activity-privacy">{activityPrivacyNote(audit.typedText, t)}</span>
        </p>
      </header>
      {audit.error ? (
        <ErrorBanner
          title={t('activity.loadFailed')}
          error={audit.error}
          onRetry={audit.refresh}
          testId="activity-error"
        />
      ) : null}
      <div className="toolbar">
        <FilterSelect
          id="activity-filter-device"
          label={t('activity.filter.phone')}
          labelShown
          value={deviceId}
          onValue={setDeviceId}
          options={[
            { value: '', label: t('activity.filter.allPhones') },
            ...deviceIds.map((id) => ({ value: id, label: names.get(id) ?? id })),
          ]}
        />
        <FilterSelect
          id="activity-filter-channel"
          label={t('activity.filter.channel')}
          labelShown
          value={channelId}
          onValue={setChannelId}
          options={[
            { value: '', label: t('activity.filter.allChannels') },
            ...channelIds.map((id) => ({ value: id, label: shortId(id) })),
          ]}
        />
        <span className="toolbar-spacer" />
        <span className="muted small" data-testid="activity-count">
          {t('activity.count', { shown: rows.length, total: all.length })}
        </span>
        <button type="button" className="btn" onClick={audit.refresh} data-testid="activity-refresh">
          {t('activity.refresh')}
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => download(rows, Date.now())}
          disabled={rows.length === 0}
          data-testid="activity-export"
        >
          {t('activity.export')}
        </button>
      </div>
      {audit.entries === null ? (
        audit.error ? null : (
          <Loading label={t('activity.loading')} />
        )
      ) : all.length === 0 ? (
        <EmptyState title={t('activity.empty.title')} testId="activity-empty">
          <p>{t('activity.empty.text')}</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          {/* On a phone's width each line is stacked, every value under its column's name (styles.css). */}
          <table className="table table-stack" data-testid="activity-table">
            <thead>
              <tr>
                <th scope="col">{t('activity.col.time')}</th>
                <th scope="col">{t('activity.col.channel')}</th>
                <th scope="col">{t('activity.col.phone')}</th>
                <th scope="col">{t('activity.col.tool')}</th>
                <th scope="col" className="nowrap">
                  {t('activity.col.decision')}
                </th>
                <th scope="col">{t('activity.col.outcome')}</th>
                <th scope="col" className="num">
                  {t('activity.col.duration')}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <tr key={entry.id} data-testid={`activity-row-${entry.id}`}>
                  <td className="nowrap" data-label={t('activity.col.time')}>
                    {format.clock(entry.time, now)}
                  </td>
                  <td className="mono" title={entry.connector_channel_id ?? ''} data-label={t('activity.col.channel')}>
                    {entry.connector_channel_id ? shortId(entry.connector_channel_id) : '—'}
                  </td>
                  <td className="nowrap" data-label={t('activity.col.phone')}>
                    {entry.device_id ? (names.get(entry.device_id) ?? entry.device_id) : '—'}
                  </td>
                  <td data-label={t('activity.col.tool')}>
                    <ToolCell entry={entry} />
                    <HoldNote entry={entry} t={t} />
                  </td>
                  <td
                    className="nowrap"
                    title={entry.reasons.join('\n')}
                    data-testid={`activity-decision-${entry.id}`}
                    data-label={t('activity.col.decision')}
                  >
                    {/* The bridge's and the person's own lines decide nothing: only who it was. */}
                    {auditSentence(t, entry) !== null ? (
                      word(t, 'activity.by', entry.decided_by)
                    ) : (
                      <>
                        {word(t, 'activity.decision', entry.decision)}
                        {/* Nobody decided a call that never reached the gate: no "· none" after it. */}
                        {entry.decided_by && entry.decided_by !== 'none' ? (
                          <span className="muted"> · {word(t, 'activity.by', entry.decided_by)}</span>
                        ) : null}
                      </>
                    )}
                  </td>
                  <td data-label={t('activity.col.outcome')}>
                    <OutcomeCell entry={entry} />
                  </td>
                  <td className="num nowrap" data-label={t('activity.col.duration')}>
                    {format.duration(entry.duration_ms)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A take-over or hand-back row says who held the phone and whether the agent could watch meanwhile. */
function HoldNote(props: { entry: AuditEntry; t: Translate }): React.JSX.Element | null {
  const { entry, t } = props;
  const watch = entry.arguments.agent_may_watch;
  if ((entry.tool_id !== 'take_over' && entry.tool_id !== 'hand_back') || typeof watch !== 'boolean') return null;
  // The bridge's own words for the person at the computer are shown in the UI's language; a console user's name as given.
  const named = typeof entry.arguments.by === 'string' ? entry.arguments.by : '—';
  const by = named === 'person at the computer' ? t('activity.hold.atComputer') : named;
  return (
    <div className="muted small" data-testid={`activity-hold-${entry.id}`} data-watch={watch ? 'true' : 'false'}>
      {t(watch ? 'activity.hold.watched' : 'activity.hold.hidden', { by })}
    </div>
  );
}

/** An agent's call by its tool's name (its id small beside it, for support); any other line as its sentence. */
function ToolCell(props: { entry: AuditEntry }): React.JSX.Element {
  const { t } = useT();
  const { entry } = props;
  const sentence = auditSentence(t, entry);
  if (sentence !== null)
    return (
      <span title={entry.tool_id} data-testid={`activity-sentence-${entry.id}`}>
        {sentence}
      </span>
    );
  // What it acted on in words: the element's words or the app's name the line kept at the call.
  const words = argumentWords(t, entry.tool_id, entry.arguments, null, entry.target_label ?? null);
  return (
    <>
      {toolName(t, entry.tool_id)} <span className="mono muted small">{entry.tool_id}</span>
      {words ? (
        <div className="activity-words" data-testid={`activity-words-${entry.id}`}>
          {words}
        </div>
      ) : null}
    </>
  );
}

function OutcomeCell(props: { entry: AuditEntry }): React.JSX.Element {
  const { t } = useT();
  const view = outcomeView(props.entry, t);
  return (
    <>
      <StatusBadge tone={view.tone}>{view.label}</StatusBadge>
      {view.code ? (
        <span className="activity-error" data-testid={`activity-error-${props.entry.id}`} data-code={view.code}>
          {errorExplanation(view.code, t)} <span className="mono small muted">{view.code}</span>
        </span>
      ) : null}
    </>
  );
}
