/**
 * System dialogs over the app (main/sim/QUIRKS.md "permission-dialog", "anr-dialog"): the
 * runtime permission prompt and "App isn't responding". Both take the screen until a person
 * (or an approved agent call) answers them; the bridge never answers them by itself. It says
 * so: android_device_status and android_ui_tree name the dialog, the phone check shows it, and
 * the safety policy holds a control action on a permission prompt for approval (answering it
 * can grant an app access to the camera, location, contacts …).
 *
 * Read from `dumpsys window` (the focused window) or from the UI tree (the dialog's views):
 *   - permission prompt: the focus is GrantPermissionsActivity of the permission controller —
 *     `com.google.android.permissioncontroller` (Pixel), `com.android.permissioncontroller`
 *     (Android 10+ elsewhere) or `com.android.packageinstaller` (Android 8–9); its views are
 *     `com.android.permissioncontroller:id/permission_…` (`com.android.packageinstaller:id/…` on 8–9);
 *   - ANR: the focus is `Window{… u0 Application Not Responding: PKG}`; its buttons are
 *     `android:id/aerr_close` / `android:id/aerr_wait`.
 */
import type { UiNode } from './ui-tree';

export type SystemDialogKind = 'permission_prompt' | 'app_not_responding';

export interface SystemDialog {
  kind: SystemDialogKind;
  /** The app the dialog is about, when known (ANR). */
  package: string | null;
  /** In words, for results and the phone check. */
  description: string;
}

export const PERMISSION_CONTROLLER_PACKAGES: ReadonlySet<string> = new Set([
  'com.google.android.permissioncontroller',
  'com.android.permissioncontroller',
  'com.android.packageinstaller',
]);

/** Whether the window in front is the runtime permission prompt. */
export function isPermissionPrompt(pkg: string | null, activity: string | null): boolean {
  return (
    pkg !== null &&
    PERMISSION_CONTROLLER_PACKAGES.has(pkg) &&
    (activity === null || /GrantPermissionsActivity$/.test(activity))
  );
}

const anr = (pkg: string | null): SystemDialog => ({
  kind: 'app_not_responding',
  package: pkg,
  description: `"App isn't responding"${pkg ? ` for ${pkg}` : ''} (Close app / Wait)`,
});

const permission = (message: string | null): SystemDialog => ({
  kind: 'permission_prompt',
  package: null,
  description: message
    ? `a permission prompt: "${message.slice(0, 160)}"`
    : 'a permission prompt (GrantPermissionsActivity)',
});

/** The system dialog `dumpsys window` shows in focus (first focused window of any display), or null. */
export function parseSystemDialog(windowDump: string): SystemDialog | null {
  for (const match of windowDump.matchAll(/mCurrentFocus=Window\{\S+ u\d+ ([^}\n]*)\}/g)) {
    const title = match[1] ?? '';
    const notResponding = /^Application (?:Not Responding|Error): ([\w.]+)/.exec(title);
    if (notResponding) return anr(notResponding[1] ?? null);
    const component = /^([\w.]+)\/([\w.$]+)$/.exec(title);
    if (component && isPermissionPrompt(component[1] ?? null, component[2] ?? null)) return permission(null);
    return null;
  }
  return null;
}

/** The system dialog a UI tree shows (its views' resource ids), or null. */
export function systemDialogFromTree(nodes: readonly UiNode[]): SystemDialog | null {
  if (nodes.some((n) => n.resourceId === 'android:id/aerr_close' || n.resourceId === 'android:id/aerr_wait')) {
    const title = nodes.find((n) => n.resourceId === 'android:id/alertTitle')?.text ?? '';
    const label = /^(.+) isn(?:'|’)t responding$/.exec(title)?.[1];
    return { ...anr(null), description: `"App isn't responding"${label ? ` for ${label}` : ''} (Close app / Wait)` };
  }
  const prompt = nodes.some((n) =>
    /^com\.android\.(?:permissioncontroller|packageinstaller):id\/permission_(?:allow|deny)/.test(n.resourceId),
  );
  if (prompt) return permission(nodes.find((n) => /:id\/permission_message$/.test(n.resourceId))?.text ?? null);
  return null;
}

/** The note results carry while a dialog is up. */
export function systemDialogNote(dialog: SystemDialog): string {
  return `a system dialog is over the app: ${dialog.description}. It stays until answered; the bridge never answers it by itself${dialog.kind === 'permission_prompt' ? ' (answering a permission prompt asks for approval first)' : ''}.`;
}
