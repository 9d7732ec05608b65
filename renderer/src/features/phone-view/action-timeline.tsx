/**
 * The agent's last actions on one phone, newest first: tool, its arguments in words (the raw
 * arguments, redacted as the audit keeps them, behind Details), state (queued, running, held,
 * done), outcome with the error explained in words, duration and lane, with the picture of the
 * screen each tap, long press or swipe was made on and a marker where it landed (a dot for a
 * tap or long press, an arrow for a swipe), placed by the point's share of the
 * phone's screen so it sits right at any picture size. A held call shows its approval here; a
 * running one what it waits for and for how long; a typing one, on this computer, the text.
 */
import type {
  ActionLane,
  AdminActionPoint,
  AdminApproval,
  AdminPhoneAction,
} from '../../../../main/contract/admin-api';
import type { MessageKey } from '../../../../main/contract/i18n';
import { auditSentence } from '../../../../main/contract/audit-wording';
import type { ApprovalDecision } from '../../api/bridge-api';
import { Countdown } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useNow } from '../../components/use-now';
import { useT } from '../../i18n/i18n-context';
import { argumentWords, errorExplanation, isStoppedCode, waitWords } from '../../lib/action-words';
import { toolName } from '../../lib/tool-names';
import { ApprovalButtons, ApprovalReasons, ApprovalSentence } from '../approvals/approval-parts';
import { useApi } from '../../api/api-context';

const STATE_TEXT: Record<Exclude<AdminPhoneAction['state'], 'done'>, { key: MessageKey; tone: Tone }> = {
  queued: { key: 'phone-view.state.queued', tone: 'neutral' },
  running: { key: 'phone-view.state.running', tone: 'info' },
  held: { key: 'phone-view.state.held', tone: 'warn' },
};

/** The lane that served a call: the open-ports helper, scrcpy-server (input), the snapshot helper (tree), or stock adb. */
const LANE_TEXT: Record<ActionLane, MessageKey> = {
  helper: 'phone-view.lane.helper',
  scrcpy: 'phone-view.lane.scrcpy',
  ui_reader: 'phone-view.lane.ui_reader',
  snapshot: 'phone-view.lane.snapshot',
  adb: 'phone-view.lane.adb',
};

const POINT_TEXT: Record<AdminActionPoint['kind'], MessageKey> = {
  tap: 'phone-view.point.tap',
  long_press: 'phone-view.point.long_press',
  swipe: 'phone-view.point.swipe',
};

/**
 * The person's own step or the bridge's in the sentence Activity uses ("You tapped", "You typed
 * 5 characters", "You took the phone over", "Phone reset after the lease: 1 app stopped"); never
 * the text typed. Falls back to the tool's name for a step this console has no words for.
 */
export function stepWords(t: ReturnType<typeof useT>['t'], action: AdminPhoneAction): string {
  return (
    auditSentence(t, {
      tool_id: action.tool_id,
      arguments: action.arguments,
      error_code: action.error_code,
      reasons: action.reasons ?? [],
    }) ?? toolName(t, action.tool_id)
  );
}

/** The approval waiting for this held call (one control call per phone can be held at a time). */
export function approvalFor(action: AdminPhoneAction, approvals: readonly AdminApproval[]): AdminApproval | undefined {
  if (action.state !== 'held') return undefined;
  return approvals.find(
    (a) =>
      a.device_id === action.device_id &&
      a.tool_id === action.tool_id &&
      a.connector_channel_id === action.connector_channel_id,
  );
}

export function ActionTimeline(props: {
  actions: AdminPhoneAction[];
  pictures: ReadonlyMap<string, string>;
  approvals: readonly AdminApproval[];
  capacity: number;
  onChanged: () => void;
}): React.JSX.Element {
  const { t } = useT();
  return (
    <section className="pv-timeline" aria-labelledby="pv-timeline-heading">
      <h3 id="pv-timeline-heading" className="pv-section-title">
        {t('phone-view.timeline.title')}
      </h3>
      <p className="hint">{t('phone-view.timeline.hint', { count: props.capacity })}</p>
      {props.actions.length === 0 ? (
        <p className="muted" data-testid="pv-timeline-empty">
          {t('phone-view.timeline.empty')}
        </p>
      ) : (
        <ol className="pv-actions" data-testid="pv-timeline">
          {props.actions.map((action) => (
            <ActionRow
              key={action.action_id}
              action={action}
              picture={props.pictures.get(action.action_id)}
              approval={approvalFor(action, props.approvals)}
              onChanged={props.onChanged}
            />
          ))}
        </ol>
      )}
    </section>
  );
}

function ActionRow(props: {
  action: AdminPhoneAction;
  picture: string | undefined;
  approval: AdminApproval | undefined;
  onChanged: () => void;
}): React.JSX.Element {
  const { t, format } = useT();
  // The day is what matters here (clock() adds the date for other days): no ticking needed.
  const now = Date.now();
  const { action } = props;
  const id = action.action_id;
  const args = JSON.stringify(action.arguments);
  // The person's steps and the bridge's own read as one sentence each, as in Activity.
  const person = action.by === 'person' || action.by === 'bridge';
  const words = person
    ? null
    : argumentWords(t, action.tool_id, action.arguments, action.typing, action.target_label ?? null);
  // A canceled call's badge says it all; every other error gets its explanation.
  const failed =
    action.state === 'done' &&
    action.outcome === 'error' &&
    // A failed reset's sentence already says what failed.
    action.by !== 'bridge' &&
    action.error_code !== null &&
    action.error_code !== 'canceled';
  return (
    <li
      className={`pv-action pv-action-${action.state}`}
      data-testid={`pv-action-${id}`}
      data-tool={action.tool_id}
      data-state={action.state}
      data-seq={action.seq}
      data-by={action.by ?? 'agent'}
    >
      <div className="pv-action-main">
        <div className="pv-action-head">
          {person ? (
            <span className="strong pv-person" title={action.tool_id} data-testid={`pv-action-person-${id}`}>
              {stepWords(t, action)}
            </span>
          ) : (
            <span className="strong" title={action.tool_id}>
              {toolName(t, action.tool_id)}
            </span>
          )}
          <ActionStatus action={action} />
          {action.lane ? (
            <StatusBadge tone="neutral" testId={`pv-action-lane-${id}`} title={t('phone-view.lane.title')}>
              {t(LANE_TEXT[action.lane])}
            </StatusBadge>
          ) : null}
          <span className="muted small nowrap">
            <time dateTime={new Date(action.queued_at).toISOString()} title={format.dateTime(action.queued_at)}>
              {format.clock(action.queued_at, now)}
            </time>
            {action.duration_ms !== null ? ` · ${format.duration(action.duration_ms)}` : ''}
          </span>
        </div>
        {words ? (
          <p className="pv-words" data-testid={`pv-action-words-${id}`}>
            {words}
          </p>
        ) : null}
        {action.state !== 'done' && action.typing && action.typing.length > 0 ? (
          <LiveTyping id={id} typing={action.typing} />
        ) : null}
        {action.state === 'queued' || action.state === 'running' ? <WaitLine action={action} /> : null}
        {failed && action.error_code ? (
          <p
            className={isStoppedCode(action.error_code) ? 'pv-error pv-error-stopped' : 'pv-error'}
            data-testid={`pv-action-error-${id}`}
            data-code={action.error_code}
          >
            {errorExplanation(action.error_code, t)}{' '}
            <code className="pv-code" title={t('actions.error.code', { code: action.error_code })}>
              {action.error_code}
            </code>
          </p>
        ) : null}
        {args !== '{}' || action.error_message ? (
          <details className="pv-details" data-testid={`pv-action-details-${id}`}>
            <summary>{t('actions.details')}</summary>
            {args !== '{}' ? (
              <>
                <span className="muted small">{t('actions.details.arguments')}</span>
                <code className="pv-args" title={args} data-testid={`pv-action-args-${id}`}>
                  {args}
                </code>
              </>
            ) : null}
            {action.error_message ? (
              <>
                <span className="muted small">{t('actions.details.message')}</span>
                <span className="pv-agent-message" data-testid={`pv-action-message-${id}`}>
                  {action.error_message}
                </span>
              </>
            ) : null}
          </details>
        ) : null}
        {action.points.length > 0 ? (
          <p className="muted small" data-testid={`pv-action-points-${id}`}>
            {action.points
              .map((p) => t(POINT_TEXT[p.kind], { x: p.x, y: p.y, to_x: p.to_x ?? 0, to_y: p.to_y ?? 0 }))
              .join(' · ')}
          </p>
        ) : null}
        {props.approval ? <HeldApproval approval={props.approval} onChanged={props.onChanged} /> : null}
      </div>
      {action.screen && action.points.length > 0 ? <ActionPicture action={action} picture={props.picture} /> : null}
    </li>
  );
}

/** What a queued or running call waits for, the seconds counted here once a second. */
function WaitLine(props: { action: AdminPhoneAction }): React.JSX.Element | null {
  const { t } = useT();
  const now = useNow();
  const text = waitWords(t, props.action, now);
  if (!text) return null;
  return (
    <p className="pv-wait" data-testid={`pv-action-wait-${props.action.action_id}`} aria-live="off">
      {text}
    </p>
  );
}

/** The text being typed, on this computer only: plain, or dots for a secret. */
function LiveTyping(props: { id: string; typing: ReadonlyArray<string | null> }): React.JSX.Element {
  const { t } = useT();
  return (
    <p className="pv-typing" data-testid={`pv-typing-${props.id}`} title={t('actions.typed.liveTitle')}>
      <span className="pv-typing-label">{t('actions.typed.live')}</span>
      {props.typing.map((text, i) =>
        text === null ? (
          <span key={i} className="pv-typing-dots" data-secret="true" aria-label={t('actions.typed.dots')}>
            ••••••••
          </span>
        ) : (
          <span key={i} className="pv-typing-text">
            {text}
          </span>
        ),
      )}
    </p>
  );
}

function ActionStatus(props: { action: AdminPhoneAction }): React.JSX.Element {
  const { t } = useT();
  const { action } = props;
  const testId = `pv-action-status-${action.action_id}`;
  if (action.state !== 'done') {
    const s = STATE_TEXT[action.state];
    return (
      <StatusBadge tone={s.tone} testId={testId}>
        {action.state === 'running' ? <span className="pv-spinner" aria-hidden="true" /> : null}
        {t(s.key)}
      </StatusBadge>
    );
  }
  if (action.outcome === 'ok') {
    return (
      <StatusBadge tone="ok" testId={testId}>
        {t('phone-view.outcome.ok')}
      </StatusBadge>
    );
  }
  // The explanation and the code follow under the title; the badge only says how it ended.
  const code = action.error_code;
  if (code === 'canceled')
    return (
      <StatusBadge tone="neutral" testId={testId} title={code}>
        {t('phone-view.outcome.canceled')}
      </StatusBadge>
    );
  return (
    <StatusBadge tone={isStoppedCode(code) ? 'warn' : 'danger'} testId={testId} title={code ?? undefined}>
      {isStoppedCode(code) ? t('actions.stopped') : t('actions.failed')}
    </StatusBadge>
  );
}

/** The screen the action was made on, with its markers placed by share of the screen. */
function ActionPicture(props: { action: AdminPhoneAction; picture: string | undefined }): React.JSX.Element | null {
  const { t } = useT();
  const { action } = props;
  const screen = action.screen;
  if (!screen) return null;
  const id = action.action_id;
  const pct = (v: number, of: number): string => `${((v / of) * 100).toFixed(3)}%`;
  return (
    <div
      className="pv-shot"
      style={{ aspectRatio: `${screen.thumb_width} / ${screen.thumb_height}` }}
      data-testid={`pv-action-shot-${id}`}
      data-screen-width={screen.width}
      data-screen-height={screen.height}
    >
      {props.picture ? (
        <img
          src={props.picture}
          alt={t('phone-view.shot.alt', { tool: action.tool_id })}
          data-testid={`pv-action-img-${id}`}
        />
      ) : (
        <span className="pv-shot-wait" />
      )}
      <svg
        className="pv-shot-overlay"
        viewBox={`0 0 ${screen.width} ${screen.height}`}
        preserveAspectRatio="none"
        aria-hidden="true"
      >
        <defs>
          <marker
            id={`pv-arrow-${id}`}
            viewBox="0 0 10 10"
            refX="8"
            refY="5"
            markerWidth="4"
            markerHeight="4"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" className="pv-arrow-head" />
          </marker>
        </defs>
        {action.points.map((p, i) =>
          p.to_x !== null && p.to_y !== null ? (
            <line
              key={i}
              x1={p.x}
              y1={p.y}
              x2={p.to_x}
              y2={p.to_y}
              className="pv-arrow"
              vectorEffect="non-scaling-stroke"
              markerEnd={`url(#pv-arrow-${id})`}
            />
          ) : null,
        )}
      </svg>
      {action.points.map((p, i) => (
        <span
          key={i}
          className={`pv-marker pv-marker-${p.kind}`}
          style={{ left: pct(p.x, screen.width), top: pct(p.y, screen.height) }}
          data-testid={`pv-marker-${id}-${i}`}
          data-kind={p.kind}
          data-x={p.x}
          data-y={p.y}
        />
      ))}
    </div>
  );
}

/** A held call's approval, answered right here (the same operation and words as in Approvals). */
function HeldApproval(props: { approval: AdminApproval; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const { approval } = props;
  const id = approval.approval_id;
  const decide = useAction(
    (decision: ApprovalDecision) => api.decideApproval({ approval_id: id, decision }),
    props.onChanged,
  );
  return (
    <div
      className="pv-approval"
      role="group"
      aria-label={t('phone-view.approval.label')}
      data-testid={`pv-approval-${id}`}
    >
      <p className="pv-approval-title">
        <strong>{t('phone-view.approval.title')}</strong>{' '}
        <span className="muted small">
          {t('phone-view.approval.refusedIn')}{' '}
          <Countdown
            to={approval.expires_at}
            from={approval.created_at}
            warnBelowMs={30_000}
            label={t('phone-view.approval.countdown')}
          />
        </span>
      </p>
      <p className="small">
        <ApprovalSentence approval={approval} testId={`pv-approval-sentence-${id}`} />
      </p>
      <ApprovalReasons approval={approval} className="reasons small" />
      <ApprovalButtons
        pending={decide.pending}
        onDecide={(decision) => decide.run(decision)}
        testIds={{ once: `pv-approve-once-${id}`, lease: `pv-approve-lease-${id}`, deny: `pv-deny-${id}` }}
      />
      <ErrorText error={decide.error} testId={`pv-approval-error-${id}`} />
    </div>
  );
}
