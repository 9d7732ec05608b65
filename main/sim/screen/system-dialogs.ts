/**
 * System dialogs that appear over the app in front (QUIRKS.md "permission-dialog",
 * "anr-dialog"), with the window names and resource ids real phones use:
 *   - the runtime permission prompt: GrantPermissionsActivity of the permission controller
 *     (`com.google.android.permissioncontroller` on Pixels, `com.android.permissioncontroller`
 *     elsewhere; its views keep the `com.android.permissioncontroller:id/` names), "Allow
 *     Notes to take pictures and record video?" with While using the app / Only this time /
 *     Don't allow (Android 11+ wording);
 *   - "App isn't responding": a window titled `Application Not Responding: <pkg>` owned by
 *     `android`, "Notes isn't responding" with Close app / Wait (`android:id/aerr_close`,
 *     `android:id/aerr_wait`).
 * A tap on a button answers the dialog; nothing answers it by itself.
 */
import type { Layout } from './layout';
import { rect, uiNode, type UiNode } from './ui-node';

export type SystemDialogKind = 'permission' | 'anr';

export const PERMISSION_CONTROLLER_PKG = 'com.google.android.permissioncontroller';
export const GRANT_PERMISSIONS_ACTIVITY = 'com.android.permissioncontroller.permission.ui.GrantPermissionsActivity';

/** What a tap on a dialog button does (the InputDispatcher hands it to the ScreenMachine). */
export type DialogAnswer = 'allow-foreground' | 'allow-once' | 'deny' | 'anr-close' | 'anr-wait';
export const DIALOG_ACTION_PREFIX = 'system-dialog:';

export interface SystemDialogWindow {
  pkg: string;
  activity: string;
  screen: string;
  /** The window's title as `dumpsys window` prints it in `Window{… u0 TITLE}`. */
  title: string;
  /** The app whose record stays focused (mFocusedApp) under a dialog that is no activity. */
  focusedApp: { pkg: string; activity: string } | null;
  root: UiNode;
}

function button(
  id: string,
  text: string,
  answer: DialogAnswer,
  bounds: ReturnType<typeof rect>,
  fontSize: number,
): UiNode {
  return uiNode({
    className: 'android.widget.Button',
    resourceId: id,
    text,
    bounds,
    clickable: true,
    focusable: true,
    action: `${DIALOG_ACTION_PREFIX}${answer}`,
    paint: { fill: '#e8eaf6', radius: 24, label: text, textColor: '#1a237e', fontSize, align: 'center' },
  });
}

/** The dialog window over `app` (its package, label and activity in front). */
export function systemDialogWindow(
  kind: SystemDialogKind,
  app: { pkg: string; label: string; activity: string },
  layout: Layout,
): SystemDialogWindow {
  const { width, height } = layout;
  const margin = layout.dp(24);
  const rowH = layout.dp(48);
  const font = layout.dp(16);
  const rows = kind === 'permission' ? 3 : 2;
  const cardH = layout.dp(120) + rows * (rowH + layout.dp(8));
  const top = Math.round((height - cardH) / 2);
  const left = margin;
  const right = width - margin;
  const at = (i: number): ReturnType<typeof rect> =>
    rect(
      left + margin,
      top + layout.dp(112) + i * (rowH + layout.dp(8)),
      right - margin,
      top + layout.dp(112) + i * (rowH + layout.dp(8)) + rowH,
    );
  const message = (id: string, text: string): UiNode =>
    uiNode({
      className: 'android.widget.TextView',
      resourceId: id,
      text,
      bounds: rect(left + margin, top + margin, right - margin, top + layout.dp(96)),
      paint: { label: text, textColor: '#212121', fontSize: font + layout.dp(2), multiline: true },
    });
  const card = (id: string, children: UiNode[]): UiNode =>
    uiNode({
      className: 'android.widget.LinearLayout',
      resourceId: id,
      bounds: rect(left, top, right, top + cardH),
      paint: { fill: '#ffffff', radius: 28 },
      children,
    });
  const scrim = (children: UiNode[]): UiNode =>
    uiNode({
      className: 'android.widget.FrameLayout',
      bounds: rect(0, 0, width, height),
      paint: { fill: '#5a5a5a' },
      children,
    });

  if (kind === 'permission') {
    const text = `Allow ${app.label} to take pictures and record video?`;
    return {
      pkg: PERMISSION_CONTROLLER_PKG,
      activity: GRANT_PERMISSIONS_ACTIVITY,
      screen: 'permission-dialog',
      title: `${PERMISSION_CONTROLLER_PKG}/${GRANT_PERMISSIONS_ACTIVITY}`,
      focusedApp: null,
      root: scrim([
        card('com.android.permissioncontroller:id/grant_dialog', [
          message('com.android.permissioncontroller:id/permission_message', text),
          button(
            'com.android.permissioncontroller:id/permission_allow_foreground_only_button',
            'While using the app',
            'allow-foreground',
            at(0),
            font,
          ),
          button(
            'com.android.permissioncontroller:id/permission_allow_one_time_button',
            'Only this time',
            'allow-once',
            at(1),
            font,
          ),
          button('com.android.permissioncontroller:id/permission_deny_button', "Don't allow", 'deny', at(2), font),
        ]),
      ]),
    };
  }
  return {
    pkg: 'android',
    activity: '',
    screen: 'anr-dialog',
    title: `Application Not Responding: ${app.pkg}`,
    focusedApp: { pkg: app.pkg, activity: app.activity },
    root: scrim([
      card('android:id/parentPanel', [
        message('android:id/alertTitle', `${app.label} isn't responding`),
        button('android:id/aerr_close', 'Close app', 'anr-close', at(0), font),
        button('android:id/aerr_wait', 'Wait', 'anr-wait', at(1), font),
      ]),
    ]),
  };
}
