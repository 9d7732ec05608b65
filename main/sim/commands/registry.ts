/**
 * Every command the simulated phone knows, by name, plus `cmd SERVICE …` which Android 14's
 * pm/am/input/settings/ime/wm scripts are thin wrappers of. A name with a path
 * (/system/bin/input) resolves when that path is where Android keeps it.
 */
import { amCommand, monkeyCommand } from './am';
import type { CommandHandler, CommandIo, PhoneContext } from './command-types';
import { dfCommand } from './df';
import { dumpsysCommand } from './dumpsys';
import { catCommand, lsCommand, mkdirCommand, rmCommand, sha256sumCommand, touchCommand } from './file-utils';
import { getpropCommand, wmCommand } from './getprop';
import { imeCommand, settingsCommand } from './ime';
import { inputCommand } from './input';
import { logcatCommand, pidofCommand, psCommand } from './logcat';
import { pmCommand } from './pm';
import { appProcessCommand, chmodCommand, killCommand } from './process-utils';
import { screencapCommand } from './screencap';
import { screenrecordCommand } from './screenrecord';
import { echoCommand, idCommand, pwdCommand, sleepCommand, testCommand, whoamiCommand } from './shell-builtins';
import { base64Command, grepCommand, headCommand, tailCommand, wcCommand } from './text-utils';
import { uiautomatorCommand } from './uiautomator';

const CMD_SERVICES: Record<string, CommandHandler> = {
  package: pmCommand,
  activity: amCommand,
  input: inputCommand,
  settings: settingsCommand,
  input_method: imeCommand,
  window: wmCommand,
};

function cmdCommand(io: CommandIo, phone: PhoneContext): number | Promise<number> {
  const service = io.argv[1];
  if (service === undefined || service === '-l') {
    io.out(
      `Currently running services:\n${Object.keys(CMD_SERVICES)
        .map((s) => `  ${s}\n`)
        .join('')}`,
    );
    return 0;
  }
  const handler = CMD_SERVICES[service];
  if (!handler) {
    io.err(`cmd: Can't find service: ${service}\n`);
    return 20;
  }
  return handler({ ...io, argv: [service, ...io.argv.slice(2)] }, phone);
}

export const COMMANDS: Readonly<Record<string, CommandHandler>> = {
  getprop: getpropCommand,
  wm: wmCommand,
  dumpsys: dumpsysCommand,
  df: dfCommand,
  pm: pmCommand,
  am: amCommand,
  monkey: monkeyCommand,
  ime: imeCommand,
  settings: settingsCommand,
  input: inputCommand,
  uiautomator: uiautomatorCommand,
  screencap: screencapCommand,
  screenrecord: screenrecordCommand,
  logcat: logcatCommand,
  pidof: pidofCommand,
  ps: psCommand,
  cmd: cmdCommand,
  cat: catCommand,
  sha256sum: sha256sumCommand,
  chmod: chmodCommand,
  kill: killCommand,
  app_process: appProcessCommand,
  ip: (io, phone) => {
    const { out, code } = phone.network.ip(io.argv.slice(1));
    (code === 0 ? io.out : io.err)(out);
    return code;
  },
  ls: lsCommand,
  rm: rmCommand,
  mkdir: mkdirCommand,
  touch: touchCommand,
  echo: echoCommand,
  true: () => 0,
  false: () => 1,
  ':': () => 0,
  sleep: sleepCommand,
  id: idCommand,
  whoami: whoamiCommand,
  pwd: pwdCommand,
  test: testCommand,
  '[': testCommand,
  grep: grepCommand,
  head: headCommand,
  tail: tailCommand,
  wc: wcCommand,
  base64: base64Command,
};

/** Names that exist as files in /system/bin (so `ls /system/bin` and absolute paths work). */
export const BINARY_NAMES = Object.keys(COMMANDS).filter((n) => /^[a-z]/.test(n));

/** The handler for argv[0], accepting /system/bin/NAME and /system/xbin/NAME. */
export function lookupCommand(name: string): CommandHandler | undefined {
  const m = /^\/system\/(?:x?bin)\/([^/]+)$/.exec(name);
  const key = m?.[1] ?? name;
  if (name.includes('/') && !m) return undefined;
  return Object.prototype.hasOwnProperty.call(COMMANDS, key) ? COMMANDS[key] : undefined;
}
