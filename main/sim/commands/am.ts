/**
 * `am` (Android 14's `cmd activity`): start / start-activity (explicit components, VIEW
 * URLs to the browser, HOME), force-stop, broadcast (ADB Keyboard's receiver), kill, and
 * instrument (the resident helper: helper/helper-runtime.ts).
 * Messages follow ActivityManagerShellCommand: "Starting: Intent { … }" on stdout, warnings
 * and errors ("Error type 3", "does not exist.") on stderr, exit 1 on failure.
 */
import { BROWSER_ACTIVITY, BROWSER_PKG } from '../screen/app-browser';
import { LAUNCHER_ACTIVITY, LAUNCHER_PKG } from '../screen/app-launcher';
import { STORE_ACTIVITY, STORE_PKG } from '../screen/app-store';
import type { StartResult } from '../screen/screen-machine';
import { SNAPSHOT_HELPER_PKG, SimSnapshotHelper } from '../helper/snapshot-instrumentation';
import { deliverToAdbKeyboard } from './adb-keyboard';
import { stockDumpXml } from './uiautomator';
import type { CommandIo, PhoneContext } from './command-types';
import { FLAG_RECEIVER_FROM_SHELL, IntentArgsError, formatIntent, parseIntentArgs, type ParsedIntent } from './intent';

const FLAG_ACTIVITY_NEW_TASK = 0x10000000;

function resolve(intent: ParsedIntent, phone: PhoneContext): StartResult | 'unresolved' {
  if (intent.component) {
    const { pkg, cls } = intent.component;
    return phone.screen.startActivity(pkg, cls, intent.data ? { url: intent.data } : {});
  }
  const action = intent.action ?? '';
  if (action === 'android.intent.action.VIEW' && intent.data && /^https?:/i.test(intent.data)) {
    if (intent.pkg !== undefined && intent.pkg !== BROWSER_PKG) return 'unresolved';
    return phone.screen.startActivity(BROWSER_PKG, BROWSER_ACTIVITY, { url: intent.data });
  }
  if (action === 'android.intent.action.VIEW' && intent.data && /^market:/i.test(intent.data)) {
    return phone.screen.startActivity(STORE_PKG, STORE_ACTIVITY, { url: intent.data });
  }
  if (intent.categories.includes('android.intent.category.HOME')) {
    return phone.screen.startActivity(LAUNCHER_PKG, LAUNCHER_ACTIVITY, {});
  }
  if (
    intent.pkg !== undefined &&
    (action === 'android.intent.action.MAIN' || action === '') &&
    phone.screen.launchApp(intent.pkg) !== 'no-launcher-activity'
  ) {
    return 'started';
  }
  return 'unresolved';
}

function start(io: CommandIo, phone: PhoneContext, args: readonly string[]): number {
  const intent = parseIntentArgs(args);
  const wait = args.includes('-W');
  io.out(`Starting: ${formatIntent(intent)}\n`);
  const result = resolve(intent, phone);
  const report = wait ? io.out : io.err;
  switch (result) {
    case 'class-not-found':
    case 'no-launcher-activity': {
      const c = intent.component;
      report(`Error type 3\nError: Activity class {${c ? `${c.pkg}/${c.cls}` : (intent.pkg ?? '')}} does not exist.\n`);
      return 1;
    }
    case 'unresolved':
      report(
        `Error: Activity not started, unable to resolve ${formatIntent({ ...intent, flags: intent.flags | FLAG_ACTIVITY_NEW_TASK })}\n`,
      );
      return 1;
    case 'delivered-to-top':
      report('Warning: Activity not started, intent has been delivered to currently running top-most instance.\n');
      break;
    case 'task-to-front':
      report('Warning: Activity not started, its current task has been brought to the front\n');
      break;
    case 'started':
      break;
  }
  if (wait) {
    const w = phone.screen.window();
    const cold = result === 'started';
    io.out(
      `Status: ok\nLaunchState: ${cold ? 'COLD' : 'HOT'}\nActivity: ${w.pkg}/${w.activity.startsWith(`${w.pkg}.`) ? w.activity.slice(w.pkg.length) : w.activity}\n` +
        `TotalTime: ${cold ? 412 : 88}\nWaitTime: ${cold ? 418 : 93}\nComplete\n`,
    );
  }
  return 0;
}

function broadcast(io: CommandIo, phone: PhoneContext, args: readonly string[]): number {
  const intent = parseIntentArgs(args);
  intent.flags |= FLAG_RECEIVER_FROM_SHELL;
  io.out(`Broadcasting: ${formatIntent(intent)}\n`);
  deliverToAdbKeyboard(intent, phone);
  io.out('Broadcast completed: result=0\n');
  return 0;
}

/** The component argument of `am instrument` (the last word that is no option or option value). */
function instrumentComponent(args: readonly string[]): string | undefined {
  let component: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-e') i += 2;
    else if (a === '--user' || a === '-p' || a === '--abi' || a === '--instrument-sdk-sandbox') i++;
    else if (!a.startsWith('-')) component = a;
  }
  return component;
}

export function amCommand(io: CommandIo, phone: PhoneContext): number | Promise<number> {
  const [, sub, ...args] = io.argv;
  try {
    switch (sub) {
      case 'start':
      case 'start-activity':
        return start(io, phone, args);
      case 'broadcast':
        return broadcast(io, phone, args);
      case 'instrument': {
        // Runs in Am.java (app_process), not `cmd activity`; the resident helper lives here,
        // and agent-device's snapshot helper when its package is installed.
        const component = instrumentComponent(args);
        if (component !== undefined && SimSnapshotHelper.handles(component) && phone.packages.has(SNAPSHOT_HELPER_PKG))
          return phone.snapshotHelper.instrument(io, phone, args, () => stockDumpXml(phone));
        return phone.helper.instrument(io, args);
      }
      case 'get-current-user':
        // The phone's own user; a work profile (pm.ts) is never the foreground user.
        io.out('0\n');
        return 0;
      case 'force-stop':
      case 'kill': {
        const pkg = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--user').pop();
        if (pkg === undefined) {
          io.err(
            `\nException occurred while executing '${sub}':\njava.lang.IllegalArgumentException: Argument expected after "${sub}"\n`,
          );
          return 255;
        }
        if (sub === 'force-stop') {
          phone.screen.forceStop(pkg);
          phone.helper.packageStopped(pkg);
          phone.snapshotHelper.packageStopped(pkg);
        }
        return 0;
      }
      case undefined:
      case 'help':
        io.out(
          'Activity manager (activity) commands:\n  help\n      Print this help text.\n  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>] <INTENT>\n      Start an Activity.\n  force-stop [--user <USER_ID> | all | current] <PACKAGE>\n      Completely stop the given application package.\n  broadcast [--user <USER_ID> | all | current] <INTENT>\n      Send a broadcast Intent.\n',
        );
        return 0;
      default:
        io.err(`Unknown command: ${sub}\n`);
        return 255;
    }
  } catch (error) {
    if (error instanceof IntentArgsError) {
      io.err(
        `\nException occurred while executing '${sub ?? ''}':\njava.lang.IllegalArgumentException: ${error.message}\n\tat android.content.Intent.parseCommandArgs(Intent.java:12345)\n`,
      );
      return 255;
    }
    throw error;
  }
}

/** `monkey -p PKG -c android.intent.category.LAUNCHER 1`: launches PKG as its icon would. */
export function monkeyCommand(io: CommandIo, phone: PhoneContext): number {
  const args = io.argv.slice(1);
  let out = args.map((a) => `  bash arg: ${a}\n`).join('');
  out += `args: [${args.join(', ')}]\n${args.map((a) => ` arg: "${a}"\n`).join('')}`;
  const packages: string[] = [];
  const data: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if ((a === '-p' || a === '-c') && args[i + 1] !== undefined) {
      const value = args[++i] ?? '';
      data.push(value);
      if (a === '-p') packages.push(value);
    } else if (a === '--throttle' || a === '-s' || (a?.startsWith('--pct-') ?? false)) i++;
  }
  out += data.map((d) => `data="${d}"\n`).join('');
  const target = packages.find((p) => phone.packages.get(p)?.launchable);
  if (!target) {
    io.out(`${out}** No activities found to run, monkey aborted.\n`);
    return 252;
  }
  phone.screen.launchApp(target);
  io.out(`${out}Events injected: 1\n## Network stats: elapsed time=14ms (0ms mobile, 0ms wifi, 14ms not connected)\n`);
  return 0;
}
