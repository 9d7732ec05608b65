/**
 * What adb's own state word for a phone means to the person at the computer. adb lists a
 * phone it sees but cannot use with a state other than `device`; two of them need the person:
 *   - `unauthorized`: the phone has not accepted this computer's key;
 *   - `no permissions (…); see [URL]` (Linux): the USB device node is not readable by the user
 *     running adb. adb 1.0.41 prints, from diagnose_usb.cpp,
 *     `no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]`
 *     or `no permissions (user NAME is not in the plugdev group); see […]`.
 * Reported publicly in M0Rf30/android-udev-rules#345 and EFForg/rayhunter#162 (main/sim/QUIRKS.md).
 */

export const USB_PERMISSION_FIX =
  'Linux cannot let adb open this phone over USB: add the udev rule for Android phones and put your user in the plugdev group (see README "What to install first"), then unplug and replug the phone';

export const UNAUTHORIZED_FIX = "Unlock the phone and tap Allow on its 'Allow USB debugging?' prompt";

export interface AdbStateReason {
  code: 'usb_permission' | 'device_unauthorized';
  reason: string;
}

/** The reason a phone in adb state `raw` cannot be used, when the person can fix it; else null. */
export function reasonForAdbState(raw: string): AdbStateReason | null {
  if (raw === 'unauthorized') return { code: 'device_unauthorized', reason: UNAUTHORIZED_FIX };
  if (/^no permissions\b/.test(raw)) return { code: 'usb_permission', reason: USB_PERMISSION_FIX };
  return null;
}
