/**
 * appium-uiautomator2-server on a device card (docs/REFERENCE.md "Fast lane"): off by default;
 * the words that say what it installs and exposes (open ports any app on the phone and any
 * computer on its network can use, with no password) stand beside the one button that turns it
 * on; then its state, version, last error and which lane served the calls, with Turn off and
 * Remove (uninstalls both APKs).
 */
import type { AdminFastLane, AdminHelper, HelperState } from '../../../../main/contract/admin-api';
import { helperRequest, type HelperAction } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import type { MessageKey } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

const STATE: Record<HelperState, { text: MessageKey; tone: Tone }> = {
  absent: { text: 'helper.state.absent', tone: 'neutral' },
  installing: { text: 'helper.state.installing', tone: 'warn' },
  stopped: { text: 'helper.state.stopped', tone: 'neutral' },
  starting: { text: 'helper.state.starting', tone: 'warn' },
  running: { text: 'helper.state.running', tone: 'ok' },
  failed: { text: 'helper.state.failed', tone: 'danger' },
};

/** Codes of a helper the bridge stopped to keep the phone safe: shown as an alert. */
const ALERT_CODES: ReadonlySet<string> = new Set(['helper_foreign_connection', 'helper_not_verified']);

export function HelperPanel(props: {
  deviceId: string;
  helper: AdminHelper | undefined;
  fastLane: AdminFastLane | undefined;
  online: boolean;
  onChanged: () => void;
}): React.JSX.Element | null {
  const api = useApi();
  const { deviceId, helper, fastLane } = props;
  const { t } = useT();
  const act = useAction(
    (action: HelperAction) => api.setDeviceHelper(helperRequest(deviceId, action)),
    props.onChanged,
  );
  if (!helper) return null;
  const version = fastLane?.version ?? helper.version ?? '';
  const state = STATE[helper.state];
  const busy = act.pending || helper.state === 'installing';
  const installed = helper.state !== 'absent';
  return (
    <section
      className="helper-panel"
      data-testid={`helper-${deviceId}`}
      data-state={helper.state}
      aria-label={t('helper.title')}
    >
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
            <button
              type="button"
              className="btn btn-small btn-primary"
              disabled={busy || !props.online || fastLane?.available === false}
              onClick={() => act.run('enable')}
              data-testid={`helper-enable-${deviceId}`}
            >
              {act.pending ? t('helper.working') : t('helper.enable')}
            </button>
          ) : (
            <>
              {helper.state === 'failed' ? (
                <button
                  type="button"
                  className="btn btn-small btn-primary"
                  disabled={busy || !props.online}
                  onClick={() => act.run('enable')}
                  data-testid={`helper-reenable-${deviceId}`}
                >
                  {act.pending ? t('helper.working') : t('helper.enableAgain')}
                </button>
              ) : null}
              <button
                type="button"
                className="btn btn-small"
                disabled={busy}
                onClick={() => act.run('disable')}
                data-testid={`helper-disable-${deviceId}`}
              >
                {t('helper.disable')}
              </button>
            </>
          )}
          {installed ? (
            <button
              type="button"
              className="btn btn-small btn-danger"
              disabled={busy || !props.online}
              onClick={() => act.run('remove')}
              data-testid={`helper-remove-${deviceId}`}
            >
              {t('helper.remove')}
            </button>
          ) : null}
        </div>
      </div>
      {!helper.enabled ? (
        <p className="hint">
          {fastLane?.available === false ? t('helper.unavailable') : t('helper.explain', { version })}
        </p>
      ) : null}
      {installed || helper.enabled ? (
        <p className="muted small" data-testid={`helper-facts-${deviceId}`}>
          {helper.version ? `${t('helper.version', { version: helper.version })} · ` : ''}
          {t('helper.lanes', { helper: helper.lanes.helper, adb: helper.lanes.adb })}
        </p>
      ) : null}
      {helper.paused_until !== null ? <p className="hint">{t('helper.paused')}</p> : null}
      {helper.enabled && helper.network_addresses && helper.network_addresses.length > 0 ? (
        <p className="hint hint-warn" data-testid={`helper-network-${deviceId}`}>
          {t('helper.network.addresses', { addresses: helper.network_addresses.slice(0, 3).join(', ') })}
        </p>
      ) : null}
      {helper.state === 'running' ? (
        <p className="muted small" data-testid={`helper-guard-${deviceId}`}>
          {t('helper.guard.watching')}
        </p>
      ) : null}
      {helper.last_error ? (
        <p
          className={helper.state === 'failed' ? 'hint hint-warn' : 'muted small'}
          data-testid={`helper-error-${deviceId}`}
          role={ALERT_CODES.has(helper.last_error_code ?? '') ? 'alert' : undefined}
        >
          {ALERT_CODES.has(helper.last_error_code ?? '')
            ? t(
                helper.last_error_code === 'helper_not_verified' ? 'helper.guard.notVerified' : 'helper.guard.foreign',
              ) + ' '
            : ''}
          {t('helper.lastError', { error: helper.last_error })}
        </p>
      ) : null}
      <ErrorText error={act.error} testId={`helper-action-error-${deviceId}`} />
    </section>
  );
}
