/**
 * "Programs on this phone" on a device card (docs/REFERENCE.md "Fast lane", "Screen stream"):
 * every program the bridge runs on the phone, one row each in one lifecycle's words —
 * scrcpy-server (input), the xagent UI reader and agent-device's snapshot helper (tree), through adb only and on by
 * default; appium-uiautomator2-server (open ports, off until the person's own yes); minicap (the
 * screen stream). Each row: name, version, state in words, the calls it served and those stock
 * adb served instead, its last error (with its fix where known) and when it is tried again, and
 * its own consent: UIA2's "Turn on" stands beside the words that say what it exposes and sends
 * `accept_open_ports: true`; minicap has its switch. The header's Turn off / Turn on / Remove act
 * on the port-less three. Everything goes through `setDevicePrograms`.
 */
import { useEffect } from 'react';
import type { AdminPhoneProgram } from '../../../../main/contract/admin-api';
import { hasMessage, type MessageKey } from '../../../../main/contract/i18n';
import { useApi } from '../../api/api-context';
import { programRequest, type ProgramsAction } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction, type Action } from '../../components/use-action';
import { useNow } from '../../components/use-now';
import { useWhatIsThis } from '../../components/use-what-is-this';
import { useT, type I18n } from '../../i18n/i18n-context';

type Program = AdminPhoneProgram['program'];
type State = AdminPhoneProgram['state'];

/** How often a running stream's frame rate is read again (the bridge publishes state on changes, not per frame). */
const FPS_REFRESH_MS = 2_000;

/** The three the header's switch acts on; the others have their own consent in their rows. */
const PORTLESS: ReadonlySet<Program> = new Set(['scrcpy_input', 'ui_reader', 'snapshot_tree']);

/** Failure reasons that mean the bridge stopped UIA2 (or never ran it) to keep the phone safe: shown as an alert. */
const ALERT_REASONS: ReadonlySet<string> = new Set(['uia2_foreign_connection', 'uia2_not_verified']);

/**
 * A state in words: idle, starting and ready mean something different for each program
 * (scrcpy-server is resident, the snapshot helper runs per read, UIA2 opens ports), so those
 * have a key per program; failed, unavailable and off are the same for all.
 */
function stateWords(program: Program, state: State): { text: MessageKey; tone: Tone } {
  if (state === 'failed') return { text: 'programs.state.failed', tone: 'danger' };
  if (state === 'unavailable' || state === 'off') return { text: `programs.state.${state}`, tone: 'neutral' };
  // Running means open ports for UIA2: the person sees that as a warning, not as "all good".
  const tone: Tone =
    state === 'starting' || (state === 'ready' && program === 'uia2_server')
      ? 'warn'
      : state === 'ready'
        ? 'ok'
        : 'neutral';
  return { text: `programs.state.${program}.${state}` as MessageKey, tone };
}

export function ProgramsPanel(props: {
  deviceId: string;
  programs: AdminPhoneProgram[] | undefined;
  /** Settings → Limits' idle stop (scrcpy-server stops this long after its last call). */
  idleStopMs: number | undefined;
  online: boolean;
  onChanged: () => void;
}): React.JSX.Element | null {
  const api = useApi();
  const { deviceId, programs } = props;
  const { t, format } = useT();
  const act = useAction(
    (action: ProgramsAction) => api.setDevicePrograms({ device_id: deviceId, action }),
    props.onChanged,
  );
  // The switch's own "What is this?": where the pair runs and what Turn off and Remove cost.
  const what = useWhatIsThis(
    `programs-what-${deviceId}`,
    <>
      <p>{t('programs.summary')}</p>
      <p>{t('programs.off.what')}</p>
    </>,
  );
  if (!programs || programs.length === 0) return null;
  // One switch for the port-less pair (the admin operation's default): on unless the person turned them off here.
  const enabled = programs.some((p) => PORTLESS.has(p.program) && p.enabled);
  const idle = format.limit(props.idleStopMs ?? 5 * 60_000);
  return (
    <section
      className="helper-panel programs-panel"
      data-testid={`programs-${deviceId}`}
      data-enabled={enabled ? 'true' : 'false'}
      aria-label={t('programs.title')}
    >
      <div className="card-title-row">
        <h4 className="helper-title">
          {t('programs.title')} {what.button}
        </h4>
        <div className="helper-actions">
          <button
            type="button"
            className={enabled ? 'btn btn-small' : 'btn btn-small btn-primary'}
            disabled={act.pending}
            onClick={() => act.run(enabled ? 'disable' : 'enable')}
            data-testid={`programs-${enabled ? 'disable' : 'enable'}-${deviceId}`}
          >
            {act.pending ? t('programs.working') : t(enabled ? 'programs.disable' : 'programs.enable')}
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={act.pending || !props.online}
            onClick={() => act.run('remove')}
            data-testid={`programs-remove-${deviceId}`}
          >
            {t('programs.remove')}
          </button>
        </div>
      </div>
      {what.text}
      <ul className="programs-list">
        {programs.map((program) => (
          <ProgramRow
            key={program.program}
            deviceId={deviceId}
            program={program}
            idle={idle}
            online={props.online}
            onChanged={props.onChanged}
          />
        ))}
      </ul>
      <ErrorText error={act.error} testId={`programs-action-error-${deviceId}`} />
    </section>
  );
}

/**
 * One program on the phone (the card's list, and the phone view's stream): its state and
 * counts, why it failed and when it is tried again, and — for UIA2 and minicap — its own
 * consent and actions.
 */
/** What each program does, for its "What is this?"; UIA2's and the stream's say where their yes is given. */
const WHAT: Record<Program, MessageKey> = {
  scrcpy_input: 'programs.scrcpy.what',
  snapshot_tree: 'programs.snapshot.what',
  ui_reader: 'programs.ui_reader.what',
  uia2_server: 'programs.consent.uia2_server',
  minicap_stream: 'programs.consent.minicap_stream',
};

export function ProgramRow(props: {
  deviceId: string;
  program: AdminPhoneProgram;
  /** Settings → Limits' idle stop in words (scrcpy-server's "What is this?" quotes it). */
  idle: string;
  online: boolean;
  /** Shown in the phone's own view (its live picture is "this view") rather than on its card. */
  inView?: boolean;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { deviceId, program, onChanged } = props;
  const { t, format } = useT();
  const now = useNow();
  const act = useAction(
    (action: ProgramsAction) => api.setDevicePrograms(programRequest(deviceId, program.program, action)),
    onChanged,
  );
  const streaming = program.program === 'minicap_stream' && program.state === 'ready';
  useEffect(() => {
    if (!streaming) return;
    const timer = setInterval(onChanged, FPS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [streaming, onChanged]);
  const state = stateWords(program.program, program.state);
  const id = `program-${deviceId}-${program.program}`;
  const what = useWhatIsThis(`${id}-what`, t(WHAT[program.program], { idle: props.idle }));
  // An error from before the program recovered is history; one that keeps it failed or unavailable is the news.
  const errorShown = program.last_error !== null && program.state !== 'ready' && program.state !== 'off';
  const alert = ALERT_REASONS.has(program.last_error_reason ?? '');
  return (
    <li data-testid={id} data-state={program.state} data-enabled={program.enabled ? 'true' : 'false'}>
      <strong title={program.name}>{t(`programs.name.${program.program}`)}</strong>
      {program.version ? (
        <span className="muted small"> {t('programs.version', { version: program.version })}</span>
      ) : null}{' '}
      <span data-testid={`${id}-state`}>
        <StatusBadge tone={state.tone}>{act.pending ? t('programs.working') : t(state.text)}</StatusBadge>
      </span>{' '}
      <span className="muted small" data-testid={`${id}-served`}>
        {t('programs.served', { served: program.served, fell_back: program.fell_back })}
      </span>
      {program.stream && streaming ? (
        <span className="muted small" data-testid={`${id}-stream`}>
          {' '}
          {streamWords(t, program.stream, props.inView === true)}
        </span>
      ) : null}{' '}
      {what.button}
      {what.text}
      {program.program === 'uia2_server' ? <OpenPortsConsent {...props} act={act} /> : null}
      {program.program === 'minicap_stream' ? (
        <div className="muted small">
          <label className="stream-switch" title={t('stream.toggleTitle')}>
            <input
              type="checkbox"
              role="switch"
              checked={program.enabled}
              disabled={act.pending || (program.state === 'unavailable' && !program.enabled)}
              onChange={(event) => act.run(event.target.checked ? 'enable' : 'disable')}
              data-testid={`${id}-toggle`}
            />{' '}
            {t('stream.toggle')}
          </label>{' '}
          {program.enabled ? null : t('stream.explain')}
        </div>
      ) : null}
      {program.state === 'unavailable' ? (
        <div className="hint" data-testid={`${id}-unavailable`}>
          {t(program.version === null ? 'programs.unavailable.build' : 'programs.unavailable.phone')}
        </div>
      ) : null}
      {errorShown ? (
        <div
          className={program.state === 'failed' ? 'hint hint-warn' : 'muted small'}
          data-testid={`${id}-error`}
          role={alert ? 'alert' : undefined}
        >
          {t('programs.lastError', { error: reasonWords(program, t) })}
          {/* What the guard saw (who connected, which file differed) is the person's to read. */}
          {alert && program.last_error ? ` (${program.last_error})` : null}
          {program.state === 'failed'
            ? ` · ${
                program.retry_at !== null && program.retry_at > now
                  ? t('programs.retryIn', { time: format.secondsLeft(program.retry_at - now) })
                  : program.program === 'uia2_server'
                    ? t('programs.retryEnable')
                    : t('programs.retryNext')
              }`
            : null}
        </div>
      ) : null}
      <ErrorText error={act.error} testId={`${id}-action-error`} />
    </li>
  );
}

/**
 * UIA2's consent: off, the words that say what it exposes beside the one button that turns it
 * on (the request says `accept_open_ports: true`); on, what it exposes now, Turn off, and Turn on
 * again after a failure; Remove uninstalls both APKs.
 */
function OpenPortsConsent(props: {
  deviceId: string;
  program: AdminPhoneProgram;
  online: boolean;
  act: Action<[ProgramsAction], unknown>;
}): React.JSX.Element {
  const { program, act } = props;
  const { t } = useT();
  const id = `program-${props.deviceId}-${program.program}`;
  const addresses = program.exposure?.network_addresses ?? [];
  const carried = !(program.state === 'unavailable' && program.version === null);
  return (
    <div data-testid={`${id}-consent`}>
      {!program.enabled ? (
        <p className="hint">
          {carried ? t('helper.explain', { version: program.version ?? '' }) : t('helper.unavailable')}
        </p>
      ) : null}
      {program.enabled && addresses.length > 0 ? (
        <div className="hint hint-warn" data-testid={`${id}-exposure`}>
          {t('helper.network.addresses', { addresses: addresses.slice(0, 3).join(', ') })}
        </div>
      ) : null}
      {program.state === 'ready' ? (
        <div className="muted small" data-testid={`${id}-guard`}>
          {t('helper.guard.watching')}
        </div>
      ) : null}
      <div className="helper-actions">
        {!program.enabled || program.state === 'failed' ? (
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={act.pending || !props.online || !carried}
            onClick={() => act.run('enable')}
            data-testid={`${id}-enable`}
          >
            {t(program.enabled ? 'helper.enableAgain' : 'helper.enable')}
          </button>
        ) : null}
        {program.enabled ? (
          <button
            type="button"
            className="btn btn-small"
            disabled={act.pending}
            onClick={() => act.run('disable')}
            data-testid={`${id}-disable`}
          >
            {t('helper.disable')}
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-small btn-danger"
          disabled={act.pending || !props.online}
          onClick={() => act.run('remove')}
          data-testid={`${id}-remove`}
        >
          {t('helper.remove')}
        </button>
      </div>
    </div>
  );
}

/** "12 frames a second, for the lease and this view": what the running stream serves. */
function streamWords(t: I18n['t'], stream: NonNullable<AdminPhoneProgram['stream']>, inView: boolean): string {
  const fps = Math.round(stream.fps);
  const lease = stream.for.includes('lease');
  const view = stream.for.includes('view');
  const purpose =
    lease && view
      ? t(inView ? 'stream.for.leaseAndView' : 'stream.for.leaseAndLiveView')
      : lease
        ? t('stream.for.lease')
        : view
          ? t(inView ? 'stream.for.view' : 'stream.for.liveView')
          : null;
  return purpose ? t('stream.fpsFor', { fps, purpose }) : t('stream.fps', { fps });
}

/** The failure in the person's language when its stable word is known, else the phone's own words. */
function reasonWords(program: AdminPhoneProgram, t: I18n['t']): string {
  const key = `programs.reason.${program.last_error_reason ?? ''}`;
  return hasMessage(key) ? t(key) : (program.last_error ?? '');
}
