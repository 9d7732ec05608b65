/**
 * Intents as `am` builds and prints them: the option parser of Intent.parseCommandArgs
 * (-a -d -t -c -n -p -f, --es/--ei/--ez/… extras, am's own -W/-S/--user…), component
 * names with `.Relative` classes, and Intent.toString() with Uri.toSafeString() for data
 * (an https URL prints as `https://host/...`, as on a real phone).
 */

export interface ParsedIntent {
  action?: string;
  data?: string;
  type?: string;
  categories: string[];
  component?: { pkg: string; cls: string };
  pkg?: string;
  flags: number;
  extras: Map<string, string | number | boolean>;
}

export class IntentArgsError extends Error {}

export const FLAG_RECEIVER_FROM_SHELL = 0x00400000;

/** "pkg/.Act" or "pkg/full.Class" → package and fully qualified class. */
export function parseComponent(text: string): { pkg: string; cls: string } | undefined {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) return undefined;
  const pkg = text.slice(0, slash);
  const cls = text.slice(slash + 1);
  return { pkg, cls: cls.startsWith('.') ? pkg + cls : cls };
}

/** ComponentName.flattenToShortString. */
export function shortComponent(pkg: string, cls: string): string {
  return cls.startsWith(`${pkg}.`) ? `${pkg}/${cls.slice(pkg.length)}` : `${pkg}/${cls}`;
}

/** android.net.Uri.toSafeString: hides what could be private (paths, numbers, addresses). */
export function uriSafeString(uri: string): string {
  const colon = uri.indexOf(':');
  const scheme = colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(uri.slice(0, colon)) ? uri.slice(0, colon) : undefined;
  let ssp = scheme ? uri.slice(colon + 1) : uri;
  const hash = ssp.indexOf('#');
  if (hash >= 0) ssp = ssp.slice(0, hash);
  if (scheme) {
    const lower = scheme.toLowerCase();
    if (['tel', 'sip', 'sms', 'smsto', 'mailto', 'nfc'].includes(lower)) {
      return `${scheme}:${[...ssp].map((c) => (c === '-' || c === '@' || c === '.' ? c : 'x')).join('')}`;
    }
    if (['http', 'https', 'ftp', 'rtsp'].includes(lower)) {
      const authority = /^\/\/([^/?#]*)/.exec(ssp)?.[1] ?? '';
      const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
      const portMatch = /:(\d+)$/.exec(hostPort);
      const host = portMatch ? hostPort.slice(0, -portMatch[0].length) : hostPort;
      return `${scheme}://${host}${portMatch ? `:${portMatch[1]}` : ''}/...`;
    }
  }
  return scheme ? `${scheme}:${ssp}` : ssp;
}

/** Intent.toString() (secure): `Intent { act=… cat=[…] dat=… typ=… flg=0x… pkg=… cmp=… (has extras) }`. */
export function formatIntent(intent: ParsedIntent): string {
  const parts: string[] = [];
  if (intent.action !== undefined) parts.push(`act=${intent.action}`);
  if (intent.categories.length > 0) parts.push(`cat=[${intent.categories.join(',')}]`);
  if (intent.data !== undefined) parts.push(`dat=${uriSafeString(intent.data)}`);
  if (intent.type !== undefined) parts.push(`typ=${intent.type}`);
  if (intent.flags !== 0) parts.push(`flg=0x${(intent.flags >>> 0).toString(16)}`);
  if (intent.pkg !== undefined) parts.push(`pkg=${intent.pkg}`);
  if (intent.component) parts.push(`cmp=${shortComponent(intent.component.pkg, intent.component.cls)}`);
  if (intent.extras.size > 0) parts.push('(has extras)');
  return `Intent { ${parts.join(' ')} }`;
}

const EXTRA_KINDS: Record<string, 'string' | 'int' | 'bool' | 'null' | 'skip'> = {
  '-e': 'string',
  '--es': 'string',
  '--esn': 'null',
  '--ez': 'bool',
  '--ei': 'int',
  '--el': 'int',
  '--ef': 'int',
  '--ed': 'int',
  '--eu': 'string',
  '--ecn': 'string',
  '--eia': 'string',
  '--eial': 'string',
  '--ela': 'string',
  '--elal': 'string',
  '--efa': 'string',
  '--efal': 'string',
  '--eda': 'string',
  '--esa': 'string',
  '--esal': 'string',
};

/** am options that take a value and do not shape the intent. */
const AM_VALUE_OPTIONS = new Set([
  '--user',
  '-R',
  '-P',
  '--start-profiler',
  '--sampling',
  '--attach-agent',
  '--attach-agent-bind',
  '--display',
  '--windowingMode',
  '--activityType',
  '--task',
  '--receiver-permission',
  '--allow-fgs-start-reason',
  '--clock-type',
  '--streaming',
  '-i',
  '--selector',
]);
const AM_FLAG_OPTIONS = new Set([
  '-D',
  '-N',
  '-W',
  '-S',
  '--task-overlay',
  '--lock-task',
  '--allow-background-activity-starts',
  '--async',
  '--splashscreen-show-icon',
  '--dismiss-keyguard',
  '--dismiss-keyguard-if-insecure',
  '--include-stopped-packages',
  '--exclude-stopped-packages',
  '--debug-log-resolution',
  '--grant-read-uri-permission',
  '--grant-write-uri-permission',
  '--grant-persistable-uri-permission',
  '--grant-prefix-uri-permission',
  '--exclude-background',
  '--include-background',
  '--receiver-registered-only',
  '--receiver-replace-pending',
  '--receiver-foreground',
  '--receiver-no-abort',
  '--receiver-include-background',
]);

function need(args: readonly string[], i: number, option: string): string {
  const value = args[i];
  if (value === undefined) throw new IntentArgsError(`No argument expected after "${option}"`);
  return value;
}

/** Parses `am start`/`am broadcast` arguments (after the subcommand). */
export function parseIntentArgs(args: readonly string[]): ParsedIntent {
  const intent: ParsedIntent = { categories: [], flags: 0, extras: new Map() };
  for (let i = 0; i < args.length; i++) {
    const opt = args[i] ?? '';
    const kind = EXTRA_KINDS[opt];
    if (opt === '-a') intent.action = need(args, ++i, opt);
    else if (opt === '-d') intent.data = need(args, ++i, opt);
    else if (opt === '-t') intent.type = need(args, ++i, opt);
    else if (opt === '-c') intent.categories.push(need(args, ++i, opt));
    else if (opt === '-p') intent.pkg = need(args, ++i, opt);
    else if (opt === '-n') {
      const text = need(args, ++i, opt);
      const component = parseComponent(text);
      if (!component) throw new IntentArgsError(`Bad component name: ${text}`);
      intent.component = component;
    } else if (opt === '-f') {
      const text = need(args, ++i, opt);
      const value = text.startsWith('0x') ? Number.parseInt(text.slice(2), 16) : Number.parseInt(text, 10);
      if (!Number.isFinite(value)) throw new IntentArgsError(`For input string: "${text}"`);
      intent.flags |= value;
    } else if (kind) {
      const key = need(args, ++i, opt);
      if (kind === 'null') intent.extras.set(key, '');
      else {
        const raw = need(args, ++i, opt);
        intent.extras.set(key, kind === 'int' ? Number(raw) : kind === 'bool' ? raw === 'true' || raw === '1' : raw);
      }
    } else if (AM_VALUE_OPTIONS.has(opt)) {
      need(args, ++i, opt);
    } else if (AM_FLAG_OPTIONS.has(opt) || opt.startsWith('--activity-')) {
      continue;
    } else if (opt.startsWith('-')) {
      throw new IntentArgsError(`Unknown option: ${opt}`);
    } else if (opt.includes(':')) {
      intent.data = opt;
    } else if (opt.includes('/')) {
      const component = parseComponent(opt);
      if (!component) throw new IntentArgsError(`Bad component name: ${opt}`);
      intent.component = component;
    } else {
      intent.pkg = opt;
    }
  }
  return intent;
}
