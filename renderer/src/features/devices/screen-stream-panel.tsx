/**
 * "Fast live screen" on a phone's card and in its view (docs/REFERENCE.md "Screen stream"): the
 * person's consent to run minicap on this phone, as a switch (enable / disable), and what it
 * does now in words: off, on and waiting for a lease or a viewer, starting, running (how many
 * frames a second, and what for), failed (why, and that the picture comes from the other ways
 * meanwhile), or not on this phone. Before consent, one paragraph says what gets copied where
 * and when it runs.
 */
import { useEffect } from 'react';
import type { AdminScreenStream, AdminScreenStreamSettings } from '../../../../main/contract/admin-api';
import type { MessageKey } from '../../../../main/contract/i18n';
import type { ScreenStreamAction } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useT, type I18n } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

/** How often a running stream's frame rate is read again (the bridge publishes state on changes, not per frame). */
const FPS_REFRESH_MS = 2_000;

type Shown = AdminScreenStream['state'] | 'waiting';

const STATE: Record<Shown, { text: MessageKey; tone: Tone }> = {
  off: { text: 'stream.state.off', tone: 'neutral' },
  waiting: { text: 'stream.state.waiting', tone: 'neutral' },
  starting: { text: 'stream.state.starting', tone: 'warn' },
  running: { text: 'stream.state.running', tone: 'ok' },
  failed: { text: 'stream.state.failed', tone: 'danger' },
  unsupported: { text: 'stream.state.unsupported', tone: 'neutral' },
};

/** "for the lease", "for this view": what the running stream serves; the phone view says "this view". */
function purposeWords(t: I18n['t'], purposes: AdminScreenStream['for'], inView: boolean): string | null {
  const lease = purposes.includes('lease');
  const view = purposes.includes('view');
  if (lease && view) return t(inView ? 'stream.for.leaseAndView' : 'stream.for.leaseAndLiveView');
  if (lease) return t('stream.for.lease');
  if (view) return t(inView ? 'stream.for.view' : 'stream.for.liveView');
  return null;
}

export function ScreenStreamPanel(props: {
  deviceId: string;
  stream: AdminScreenStream | undefined;
  settings: AdminScreenStreamSettings | undefined;
  /** Shown in the phone's own view (its live picture is "this view") rather than on its card. */
  inView?: boolean;
  onChanged: () => void;
}): React.JSX.Element | null {
  const api = useApi();
  const { deviceId, stream, onChanged } = props;
  const { t } = useT();
  const act = useAction(
    (action: ScreenStreamAction) => api.setDeviceScreenStream({ device_id: deviceId, action }),
    onChanged,
  );
  const running = stream?.state === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(onChanged, FPS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [running, onChanged]);
  if (!stream) return null;
  const unavailable = props.settings?.available === false;
  const shown: Shown = stream.state === 'off' && stream.enabled ? 'waiting' : stream.state;
  const state = STATE[shown];
  const purposes = running ? purposeWords(t, stream.for, props.inView === true) : null;
  const byDefault = stream.enabled && props.settings?.default === 'on';
  return (
    <section
      className="stream-panel"
      data-testid={`stream-${deviceId}`}
      data-state={stream.state}
      data-enabled={stream.enabled ? 'true' : 'false'}
      aria-label={t('stream.title')}
    >
      <div className="card-title-row">
        <label className="stream-switch" title={t('stream.toggleTitle')}>
          <input
            type="checkbox"
            role="switch"
            checked={stream.enabled}
            disabled={act.pending || (unavailable && !stream.enabled)}
            onChange={(event) => act.run(event.target.checked ? 'enable' : 'disable')}
            data-testid={`stream-toggle-${deviceId}`}
          />{' '}
          <strong>{t('stream.toggle')}</strong>
        </label>
        <span data-testid={`stream-state-${deviceId}`}>
          <StatusBadge tone={state.tone}>{act.pending ? t('stream.working') : t(state.text)}</StatusBadge>
        </span>
      </div>
      {running ? (
        <p className="muted small" data-testid={`stream-running-${deviceId}`}>
          {purposes
            ? t('stream.fpsFor', { fps: Math.round(stream.fps), purpose: purposes })
            : t('stream.fps', { fps: Math.round(stream.fps) })}
        </p>
      ) : null}
      {!stream.enabled ? <p className="hint">{unavailable ? t('stream.unavailable') : t('stream.explain')}</p> : null}
      {byDefault ? <p className="hint">{t('stream.byDefault')}</p> : null}
      {stream.state === 'failed' ? (
        <p className="hint hint-warn" role="status" data-testid={`stream-failed-${deviceId}`}>
          {t('stream.failed', { error: stream.last_error ?? '' })}
        </p>
      ) : stream.state === 'unsupported' ? (
        <p className="hint" data-testid={`stream-unsupported-${deviceId}`}>
          {t('stream.unsupported')}
        </p>
      ) : stream.last_error && stream.enabled && !running ? (
        <p className="muted small" data-testid={`stream-error-${deviceId}`}>
          {t('stream.lastError', { error: stream.last_error })}
        </p>
      ) : null}
      <ErrorText error={act.error} testId={`stream-action-error-${deviceId}`} />
    </section>
  );
}
