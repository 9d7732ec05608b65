/**
 * The pieces of an approval every view shows the same way (the Approvals card and the phone
 * view's held call): the sentence, the reasons in words, the app's name and icon, the
 * screenshot with the target marked, and the three answers.
 */
import type { AdminApproval } from '../../../../main/contract/admin-api';
import { approvalSentence, reasonText } from '../../../../main/contract/approval-wording';
import type { ApprovalDecision } from '../../api/bridge-api';
import { bridgePath } from '../../api/bridge-path';
import { useT } from '../../i18n/i18n-context';
import { phoneHash } from '../../../../main/contract/phone-view-route';
import type { Done } from '../../components/done-note';

// Private-use characters around each named thing in the sentence: split back into bold parts.
const OPEN = '\uE000';
const CLOSE = '\uE001';

/** "The agent wants to tap **“Pay $25.00”** in **Wallet**", in the UI's language. */
export function ApprovalSentence(props: { approval: AdminApproval; testId?: string }): React.JSX.Element {
  const { t } = useT();
  const text = approvalSentence(t, props.approval, { emphasis: (value) => `${OPEN}${value}${CLOSE}` });
  const parts: React.ReactNode[] = [];
  let rest = text;
  for (let i = 0; rest.length > 0; i++) {
    const open = rest.indexOf(OPEN);
    const close = open < 0 ? -1 : rest.indexOf(CLOSE, open);
    if (open < 0 || close < 0) {
      parts.push(rest.replace(/[\uE000\uE001]/g, ''));
      break;
    }
    if (open > 0) parts.push(rest.slice(0, open));
    parts.push(<b key={i}>{rest.slice(open + 1, close)}</b>);
    rest = rest.slice(close + 1);
  }
  return (
    <span className="approval-sentence" data-testid={props.testId}>
      {parts}
    </span>
  );
}

/** Why it was held, one line per reason, in the UI's language. */
export function ApprovalReasons(props: {
  approval: AdminApproval;
  className?: string;
  testId?: string;
}): React.JSX.Element | null {
  const { t } = useT();
  if (props.approval.reasons.length === 0) return null;
  return (
    <ul className={props.className ?? 'reasons'} data-testid={props.testId}>
      {props.approval.reasons.map((reason, i) => (
        <li key={`${i}-${reason.code}`} data-code={reason.code}>
          {reasonText(t, reason)}
        </li>
      ))}
    </ul>
  );
}

/** A hue from the package name: the same app keeps its colour across cards and phones. */
function packageHue(pkg: string): number {
  let hash = 0;
  for (const ch of pkg) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return hash % 360;
}

/**
 * The app's icon and name. The bridge reads no app icons from the phone, so the icon is the
 * name's first letter on a colour of the package's own; the package is named beside it.
 */
export function AppIdentity(props: { app: NonNullable<AdminApproval['app']>; testId?: string }): React.JSX.Element {
  const { t } = useT();
  const { app } = props;
  const letter = ([...app.label.replace(/^[^\p{L}\p{N}]+/u, '')][0] ?? '?').toUpperCase();
  return (
    <span className="approval-app" data-testid={props.testId} data-package={app.package}>
      <span
        className="app-avatar"
        role="img"
        aria-label={t('approvals.app.icon', { app: app.label })}
        title={t('approvals.app.icon', { app: app.label })}
        style={{ background: `hsl(${packageHue(app.package)} 55% 40%)` }}
      >
        {letter}
      </span>
      <span className="approval-app-name">{app.label}</span>
      {app.label !== app.package ? <span className="muted small mono">{app.package}</span> : null}
    </span>
  );
}

/**
 * The phone's screen when the call was held, with where the action would land drawn over
 * it: a box around the element (and a dot at a given point), an arrow for a swipe. The
 * drawing uses the phone's own pixels as its coordinates, so it scales with the picture.
 */
export function ApprovalScreenshot(props: { approval: AdminApproval; phoneName: string }): React.JSX.Element {
  const { t } = useT();
  const { approval } = props;
  const id = approval.approval_id;
  if (!approval.screenshot_url) {
    return (
      <span className="thumb-placeholder" data-testid={`approval-screenshot-${id}`}>
        {t('approvals.shot.none')}
      </span>
    );
  }
  const { target, swipe, screen_size: size } = approval.action;
  const bounds = target?.bounds ?? null;
  const point = target?.point ?? null;
  const marked = size !== null && (bounds !== null || point !== null || swipe !== null);
  const dot = size ? Math.max(size.width, size.height) * 0.018 : 0;
  // The target's rectangle, drawn twice: a wide light halo under the box, so it shows on any screen.
  const box = bounds
    ? { x: bounds[0], y: bounds[1], width: bounds[2] - bounds[0], height: bounds[3] - bounds[1] }
    : null;
  return (
    <span className="approval-shot-frame">
      <img
        src={bridgePath(approval.screenshot_url)}
        alt={t('approvals.shot.alt', { name: props.phoneName })}
        data-testid={`approval-screenshot-${id}`}
      />
      {marked && size ? (
        <svg
          className="approval-marker"
          viewBox={`0 0 ${size.width} ${size.height}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={t('approvals.marker.label')}
          data-testid={`approval-marker-${id}`}
        >
          <defs>
            <marker
              id={`arrow-${id}`}
              viewBox="0 0 10 10"
              refX="5"
              refY="5"
              markerWidth="4"
              markerHeight="4"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" fill="#ff5a1f" />
            </marker>
          </defs>
          {box ? (
            <>
              <rect className="marker-halo" {...box} />
              <rect className="marker-box" {...box} data-testid={`approval-marker-box-${id}`} />
            </>
          ) : null}
          {point ? (
            <circle
              className="marker-point"
              cx={point[0]}
              cy={point[1]}
              r={dot}
              data-testid={`approval-marker-point-${id}`}
            />
          ) : null}
          {swipe ? (
            <g data-testid={`approval-marker-swipe-${id}`}>
              <line
                className="marker-path"
                x1={swipe.from[0]}
                y1={swipe.from[1]}
                x2={swipe.to[0]}
                y2={swipe.to[1]}
                markerEnd={`url(#arrow-${id})`}
              />
              <circle className="marker-point" cx={swipe.from[0]} cy={swipe.from[1]} r={dot} />
            </g>
          ) : null}
        </svg>
      ) : null}
    </span>
  );
}

/** Approve once, approve for the lease, deny: the same words wherever an approval is answered. */
export function ApprovalButtons(props: {
  pending: boolean;
  onDecide: (decision: ApprovalDecision) => void;
  testIds: { once: string; lease: string; deny: string };
}): React.JSX.Element {
  const { t } = useT();
  const answers: ReadonlyArray<{
    decision: ApprovalDecision;
    className: string;
    label: string;
    testId: string;
    title?: string;
  }> = [
    {
      decision: 'approve',
      className: 'btn btn-primary',
      label: t('approvals.approveOnce'),
      testId: props.testIds.once,
    },
    {
      decision: 'approve_for_lease',
      className: 'btn',
      label: t('approvals.approveLease'),
      testId: props.testIds.lease,
      title: t('approvals.approveLeaseTitle'),
    },
    { decision: 'deny', className: 'btn btn-danger', label: t('approvals.deny'), testId: props.testIds.deny },
  ];
  return (
    <div className="actions">
      {answers.map((answer) => (
        <button
          key={answer.decision}
          type="button"
          className={answer.className}
          disabled={props.pending}
          onClick={() => props.onDecide(answer.decision)}
          data-testid={answer.testId}
          title={answer.title}
        >
          {answer.label}
        </button>
      ))}
    </div>
  );
}

/**
 * What an answer to a held call did, for the note that stays once its card is gone: approved
 * (once or for the lease) and the way to watch the agent go on, or denied.
 */
export function approvalDone(
  t: ReturnType<typeof useT>['t'],
  decision: ApprovalDecision,
  deviceId: string,
  phone: string,
): Done {
  if (decision === 'deny') return { text: t('approvals.done.denied', { phone }) };
  return {
    text: t(decision === 'approve_for_lease' ? 'approvals.done.approvedLease' : 'approvals.done.approved', { phone }),
    next: {
      href: phoneHash(deviceId),
      text: t('approvals.done.watch'),
      title: t('approvals.done.watchTitle', { phone }),
    },
  };
}
