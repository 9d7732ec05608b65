/**
 * The phone's clipboard (ClipboardService): one primary clip of plain text with a label.
 * Anyone may set it. Who may read it follows AOSP ClipboardService.clipboardAccessAllowed:
 * before Android 10 (API 29) any app; from Android 10 only the app in front (its window has
 * focus) and the default keyboard, and every other app is told there is no clip
 * (hasPrimaryClip() false, getPrimaryClip() null), which appium-uiautomator2-server's
 * ClipboardHelper.getTextData answers as "" (main/sim/QUIRKS.md, "the clipboard").
 */

export interface ClipboardAccess {
  sdk: number;
  /** The package whose window has focus. */
  foregroundPackage(): string;
  /** The package of the selected keyboard (Settings.Secure default_input_method), if any. */
  keyboardPackage(): string | undefined;
}

/** What tests see of the clipboard and how they put text on it as an app's copy would. */
export interface ClipboardControl {
  /** The primary clip's text, whoever may read it; undefined when nothing was copied. */
  text(): string | undefined;
  /** The primary clip's label. */
  label(): string | undefined;
  /** Copies text as an app would (ClipboardManager.setPrimaryClip). */
  set(text: string, label?: string): void;
}

/** Android 10: only the focused app and the keyboard read the clipboard. */
export const CLIPBOARD_FOCUS_RULE_SDK = 29;

export class PhoneClipboard implements ClipboardControl {
  private clip: { label: string; text: string } | undefined;

  constructor(private readonly access: ClipboardAccess) {}

  text(): string | undefined {
    return this.clip?.text;
  }

  label(): string | undefined {
    return this.clip?.label;
  }

  set(text: string, label = 'text'): void {
    this.clip = { label, text };
  }

  /** The primary clip's text as app `pkg` reads it, or undefined (no clip, or Android 10+ does not let it read). */
  readAs(pkg: string): string | undefined {
    if (!this.clip) return undefined;
    if (
      this.access.sdk >= CLIPBOARD_FOCUS_RULE_SDK &&
      pkg !== this.access.foregroundPackage() &&
      pkg !== this.access.keyboardPackage()
    )
      return undefined;
    return this.clip.text;
  }
}
