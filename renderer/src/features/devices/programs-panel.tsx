/**
 * "Programs on this phone" on a device card (docs/REFERENCE.md "Fast lane"): every program the
 * bridge runs on the phone, in one list with one lifecycle's words — scrcpy-server (input) and
 * agent-device's snapshot helper (tree), through adb only and on by default; appium-uiautomator2-
 * server (open ports, off until the person's own yes); minicap (the screen stream). One line
 * each — name, version, state in words, the calls it served and those stock adb served instead,
 * and "What is this?" that opens what it does under the line — then its last error and when it
 * is tried again. Turn off / Turn on / Remove from phone here act
 * on the port-less pair; UIA2's and the stream's yes are given in their own sections below, where
 * their words say what each exposes.
 */
import type { AdminPhoneProgram } from '../../../../main/contract/admin-api';
import { hasMessage, type MessageKey } from '../../../../main/contract/i18n';
import type { ProgramsAction } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useNow } from '../../components/use-now';
import { useT } from '../../i18n/i18n-context';
import { useWhatIsThis } from '../../components/use-what-is-this';
import { useApi } from '../../api/api-context';

type State = AdminPhoneProgram['state'];

/** idle, starting and ready mean different things for the two: scrcpy-server is resident, the snapshot helper runs per read. */
const STATE: Record<AdminPhoneProgram['program'], Record<State, { text: MessageKey; tone: Tone }>> = {
  scrcpy_input: {
    idle: { text: 'programs.state.scrcpy_input.idle', tone: 'neutral' },
    starting: { text: 'programs.state.scrcpy_input.starting', tone: 'warn' },
    ready: { text: 'programs.state.scrcpy_input.ready', tone: 'ok' },
    failed: { text: 'programs.state.failed', tone: 'danger' },
    unavailable: { text: 'programs.state.unavailable', tone: 'neutral' },
    off: { text: 'programs.state.off', tone: 'neutral' },
  },
  snapshot_tree: {
    idle: { text: 'programs.state.snapshot_tree.idle', tone: 'neutral' },
    starting: { text: 'programs.state.snapshot_tree.starting', tone: 'warn' },
    ready: { text: 'programs.state.snapshot_tree.ready', tone: 'ok' },
    failed: { text: 'programs.state.failed', tone: 'danger' },
    unavailable: { text: 'programs.state.unavailable', tone: 'neutral' },
    off: { text: 'programs.state.off', tone: 'neutral' },
  },
  uia2_server: {
    idle: { text: 'programs.state.uia2_server.idle', tone: 'neutral' },
    starting: { text: 'programs.state.uia2_server.starting', tone: 'warn' },
    // Running means open ports: the person sees that as a warning, not as "all good".
    ready: { text: 'programs.state.uia2_server.ready', tone: 'warn' },
    failed: { text: 'programs.state.failed', tone: 'danger' },
    unavailable: { text: 'programs.state.unavailable', tone: 'neutral' },
    off: { text: 'programs.state.off', tone: 'neutral' },
  },
  minicap_stream: {
    idle: { text: 'programs.state.minicap_stream.idle', tone: 'neutral' },
    starting: { text: 'programs.state.minicap_stream.starting', tone: 'warn' },
    ready: { text: 'programs.state.minicap_stream.ready', tone: 'ok' },
    failed: { text: 'programs.state.failed', tone: 'danger' },
    unavailable: { text: 'programs.state.unavailable', tone: 'neutral' },
    off: { text: 'programs.state.off', tone: 'neutral' },
  },
};

/** The names in the person's language (the admin shape's `name` is English). */
const NAME: Record<AdminPhoneProgram['program'], MessageKey> = {
  scrcpy_input: 'programs.name.scrcpy_input',
  snapshot_tree: 'programs.name.snapshot_tree',
  uia2_server: 'programs.name.uia2_server',
  minicap_stream: 'programs.name.minicap_stream',
};

/** The two the panel's own switch acts on; the others have their consent in their own sections. */
const PORTLESS: ReadonlySet<AdminPhoneProgram['program']> = new Set(['scrcpy_input', 'snapshot_tree']);

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
          <ProgramRow key={program.program} deviceId={deviceId} program={program} idle={idle} />
        ))}
      </ul>
      <ErrorText error={act.error} testId={`programs-action-error-${deviceId}`} />
    </section>
  );
}

/** What each program does, for its "What is this?"; UIA2's and the stream's say where their yes is given. */
const WHAT: Record<AdminPhoneProgram['program'], MessageKey> = {
  scrcpy_input: 'programs.scrcpy.what',
  snapshot_tree: 'programs.snapshot.what',
  uia2_server: 'programs.consent.uia2_server',
  minicap_stream: 'programs.consent.minicap_stream',
};

function ProgramRow(props: { deviceId: string; program: AdminPhoneProgram; idle: string }): React.JSX.Element {
  const { program } = props;
  const { t, format } = useT();
  const now = useNow();
  const state = STATE[program.program][program.state];
  const id = `program-${props.deviceId}-${program.program}`;
  const what = useWhatIsThis(`${id}-what`, t(WHAT[program.program], { idle: props.idle }));
  // An error from before the program recovered is history; one that keeps it failed or unavailable is the news.
  const errorShown = program.last_error !== null && program.state !== 'ready' && program.state !== 'off';
  return (
    <li data-testid={id} data-state={program.state}>
      <strong title={program.name}>{t(NAME[program.program])}</strong>
      {program.version ? (
        <span className="muted small"> {t('programs.version', { version: program.version })}</span>
      ) : null}{' '}
      <span data-testid={`${id}-state`}>
        <StatusBadge tone={state.tone}>{t(state.text)}</StatusBadge>
      </span>{' '}
      <span className="muted small" data-testid={`${id}-served`}>
        {t('programs.served', { served: program.served, fell_back: program.fell_back })}
      </span>
      {program.stream && program.state === 'ready' ? (
        <span className="muted small" data-testid={`${id}-stream`}>
          {' '}
          {t('programs.stream.fps', { fps: program.stream.fps })}
        </span>
      ) : null}{' '}
      {what.button}
      {what.text}
      {program.exposure?.network_addresses && program.exposure.network_addresses.length > 0 && program.enabled ? (
        <div className="hint hint-warn" data-testid={`${id}-exposure`}>
          {t('helper.network.addresses', { addresses: program.exposure.network_addresses.join(', ') })}
        </div>
      ) : null}
      {program.state === 'unavailable' ? (
        <div className="hint" data-testid={`${id}-unavailable`}>
          {t(program.version === null ? 'programs.unavailable.build' : 'programs.unavailable.phone')}
        </div>
      ) : null}
      {errorShown ? (
        <div className={program.state === 'failed' ? 'hint hint-warn' : 'muted small'} data-testid={`${id}-error`}>
          {t('programs.lastError', { error: reasonWords(program, t) })}
          {program.state === 'failed'
            ? ` · ${
                program.retry_at !== null && program.retry_at > now
                  ? t('programs.retryIn', { time: format.secondsLeft(program.retry_at - now) })
                  : t('programs.retryNext')
              }`
            : null}
        </div>
      ) : null}
    </li>
  );
}

/** The failure in the person's language when its stable word is known, else the phone's own words. */
function reasonWords(program: AdminPhoneProgram, t: ReturnType<typeof useT>['t']): string {
  const key = `programs.reason.${program.last_error_reason ?? ''}`;
  return hasMessage(key) ? t(key) : (program.last_error ?? '');
}
