/**
 * Settings → Limits: the limits a person may change while the bridge runs (approval
 * countdown, leases, file cache, queue depth, the fast lane's idle stop), edited in everyday units and checked next to
 * each field before Save; the bridge applies them at once and keeps them across restarts.
 * The rest (cleanup interval, parallel reads) is shown read-only; every limit is in the README.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { AdminSettings, AdminState } from '../../../../main/contract/admin-api';
import { LIMIT_DEFINITIONS, type LimitKey } from '../../../../main/contract/limits';
import type { BridgeApi } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import {
  draftsFor,
  limitValuesFromState,
  limitsToSave,
  sourceNote,
  unitsFor,
  type LimitDraft,
  type LimitDrafts,
} from '../../lib/limit-edit';
import type { MessageKey } from '../../../../main/contract/i18n';
import { known, useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

const GROUPS: ReadonlyArray<{ title: MessageKey; keys: readonly LimitKey[] }> = [
  {
    title: 'settings.limits.group.leases',
    keys: ['lease_max_duration_ms', 'lease_idle_timeout_ms', 'lease_disconnect_grace_ms'],
  },
  { title: 'settings.limits.group.approvals', keys: ['approval_timeout_ms', 'queue_max_depth'] },
  { title: 'settings.limits.group.files', keys: ['file_cache_ttl_ms', 'file_cache_max_bytes', 'file_cache_max_files'] },
  { title: 'settings.limits.group.fastLane', keys: ['fast_lane_idle_stop_ms'] },
  { title: 'settings.limits.group.xagent', keys: ['runtime_grace_ms'] },
];

export function LimitsSection(props: {
  limits: AdminState['limits'];
  /** Where each value came from (GET settings), once loaded. */
  sources: AdminSettings['limit_sources'] | null;
  onSaved: (settings: AdminSettings) => void;
}): React.JSX.Element {
  const api = useApi();
  const { t, format } = useT();
  const values = useMemo(() => limitValuesFromState(props.limits), [props.limits]);
  const valuesKey = JSON.stringify(values);
  const [drafts, setDrafts] = useState<LimitDrafts>(() => draftsFor(values));
  const [dirty, setDirty] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<LimitKey, string>>>({});
  const [saved, setSaved] = useState(false);
  const save = useAction(
    (patch: Parameters<BridgeApi['patchSettings']>[0]) => api.patchSettings(patch),
    (settings) => {
      setDirty(false);
      setSaved(true);
      setDrafts(draftsFor(settings.limits));
      props.onSaved(settings);
    },
  );

  // Someone else's change (another console, the API) shows here unless this form has edits.
  // Keyed by the values' text (the state object is new on every refetch), and not by
  // `dirty`: right after a save the state may not have caught up yet.
  // `dirty` is read through a ref, kept current by the effect before this one.
  const dirtyNow = useRef(dirty);
  useEffect(() => {
    dirtyNow.current = dirty;
  }, [dirty]);
  useEffect(() => {
    if (!dirtyNow.current) setDrafts(draftsFor(JSON.parse(valuesKey) as typeof values));
  }, [valuesKey]);

  const edit = (key: LimitKey, change: Partial<LimitDraft>): void => {
    setDrafts((current) => ({ ...current, [key]: { ...current[key], ...change } }));
    setErrors((current) => ({ ...current, [key]: undefined }));
    setDirty(true);
    setSaved(false);
    save.reset();
  };

  return (
    <section className="settings-section" aria-labelledby="limits-heading">
      <h3 id="limits-heading">{t('settings.limits.title')}</h3>
      <p className="hint">{t('settings.limits.hint')}</p>
      <form
        data-testid="limits-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const checked = limitsToSave(values, drafts, t);
          if (!checked.ok) {
            setErrors(checked.errors);
            return;
          }
          setErrors({});
          if (Object.keys(checked.patch).length === 0) {
            setDirty(false);
            setSaved(true);
            return;
          }
          save.run({ limits: checked.patch });
        }}
      >
        <div className="three-col" data-testid="settings-limits">
          {GROUPS.map((group) => (
            <fieldset key={group.title} className="limit-group">
              <legend>{t(group.title)}</legend>
              {group.keys.map((key) => (
                <LimitField
                  key={key}
                  limitKey={key}
                  draft={drafts[key]}
                  error={errors[key] ?? null}
                  note={sourceNote(props.sources?.[key], t)}
                  onChange={(change) => edit(key, change)}
                />
              ))}
            </fieldset>
          ))}
        </div>
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={save.pending || !dirty} data-testid="limits-save">
            {t('settings.limits.save')}
          </button>
          {saved ? (
            <span className="result" data-testid="limits-saved">
              {t('common.saved')}
            </span>
          ) : null}
        </div>
        <ErrorText error={save.error} testId="limits-error" />
      </form>
      <dl className="facts" data-testid="settings-limits-fixed">
        <dt>{t('settings.limits.cleanup')}</dt>
        <dd>{format.limit(props.limits.file_cache.cleanup_interval_ms)}</dd>
        <dt>{t('settings.limits.parallel')}</dt>
        <dd>{t('settings.limits.perPhone', { count: props.limits.queue.observation_concurrency })}</dd>
      </dl>
    </section>
  );
}

function LimitField(props: {
  limitKey: LimitKey;
  draft: LimitDraft;
  error: string | null;
  note: string | null;
  onChange: (change: Partial<LimitDraft>) => void;
}): React.JSX.Element {
  const { limitKey: key, draft } = props;
  const { t } = useT();
  const label = t(`settings.limit.${key}`);
  const definition = LIMIT_DEFINITIONS[key];
  const units = unitsFor(key);
  const id = `limit-${key}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <div className="field limit-field">
      {/* With "No cap" ticked there is no value: the field goes, and comes back (with its last value) when unticked. */}
      <label htmlFor={draft.none ? `${id}-none` : id}>{label}</label>
      <div className="limit-input">
        {draft.none ? null : (
          <>
            <input
              id={id}
              type="text"
              inputMode={definition.unit === 'count' ? 'numeric' : 'decimal'}
              value={draft.amount}
              aria-invalid={props.error ? 'true' : 'false'}
              aria-describedby={props.error ? `${errorId} ${hintId}` : hintId}
              onChange={(e) => props.onChange({ amount: e.target.value })}
              data-testid={id}
            />
            {units.length > 1 ? (
              <select
                aria-label={t('settings.limits.unit', { label })}
                value={draft.unit}
                onChange={(e) => props.onChange({ unit: e.target.value })}
                data-testid={`${id}-unit`}
              >
                {units.map(([name]) => (
                  <option key={name} value={name}>
                    {known(t, `settings.limits.unitName.${name}`, name)}
                  </option>
                ))}
              </select>
            ) : (
              <span className="limit-unit">
                {key === 'queue_max_depth' ? t('settings.limits.callsPerPhone') : t('settings.limits.files')}
              </span>
            )}
          </>
        )}
        {definition.nullable ? (
          <span className="field-check">
            <input
              id={`${id}-none`}
              type="checkbox"
              checked={draft.none}
              onChange={(e) => props.onChange({ none: e.target.checked })}
              data-testid={`${id}-none`}
            />
            <label htmlFor={`${id}-none`}>{t('settings.limits.noCap')}</label>
          </span>
        ) : null}
      </div>
      {props.error ? (
        <p className="error-text" id={errorId} role="alert" data-testid={errorId}>
          {props.error}
        </p>
      ) : null}
      <p className="hint limit-hint" id={hintId}>
        {t(`settings.limit.${key}.applies`)}
        {props.note ? ` ${props.note}` : ''}
      </p>
    </div>
  );
}
