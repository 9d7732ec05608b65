/**
 * ScreenLockGuard: a control call that would land on a dark or locked screen is refused with
 * `device_locked` and the fix in words, before it reaches the policy or the phone. The bridge
 * never types a PIN, pattern or password, and refuses the swipes and taps that could.
 *
 * Where the check happens, so taps are not slowed: the screen state (`dumpsys power` for
 * mWakefulness, `dumpsys window` for the keyguard; screen-state.ts) is read at most once per
 * `freshMs` per phone and kept; a burst of taps pays for it once. It is forgotten (read again
 * at the next control call) after a refusal, after a failed call, and after the agent wakes
 * the screen, so a person who unlocks the phone is believed at once. The cost is a window of
 * `freshMs` in which a phone locked by hand is not yet noticed: a tap there lands on the lock
 * screen, which carries no secret. Output that says nothing (an unknown Android build) never
 * refuses.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { parseKeyguard, parseWakefulness, type Wakefulness } from '../android/screen-state';
import { toolFacts } from './catalogue';

export const DEVICE_LOCKED_FIX = 'unlock the phone; the bridge never types a PIN, pattern or password';
export const SCREEN_OFF_WAKE_FIX =
  'wake the screen (android_press_key with key wakeup, or the power button) and unlock the phone if it asks; the bridge never types a PIN';

export interface ScreenLockState {
  wakefulness: Wakefulness | null;
  keyguard: { showing: boolean; secure: boolean | null } | null;
  at: number;
}

const WAKING_KEYS = new Set(['wakeup', 'power', 'sleep']);

/** A key press that wakes or sleeps the phone: allowed on a locked or dark screen. */
function wakingKey(toolId: unknown, args: { key?: unknown } | undefined): boolean {
  return typeof toolId === 'string' && toolFacts(toolId).policy === 'key' && WAKING_KEYS.has(String(args?.key));
}

/** True when this control call must find the screen awake and unlocked (its input could land on the lock screen). */
export function needsUnlockedScreen(toolId: string, args: Record<string, unknown>): boolean {
  const facts = toolFacts(toolId);
  if (!facts.screenInput) return false;
  if (facts.policy === 'batch') {
    // A batch that wakes the phone first is the agent's explicit wake; what follows is its own risk.
    const first = Array.isArray(args.steps)
      ? (args.steps[0] as { tool?: unknown; arguments?: { key?: unknown } } | undefined)
      : undefined;
    return !wakingKey(first?.tool, first?.arguments);
  }
  return !wakingKey(toolId, args);
}

/** True when a successful call of this tool may have woken the screen (the cached state is stale). */
export function mayWake(toolId: string, args: Record<string, unknown>): boolean {
  return wakingKey(toolId, args) || toolFacts(toolId).policy === 'batch';
}

export interface ScreenLockGuardOptions {
  clock: () => number;
  /** A state younger than this is used without reading the phone again. */
  freshMs: number;
}

export class ScreenLockGuard {
  private readonly states = new Map<string, ScreenLockState>();

  constructor(private readonly o: ScreenLockGuardOptions) {}

  /** Throws `device_locked` with its fix when the screen is off or locked. */
  async assertUsable(
    deviceId: string,
    shell: DeviceShell,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<void> {
    let state = this.states.get(deviceId);
    if (!state || this.o.clock() - state.at >= this.o.freshMs) {
      state = await this.read(shell, options);
      this.states.set(deviceId, state);
    }
    const asleep = state.wakefulness !== null && state.wakefulness !== 'Awake';
    if (asleep) {
      this.forget(deviceId);
      throw new BridgeError(
        'device_locked',
        `not run: the phone's screen is off (mWakefulness=${state.wakefulness}). Fix: ${SCREEN_OFF_WAKE_FIX}`,
        { fix: SCREEN_OFF_WAKE_FIX, screen: 'off' },
      );
    }
    if (state.keyguard?.showing) {
      this.forget(deviceId);
      const kind =
        state.keyguard.secure === true ? 'a lock screen that asks for a PIN, pattern or password' : 'a lock screen';
      throw new BridgeError('device_locked', `not run: the phone shows ${kind}. Fix: ${DEVICE_LOCKED_FIX}`, {
        fix: DEVICE_LOCKED_FIX,
        screen: 'locked',
        secure: state.keyguard.secure,
      });
    }
  }

  /** The next control call reads the screen state again. */
  forget(deviceId: string): void {
    this.states.delete(deviceId);
  }

  private async read(
    shell: DeviceShell,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<ScreenLockState> {
    const text = (argv: string[]): Promise<string | null> =>
      shell.run(argv, options).then(
        (out) => out.stdout.toString('utf8'),
        (error: unknown) => {
          if (options.signal.aborted) throw error;
          return null;
        },
      );
    const power = await text(['dumpsys', 'power']);
    const window = await text(['dumpsys', 'window', 'policy']);
    return {
      wakefulness: power === null ? null : parseWakefulness(power),
      keyguard: window === null ? null : parseKeyguard(window),
      at: this.o.clock(),
    };
  }
}
