/**
 * The live picture of a phone the person holds, driven like the phone: a click is a tap, a
 * drag a swipe, a press held still a long press (a ring fills while held, solid once it
 * counts), the mouse wheel scrolls (one flick is gathered into one swipe, not thirty), and
 * the keyboard types while the screen has focus: printable keys and an input method's
 * composed text (Chinese, Japanese…) are sent when composed, Enter, Backspace, Delete, Tab and
 * the arrows as the phone's keys, Escape as Back. Points are the phone's own pixels, read
 * through the picture's letterboxing and CSS scaling (screen-geometry.ts).
 *
 * Keys reach a hidden text area over the picture: only an editable element receives an input
 * method's composition, and it must keep its text while a composition runs.
 */
import { useEffect, useRef, useState } from 'react';
import type { AdminPersonInput } from '../../../../main/contract/admin-api';
import { useT } from '../../i18n/i18n-context';
import { boxPointOf, phonePointAt, type Size } from './screen-geometry';
import type { PersonInputSender } from './use-person-input';

/** A press that moves less than this (CSS px) is a tap or a hold, more is a swipe. */
const DRAG_MIN_PX = 12;
/** Held this long without moving, a press is a long press (Android's own long-press timeout is 400–500 ms). */
export const HOLD_MS = 500;
/** The long press sent lasts as long as the hold, within these bounds (person-input.ts accepts 300..5000). */
const LONG_PRESS_MIN_MS = 800;
const LONG_PRESS_MAX_MS = 5_000;
const SWIPE_MIN_MS = 100;
const SWIPE_MAX_MS = 3_000;
/** A wheel quiet for this long has ended its flick: what it gathered is one scroll. */
const WHEEL_QUIET_MS = 150;
/** A wheel turning on and on (a trackpad's long glide) still scrolls at least this often. */
const WHEEL_MAX_GATHER_MS = 600;
/** Pixels of wheel movement per notch (a mouse notch is 100 in Chromium and Firefox; a trackpad sends many small ones). */
const WHEEL_NOTCH_PX = 100;
const MAX_NOTCHES = 10;

type Key = Extract<AdminPersonInput, { kind: 'key' }>['key'];
const KEYS: Record<string, Key> = {
  Enter: 'enter',
  Backspace: 'backspace',
  Delete: 'forward_delete',
  Tab: 'tab',
  ArrowUp: 'dpad_up',
  ArrowDown: 'dpad_down',
  ArrowLeft: 'dpad_left',
  ArrowRight: 'dpad_right',
  // The phone has no Escape that apps heed: Back is what a person means by it.
  Escape: 'back',
};

interface Press {
  pointerId: number;
  x: number;
  y: number;
  clientX: number;
  clientY: number;
  at: number;
  moved: boolean;
}

export function DrivableScreen(props: {
  url: string;
  alt: string;
  seq: number;
  shown: number;
  screen: Size;
  input: PersonInputSender;
}): React.JSX.Element {
  const { t } = useT();
  const { input, screen } = props;
  const img = useRef<HTMLImageElement>(null);
  const keyboard = useRef<HTMLTextAreaElement>(null);
  const press = useRef<Press | null>(null);
  const holdTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const composing = useRef(false);
  const [hold, setHold] = useState<{ left: number; top: number; held: boolean } | null>(null);
  const [typing, setTyping] = useState(false);
  // Read by the wheel listener, which is added once.
  const latest = useRef({ screen, input });
  latest.current = { screen, input };

  const pointAt = (clientX: number, clientY: number, clamp = false): { x: number; y: number } | null => {
    const el = img.current;
    if (!el) return null;
    return phonePointAt(el.getBoundingClientRect(), latest.current.screen, clientX, clientY, clamp);
  };

  useEffect(() => () => clearTimeout(holdTimer.current), []);

  // The wheel: a listener that may prevent the page's own scroll (React's is passive), gathering a flick.
  useEffect(() => {
    const el = img.current;
    if (!el) return;
    let gathered: { x: number; y: number; dx: number; dy: number; since: number } | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      clearTimeout(timer);
      timer = undefined;
      const g = gathered;
      gathered = null;
      if (!g) return;
      const vertical = Math.abs(g.dy) >= Math.abs(g.dx);
      const amount = vertical ? g.dy : g.dx;
      if (amount === 0) return;
      const notches = Math.min(MAX_NOTCHES, Math.max(1, Math.round(Math.abs(amount) / WHEEL_NOTCH_PX)));
      const direction = vertical ? (amount > 0 ? 'down' : 'up') : amount > 0 ? 'right' : 'left';
      latest.current.input.send({ kind: 'scroll', x: g.x, y: g.y, direction, notches });
    };
    const onWheel = (e: WheelEvent): void => {
      const at = pointAt(e.clientX, e.clientY);
      if (!at) return;
      e.preventDefault();
      // Lines and pages as pixels, roughly as browsers scroll them.
      const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1;
      gathered ??= { ...at, dx: 0, dy: 0, since: performance.now() };
      gathered.dx += e.deltaX * unit;
      gathered.dy += e.deltaY * unit;
      clearTimeout(timer);
      if (performance.now() - gathered.since >= WHEEL_MAX_GATHER_MS) flush();
      else timer = setTimeout(flush, WHEEL_QUIET_MS);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      el.removeEventListener('wheel', onWheel);
      clearTimeout(timer);
    };
    // Added once: pointAt and the sender are read through refs.
  }, []);

  const endPress = (): Press | null => {
    const p = press.current;
    press.current = null;
    clearTimeout(holdTimer.current);
    holdTimer.current = undefined;
    setHold(null);
    return p;
  };

  const sendTyped = (): void => {
    const area = keyboard.current;
    if (!area || composing.current) return;
    const text = area.value;
    area.value = '';
    input.type(text);
  };

  return (
    <div className="pv-drive">
      <img
        ref={img}
        src={props.url}
        alt={props.alt}
        data-testid="phone-view-frame"
        data-seq={props.seq}
        data-shown={props.shown}
        data-drives="true"
        data-screen-width={screen.width}
        data-screen-height={screen.height}
        data-sent={input.done}
        className={typing ? 'pv-drivable pv-typing' : 'pv-drivable'}
        draggable={false}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          const at = pointAt(e.clientX, e.clientY);
          // The bars beside a letterboxed picture are not the phone.
          if (!at) return;
          e.preventDefault();
          // The keyboard follows the screen: a click on it is also where typing goes.
          keyboard.current?.focus({ preventScroll: true });
          e.currentTarget.setPointerCapture(e.pointerId);
          press.current = {
            pointerId: e.pointerId,
            ...at,
            clientX: e.clientX,
            clientY: e.clientY,
            // When the press happened, not when this handler ran: a busy page must not turn a tap into a hold.
            at: e.timeStamp,
            moved: false,
          };
          const spot = boxPointOf(e.currentTarget.getBoundingClientRect(), screen, at);
          setHold({ left: spot.x, top: spot.y, held: false });
          holdTimer.current = setTimeout(() => {
            if (press.current && !press.current.moved) setHold((h) => (h ? { ...h, held: true } : h));
          }, HOLD_MS);
        }}
        onPointerMove={(e) => {
          const p = press.current;
          if (!p || p.moved || e.pointerId !== p.pointerId) return;
          if (Math.hypot(e.clientX - p.clientX, e.clientY - p.clientY) >= DRAG_MIN_PX) {
            p.moved = true;
            clearTimeout(holdTimer.current);
            setHold(null);
          }
        }}
        onPointerUp={(e) => {
          const p = press.current;
          if (!p || e.pointerId !== p.pointerId) return;
          endPress();
          const heldMs = Math.round(e.timeStamp - p.at);
          const moved = p.moved || Math.hypot(e.clientX - p.clientX, e.clientY - p.clientY) >= DRAG_MIN_PX;
          if (moved) {
            const to = pointAt(e.clientX, e.clientY, true);
            if (!to) return;
            const duration_ms = Math.min(SWIPE_MAX_MS, Math.max(SWIPE_MIN_MS, heldMs));
            input.send({ kind: 'swipe', x1: p.x, y1: p.y, x2: to.x, y2: to.y, duration_ms });
          } else if (heldMs >= HOLD_MS) {
            const duration_ms = Math.min(LONG_PRESS_MAX_MS, Math.max(LONG_PRESS_MIN_MS, heldMs));
            input.send({ kind: 'long_press', x: p.x, y: p.y, duration_ms });
          } else {
            input.send({ kind: 'tap', x: p.x, y: p.y });
          }
        }}
        onPointerCancel={() => endPress()}
        style={{ aspectRatio: `${screen.width} / ${screen.height}` }}
      />
      {hold ? (
        <span
          className={hold.held ? 'pv-hold pv-hold-held' : 'pv-hold'}
          style={{ left: hold.left, top: hold.top, animationDuration: `${HOLD_MS}ms` }}
          data-testid="phone-view-hold"
          data-held={hold.held ? 'true' : 'false'}
          aria-hidden="true"
        />
      ) : null}
      <textarea
        ref={keyboard}
        className="pv-keyboard"
        data-testid="phone-view-keyboard"
        aria-label={t('phone-view.takeover.keyboard')}
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="off"
        spellCheck={false}
        onFocus={() => setTyping(true)}
        onBlur={() => setTyping(false)}
        onKeyDown={(e) => {
          // An input method's own keys (229 while composing) are its business until it commits.
          if (e.nativeEvent.isComposing || e.keyCode === 229 || e.ctrlKey || e.metaKey || e.altKey) return;
          const key = KEYS[e.key];
          if (!key) return;
          e.preventDefault();
          sendTyped();
          input.send({ kind: 'key', key });
        }}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={() => {
          composing.current = false;
          // The composed text is in the area now (compositionend delivers it).
          sendTyped();
        }}
        onInput={(e) => {
          if (composing.current || e.nativeEvent.isComposing) return;
          sendTyped();
        }}
      />
      {typing ? (
        <p className="pv-typing-note small" data-testid="phone-view-typing" role="status">
          {t('phone-view.takeover.typing')}
        </p>
      ) : null}
    </div>
  );
}
