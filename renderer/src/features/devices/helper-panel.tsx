/**
 * The fast lane on a device card (README "Fast lane"): what gets installed, in one line, and
 * the person's consent ("Enable fast lane"); then the helper's state, version, last error and
 * which lane served the calls, with Turn off and Remove (uninstalls both APKs).
 */
import type { AdminFastLane, AdminHelper, HelperState } from '../../../../main/contract/admin-api';
import type { BridgeApi, HelperAction } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import type { MessageKey } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';

const STATE: Record<HelperState, { text: MessageKey; tone: Tone }> = {
  absent: { text: 'helper.state.absent', tone: 'neutral' },
  installing: { text: 'helper.state.installing', tone: 'warn' },
  stopped: { text: 'helper.state.stopped', tone: 'neutral' },
  starting: { text: 'helper.state.starting', tone: 'warn' },
  running: { text: 'helper.state.running', tone: 'ok' },
  failed: { text: 'helper.state.failed', tone: 'danger' },
};

export function HelperPanel(props: { api: BridgeApi; deviceId: string; helper: AdminHelper | undefined; fastLane: AdminFastLane | undefined; online: boolean; onChanged: () => void }): React.JSX.Element | null {
  const { api, deviceId, helper, fastLane } = props;
  const { t } = useT();
  const act = useAction((action: HelperAction) => api.setDeviceHelper(deviceId, action), props.onChanged);
  if (!helper) return null;
  const version = fastLane?.version ?? helper.version ?? '';
  const state = STATE[helper.state];
  const busy = act.pending || helper.state === 'installing';
  const installed = helper.state !== 'absent';
  return (
    <section className="helper-panel" data-testid={`helper-${deviceId}`} data-state={helper.state} aria-label={t('helper.title')}>
      <div className="card-title-row">
        <h4 className="helper-title">
          {t('helper.title')}{' '}
          {helper.enabled || installed ? (
            <span data-testid={`helper-state-${deviceId}`}>
              <StatusBadge tone={state.tone}>{t(state.text)}</StatusBadge>
            </span>
          ) : null}
        </h4>
        <div className="helper-actions">
          {!helper.enabled ? (
            <button type="button" className="btn btn-small btn-primary" disabled={busy || !props.online || fastLane?.available === false} onClick={() => act.run('enable')} data-testid={`helper-enable-${deviceId}`}>
              {act.pending ? t('helper.working') : t('helper.enable')}
            </button>
          ) : (
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => act.run('disable')} data-testid={`helper-disable-${deviceId}`}>
              {t('helper.disable')}
            </button>
          )}
          {installed ? (
            <button type="button" className="btn btn-small btn-danger" disabled={busy || !props.online} onClick={() => act.run('remove')} data-testid={`helper-remove-${deviceId}`}>
              {t('helper.remove')}
            </button>
          ) : null}
        </div>
      </div>
      {!helper.enabled ? <p className="hint">{fastLane?.available === false ? t('helper.unavailable') : t('helper.explain', { version })}</p> : null}
      {helper.enabled && !helper.chosen ? <p className="hint">{t('helper.byDefault')}</p> : null}
      {installed || helper.enabled ? (
        <p className="muted small" data-testid={`helper-facts-${deviceId}`}>
          {helper.version ? `${t('helper.version', { version: helper.version })} · ` : ''}
          {t('helper.lanes', { helper: helper.lanes.helper, adb: helper.lanes.adb })}
        </p>
      ) : null}
      {helper.paused_until !== null ? <p className="hint">{t('helper.paused')}</p> : null}
      {helper.last_error ? (
        <p className={helper.state === 'failed' ? 'hint hint-warn' : 'muted small'} data-testid={`helper-error-${deviceId}`}>
          {t('helper.lastError', { error: helper.last_error })}
        </p>
      ) : null}
      <ErrorText error={act.error} testId={`helper-action-error-${deviceId}`} />
    </section>
  );
}
