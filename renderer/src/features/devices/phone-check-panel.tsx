/**
 * The phone check on a device card (docs/REFERENCE.md "Phone check"): "ready" or how many problems, each
 * problem with its fix in words; what is fine and what could not be told behind "Show all";
 * and a "Check again" button that runs it now. A problem the programs on this phone (the fast
 * lane) fix where the person turned them off offers them first, with their Turn on, and the
 * other fix after it.
 */
import type {
  AdminPhoneCheck,
  AdminPhoneCheckItem,
  AdminPhoneProgram,
  PhoneCheckId,
} from '../../../../main/contract/admin-api';
import { RelativeTime } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { hasMessage, type MessageKey, type MessageParams, type Translate } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

const LABEL: Record<PhoneCheckId, MessageKey> = {
  authorized: 'phone-check.label.authorized',
  usb_permission: 'phone-check.label.usb_permission',
  screen_awake: 'phone-check.label.screen_awake',
  unlocked: 'phone-check.label.unlocked',
  input_accepted: 'phone-check.label.input_accepted',
  ui_tree_readable: 'phone-check.label.ui_tree_readable',
  display: 'phone-check.label.display',
  unicode_typing: 'phone-check.label.unicode_typing',
  free_storage: 'phone-check.label.free_storage',
  android_version: 'phone-check.label.android_version',
  shell_protocol: 'phone-check.label.shell_protocol',
  system_dialog: 'phone-check.label.system_dialog',
  battery: 'phone-check.label.battery',
};

const STATUS: Record<AdminPhoneCheckItem['status'], MessageKey> = {
  ok: 'phone-check.status.ok',
  problem: 'phone-check.status.problem',
  unknown: 'phone-check.status.unknown',
};

const MARK: Record<AdminPhoneCheckItem['status'], string> = { ok: '✓', problem: '!', unknown: '?' };

/** Problems scrcpy-server fixes when it runs: it pastes any text, so ADB Keyboard is not needed. */
const FAST_LANE_FIXES: ReadonlySet<PhoneCheckId> = new Set(['unicode_typing']);

/** The fast lane can fix it here: the person turned it off on this phone, and this build and phone can run it. */
function fastLaneCanFix(programs: AdminPhoneProgram[] | undefined): boolean {
  const input = programs?.find((p) => p.program === 'scrcpy_input');
  return input !== undefined && !input.enabled && input.version !== null && input.state !== 'unavailable';
}

export function PhoneCheckPanel(props: {
  deviceId: string;
  check: AdminPhoneCheck | null;
  /** The programs on this phone (the fast lane), whose Turn on is offered first where it fixes a problem. */
  programs?: AdminPhoneProgram[] | undefined;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { deviceId, check } = props;
  const { t } = useT();
  const again = useAction(() => api.checkDevice({ device_id: deviceId }), props.onChanged);
  const turnOn = useAction(() => api.setDevicePrograms({ device_id: deviceId, action: 'enable' }), props.onChanged);
  const offerFastLane = fastLaneCanFix(props.programs);
  const problems = check?.checks.filter((c) => c.status === 'problem') ?? [];
  const running = again.pending || check?.running === true;
  const row = (c: AdminPhoneCheckItem): React.JSX.Element => (
    <li
      key={c.id}
      className={`phone-check-row status-${c.status}`}
      data-testid={`phone-check-${deviceId}-${c.id}`}
      data-status={c.status}
    >
      <span className="phone-check-mark" aria-label={t(STATUS[c.status])}>
        {MARK[c.status]}
      </span>{' '}
      <strong>{t(LABEL[c.id])}</strong>
      {t('phone-check.separator')}
      <span className="phone-check-detail">{words(t, c.detail_key, c.detail_params, c.detail)}</span>
      {c.status === 'problem' && offerFastLane && FAST_LANE_FIXES.has(c.id) ? (
        <p className="hint hint-warn" data-testid={`phone-check-fast-lane-${deviceId}-${c.id}`}>
          {t('phone-check.fastLaneFix')}{' '}
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={turnOn.pending}
            onClick={() => turnOn.run()}
            data-testid={`phone-check-fast-lane-on-${deviceId}-${c.id}`}
          >
            {turnOn.pending ? t('programs.working') : t('programs.enable')}
          </button>
        </p>
      ) : null}
      {c.status === 'problem' && c.fix ? (
        <p className="hint hint-warn" data-testid={`phone-check-fix-${deviceId}-${c.id}`}>
          {t(offerFastLane && FAST_LANE_FIXES.has(c.id) ? 'phone-check.fixOr' : 'phone-check.fix', {
            fix: words(t, c.fix_key, undefined, c.fix),
          })}
        </p>
      ) : null}
    </li>
  );
  return (
    <section className="phone-check" data-testid={`phone-check-${deviceId}`} aria-label={t('phone-check.title')}>
      <div className="card-title-row">
        <h4 className="phone-check-title">
          {t('phone-check.title')}{' '}
          <span className="muted small">
            {check ? (
              <>
                {problems.length === 0
                  ? t('phone-check.noProblems')
                  : t('phone-check.problems', { count: problems.length })}{' '}
                · <RelativeTime at={check.checked_at} />
              </>
            ) : (
              t('phone-check.notRun')
            )}
          </span>
        </h4>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => again.run()}
          disabled={running}
          data-testid={`phone-check-again-${deviceId}`}
        >
          {running ? t('phone-check.checking') : t('phone-check.again')}
        </button>
      </div>
      {check ? (
        <>
          {/* Problems, with their fixes, are always in view; what is fine (or could not be told) is there on demand. */}
          {problems.length > 0 ? <ul className="phone-check-list">{problems.map((c) => row(c))}</ul> : null}
          <details className="phone-check-details" data-testid={`phone-check-details-${deviceId}`}>
            <summary>{t('phone-check.details', { count: check.checks.length })}</summary>
            <ul className="phone-check-list">
              {check.checks
                .filter((c) => c.status !== 'problem')
                .sort((a, b) => order(a) - order(b))
                .map((c) => row(c))}
            </ul>
          </details>
        </>
      ) : null}
      <ErrorText error={again.error} testId={`phone-check-error-${deviceId}`} />
      <ErrorText error={turnOn.error} testId={`phone-check-fast-lane-error-${deviceId}`} />
    </section>
  );
}

/** A row's words in the UI's language when the bridge sent their catalogue key, else the bridge's English. */
function words(t: Translate, key: string | undefined, params: MessageParams | undefined, english: string): string {
  return key !== undefined && hasMessage(key) ? t(key, params) : english;
}

/** Problems first, then what could not be told, then what is fine. */
function order(c: AdminPhoneCheckItem): number {
  return c.status === 'problem' ? 0 : c.status === 'unknown' ? 1 : 2;
}
