/**
 * What scrcpy-server prints (its `[server] LEVEL: …` lines and Java stack traces on the adb
 * shell that started it) turned into the bridge's stable error codes, each with a fix in
 * words. The texts are the ones real phones give (sources in main/sim/QUIRKS.md, "scrcpy").
 *
 * Everything the server logs goes to one stream in the order it happened on the phone, so a
 * refusal logged while handling a message is always read before the barrier line of a later
 * message (scrcpy-input-session.ts).
 */
import { BridgeError, type ErrorCode } from '../errors';

export type ScrcpyFailureKind =
  'inject_denied' | 'android_too_old' | 'clipboard_refused' | 'version_mismatch' | 'jar_unreadable' | 'server_crashed';

export interface ScrcpyFailure {
  kind: ScrcpyFailureKind;
  code: ErrorCode;
  /** The phone's own line that shows it. */
  line: string;
  fix: string;
}

const RULES: ReadonlyArray<{ kind: ScrcpyFailureKind; code: ErrorCode; test: RegExp; fix: string }> = [
  {
    // MIUI/HyperOS: InputManager refuses injection from the shell until the person allows it.
    kind: 'inject_denied',
    code: 'input_blocked',
    test: /INJECT_EVENTS permission|Injecting (input events|to another application) requires/,
    fix: 'On this phone (Xiaomi, Redmi, POCO), open Settings → Additional settings → Developer options and turn on “USB debugging (Security settings)”, then reboot the phone. Until then no program over adb can tap or type on it.',
  },
  {
    // app_process of Android 4.x cannot load a dex built for API 21+; scrcpy needs Android 5.0.
    kind: 'android_too_old',
    code: 'tool_unavailable',
    test: /UnsupportedClassVersionError|java\.lang\.VerifyError|Unable to (?:open|load) dex|Failed to find class.*Server|requires API/,
    fix: 'scrcpy-server needs Android 5.0 or newer; on this phone the bridge taps and types with the stock `input` command.',
  },
  {
    // Some Android 10 builds (Meizu) refuse the shell's clipboard calls (Genymobile/scrcpy#6224).
    kind: 'clipboard_refused',
    code: 'clipboard_unreadable',
    test: /does not own package com\.android\.shell|SecurityException.*[Cc]lipboard/,
    fix: 'This phone refuses the clipboard to programs over adb; the bridge types text another way (ADB Keyboard, or `input text` for ASCII).',
  },
  {
    kind: 'version_mismatch',
    code: 'tool_unavailable',
    test: /The server version \(.*\) does not match the client/,
    fix: 'The scrcpy-server copy on the phone is another version than the bridge’s; the bridge pushes its own again on the next start.',
  },
  {
    // ART's words when the class path is not a readable dex/jar (a tampered or truncated copy).
    kind: 'jar_unreadable',
    code: 'command_failed',
    test: /ClassNotFoundException|Didn't find class|zip file|not a valid zip/i,
    fix: 'The phone could not load the bridge’s scrcpy-server; the bridge replaces its copy before the next start.',
  },
  {
    kind: 'server_crashed',
    code: 'command_failed',
    test: /Exception on thread|Exception in thread|FATAL|Aborted|Segmentation/,
    fix: 'scrcpy-server stopped on this phone; the bridge falls back to the stock `input` command for this phone.',
  },
];

/** The first known failure in these output lines, or undefined. */
export function classifyScrcpyOutput(text: string): ScrcpyFailure | undefined {
  const lines = text.replaceAll('\r\n', '\n').split('\n');
  for (const rule of RULES) {
    const line = lines.find((l) => rule.test.test(l));
    if (line !== undefined) return { kind: rule.kind, code: rule.code, line: line.trim().slice(0, 300), fix: rule.fix };
  }
  return undefined;
}

/** A failure as the BridgeError the lane sees (details.fix is read by toWireError). */
export function failureError(failure: ScrcpyFailure, what: string): BridgeError {
  return new BridgeError(failure.code, `${what}: ${failure.line}. ${failure.fix}`, {
    fix: failure.fix,
    scrcpyFailure: failure.kind,
  });
}
