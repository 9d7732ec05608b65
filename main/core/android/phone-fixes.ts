/**
 * The ways phones people own refuse what the bridge asks, each with its stable error code and
 * the one-line fix in words a person can follow. The android/ operations throw these (the fix
 * ends the message and sits in `details.fix`); the phone check shows the same words. Where
 * each case comes from: main/sim/QUIRKS.md.
 */
import { BridgeError, type ErrorCode } from '../errors';

export const PHONE_PROBLEMS = {
  /** MIUI/HyperOS: `input` throws SecurityException … INJECT_EVENTS. */
  inject_events_denied: {
    code: 'input_blocked',
    fix: 'turn on USB debugging (Security settings) in Developer options (Xiaomi/Redmi/POCO), then try again',
  },
  /** INSTALL_FAILED_USER_RESTRICTED: "Install via USB" is off, or its prompt was refused. */
  install_user_restricted: {
    code: 'install_blocked',
    fix: 'turn on Install via USB in Developer options (and accept its prompt on the phone), then try again',
  },
  /** INSTALL_FAILED_VERSION_DOWNGRADE: a newer version is installed. */
  install_version_downgrade: { code: 'install_blocked', fix: 'uninstall the newer version first, then try again' },
  /** INSTALL_FAILED_INSUFFICIENT_STORAGE. */
  install_insufficient_storage: { code: 'install_blocked', fix: 'free storage on the phone, then try again' },
  /** INSTALL_FAILED_VERIFICATION_FAILURE: the verifier prompt ("Verify apps over USB") was not answered in time. */
  install_verification: {
    code: 'install_blocked',
    fix: 'accept the prompt on the phone (or turn off Verify apps over USB in Developer options), then try again',
  },
  /** `pm install` gave no answer before the deadline: a prompt is probably waiting on the phone. */
  install_no_answer: {
    code: 'install_blocked',
    fix: 'accept the prompt on the phone, then check android_list_apps before trying again',
  },
  /**
   * `pm grant|revoke`: `Neither user 2000 nor current process has
   * android.permission.GRANT_RUNTIME_PERMISSIONS` (Xiaomi without "USB debugging (Security settings)").
   */
  permission_change_denied: {
    code: 'permission_denied',
    fix: 'turn on USB debugging (Security settings) in Developer options (Xiaomi/Redmi/POCO), then try again',
  },
  /** "could not get idle state": the screen never settles. */
  ui_not_idle: {
    code: 'screen_unreadable',
    fix: 'stop the animation or video on the screen (or turn animations off in Developer options), then try again; android_screenshot still works',
  },
  /** "null root node returned by UiTestAutomationBridge": no window to read. */
  ui_no_root: {
    code: 'screen_unreadable',
    fix: 'wake and unlock the phone, wait for the screen to settle, then try again',
  },
  /** An empty hierarchy: nothing on screen is exposed to accessibility. */
  ui_empty: {
    code: 'screen_unreadable',
    fix: 'try again once the app has drawn; games and video expose no elements, so use android_screenshot and tap by coordinates',
  },
  /** The dump was reported written but could not be read back. */
  ui_unreadable: { code: 'screen_unreadable', fix: 'try again; if it keeps failing, restart the phone' },
} as const satisfies Record<string, { code: ErrorCode; fix: string }>;

export type PhoneProblem = keyof typeof PHONE_PROBLEMS;

/** A BridgeError for a phone problem: `what happened. Fix: …`, with `details.problem` and `details.fix`. */
export function phoneProblem(problem: PhoneProblem, what: string, details?: Record<string, unknown>): BridgeError {
  const { code, fix } = PHONE_PROBLEMS[problem];
  return new BridgeError(code, `${what}. Fix: ${fix}`, { ...details, problem, fix });
}
