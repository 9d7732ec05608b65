/**
 * Where `dumpsys window` puts the focus and the lock screen, by Android version (the phone's
 * `sdk`), so a simulated Android 8–9 phone prints what a real one prints:
 *   - Android 8–9 (API 26–28): `mCurrentFocus=` and `mFocusedApp=AppWindowToken{… token=Token{…
 *     ActivityRecord{…}}}` end the WINDOWS section (WindowManagerService.dumpWindowsNoHeaderLocked),
 *     followed by `mInputMethodTarget=`; the display section has no focus lines. The policy
 *     section prints `mShowingLockscreen= … mDreamingLockscreen=` (PhoneWindowManager.dump) and,
 *     on 8.x, `mUnrestrictedScreen=(0,0) WxH`.
 *   - Android 10 (API 29): the focus lines moved into each display's block (DisplayContent.dump),
 *     so only `dumpsys window displays` (or all of `dumpsys window`) has them — appium-adb's
 *     dumpWindows switches from `windows` to `displays` at API 29 for this reason; `mFocusedApp`
 *     is still an AppWindowToken; `mInputMethodTarget in display# 0` ends the windows section.
 *   - Android 11+ (API 30+): `mFocusedApp=ActivityRecord{…}`; 12+ (API 31+) end the windows
 *     section with `imeLayeringTarget` / `imeInputTarget` / `imeControlTarget in display# 0`.
 * Sources: main/sim/QUIRKS.md ("Android 8–9 and 13+").
 */
import type { PhoneContext } from './command-types';
import { objectId } from './object-id';

export interface FocusTokens {
  /** `Window{hash u0 pkg/activity}` */
  windowToken: string;
  /** `ActivityRecord{hash u0 pkg/.Activity tN}` */
  record: string;
}

/** Android 10 and older wrap the ActivityRecord in an AppWindowToken. */
function focusedApp(phone: PhoneContext, f: FocusTokens): string {
  if (phone.info.sdk >= 30) return f.record;
  const w = phone.screen.window();
  const full = `${w.pkg}/${w.activity}`;
  return `AppWindowToken{${objectId(`a:${full}:${w.taskId}`)} token=Token{${objectId(`k:${full}:${w.taskId}`)} ${f.record}}}`;
}

/** The two focus lines in this Android version's format. */
export function focusLines(phone: PhoneContext, f: FocusTokens): string[] {
  return [`  mCurrentFocus=${f.windowToken}`, `  mFocusedApp=${focusedApp(phone, f)}`];
}

/** What ends the WINDOWS section after the window list, by version. */
export function windowsSectionTail(phone: PhoneContext, f: FocusTokens): string[] {
  const sdk = phone.info.sdk;
  if (sdk <= 28)
    return [
      '  mHasPermanentDpad=false',
      ...focusLines(phone, f),
      `  mInputMethodTarget=${f.windowToken}`,
      '  mInTouchMode=true',
      '',
    ];
  if (sdk <= 30)
    return [
      '  mHasPermanentDpad=false',
      '  mTopFocusedDisplayId=0',
      `  mInputMethodTarget in display# 0 ${f.windowToken}`,
      '  mInTouchMode=true',
      '',
    ];
  return [
    '  mHasPermanentDpad=false',
    '  mTopFocusedDisplayId=0',
    `  imeLayeringTarget in display# 0 ${f.windowToken}`,
    `  imeInputTarget in display# 0 ${f.windowToken}`,
    `  imeControlTarget in display# 0 ${f.windowToken}`,
    '  mInTouchMode=true',
    '',
  ];
}

/** The focus lines the DISPLAY section carries (Android 10+), or none (8–9). */
export function displaySectionFocus(phone: PhoneContext, f: FocusTokens): string {
  if (phone.info.sdk <= 28) return '';
  return `${focusLines(phone, f).join('\n')}\n\n`;
}

/**
 * `dumpsys window policy` as Android 8–9 print it: the keyguard as one line of flags
 * (mShowingLockscreen / mDreamingLockscreen; no `secure`), and on 8.x the unrestricted screen.
 */
export function legacyWindowPolicy(phone: PhoneContext): string {
  const awake = phone.screen.awake;
  const showing = phone.quirks.has('locked-swipe') || phone.quirks.has('locked-pin');
  const { width, height } = phone.info;
  return [
    'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
    '    mSafeMode=false mSystemReady=true mSystemBooted=true',
    '    mLidState=-1 mLidOpenRotation=-1 mCameraLensCoverState=-1 mHdmiPlugged=false',
    ...(phone.info.sdk <= 27
      ? [`    mUnrestrictedScreen=(0,0) ${width}x${height}`, `    mRestrictedScreen=(0,0) ${width}x${height}`]
      : []),
    `    mScreenOnEarly=${awake} mScreenOnFully=${awake}`,
    '    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true',
    `    mShowingLockscreen=${showing} mShowingDream=false mDreamingLockscreen=${showing} mDreamingSleepToken=null`,
    `    mAwake=${awake}`,
    '',
  ].join('\n');
}
