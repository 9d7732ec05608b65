/**
 * The phone check on a device card (README "Phone check"): each problem with its fix in
 * words, what is fine and what could not be told, and a "Check again" button that runs it now.
 */
import type { AdminPhoneCheck, AdminPhoneCheckItem, PhoneCheckId } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { RelativeTime } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';

const LABEL: Record<PhoneCheckId, string> = {
  authorized: 'USB debugging allowed',
  usb_permission: 'USB permission',
  screen_awake: 'Screen awake',
  unlocked: 'Unlocked',
  input_accepted: 'Taps accepted',
  ui_tree_readable: 'Screen readable',
  display: 'Display',
  unicode_typing: 'Unicode typing',
  free_storage: 'Free storage',
  android_version: 'Android version',
};

const MARK: Record<AdminPhoneCheckItem['status'], string> = { ok: '✓', problem: '!', unknown: '?' };

export function PhoneCheckPanel(props: { api: BridgeApi; deviceId: string; check: AdminPhoneCheck | null; onChanged: () => void }): React.JSX.Element {
  const { api, deviceId, check } = props;
  const again = useAction(() => api.checkDevice(deviceId), props.onChanged);
  const problems = check?.checks.filter((c) => c.status === 'problem') ?? [];
  const running = again.pending || check?.running === true;
  return (
    <section className="phone-check" data-testid={`phone-check-${deviceId}`} aria-label="Phone check">
      <div className="card-title-row">
        <h4 className="phone-check-title">
          Phone check{' '}
          <span className="muted small">
            {check ? (
              <>
                {problems.length === 0 ? 'no problems' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`} · <RelativeTime at={check.checked_at} />
              </>
            ) : (
              'not run yet'
            )}
          </span>
        </h4>
        <button type="button" className="btn btn-small" onClick={() => again.run()} disabled={running} data-testid={`phone-check-again-${deviceId}`}>
          {running ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {check ? (
        <ul className="phone-check-list">
          {[...check.checks]
            .sort((a, b) => order(a) - order(b))
            .map((c) => (
              <li key={c.id} className={`phone-check-row status-${c.status}`} data-testid={`phone-check-${deviceId}-${c.id}`} data-status={c.status}>
                <span className="phone-check-mark" aria-label={c.status}>
                  {MARK[c.status]}
                </span>{' '}
                <strong>{LABEL[c.id]}</strong>: {c.detail}
                {c.status === 'problem' && c.fix ? (
                  <p className="hint hint-warn" data-testid={`phone-check-fix-${deviceId}-${c.id}`}>
                    Fix: {c.fix}
                  </p>
                ) : null}
              </li>
            ))}
        </ul>
      ) : null}
      <ErrorText error={again.error} testId={`phone-check-error-${deviceId}`} />
    </section>
  );
}

/** Problems first, then what could not be told, then what is fine. */
function order(c: AdminPhoneCheckItem): number {
  return c.status === 'problem' ? 0 : c.status === 'unknown' ? 1 : 2;
}
