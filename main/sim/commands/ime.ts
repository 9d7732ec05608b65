/**
 * `ime` (Android 14's `cmd input_method`) and `settings`: list/enable/disable/set input
 * methods (ADB Keyboard appears once installed), and get/put/delete/list of the system,
 * secure and global tables. Missing settings print "null", as on a phone.
 */
import { LATIN_IME_ID, type SettingsNamespace } from '../phone-settings';
import type { CommandIo, PhoneContext } from './command-types';

function imeVerbose(id: string): string {
  const [pkg = '', cls = ''] = id.split('/');
  const service = cls.startsWith('.') ? pkg + cls : cls;
  return `${id}:\n  mId=${id} mSettingsActivityName=${pkg}.Settings\n  mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name=${service}\n      packageName=${pkg}\n      enabled=true exported=true directBootAware=false\n      permission=android.permission.BIND_INPUT_METHOD\n`;
}

export function imeCommand(io: CommandIo, phone: PhoneContext): number {
  const [, sub, ...args] = io.argv;
  const s = phone.settings;
  const id = args.filter((a) => !a.startsWith('-')).pop();
  switch (sub) {
    case 'list': {
      const ids = args.includes('-a') ? s.availableImes() : s.enabledImes();
      io.out(args.includes('-s') ? ids.map((i) => `${i}\n`).join('') : ids.map(imeVerbose).join(''));
      return 0;
    }
    case 'enable':
    case 'disable': {
      const enable = sub === 'enable';
      if (id === undefined || !s.availableImes().includes(id)) {
        io.err(`Unknown input method ${id ?? ''} cannot be ${enable ? 'enabled' : 'disabled'} for user #0\n`);
        return 255;
      }
      const already = s.enabledImes().includes(id) === enable;
      s.enableIme(id, enable);
      io.out(`Input method ${id}: ${already ? 'already' : 'now'} ${enable ? 'enabled' : 'disabled'}\n`);
      return 0;
    }
    case 'set':
      if (id === undefined || !s.setIme(id)) {
        io.err(`Unknown input method ${id ?? ''} cannot be selected for user #0\n`);
        return 255;
      }
      io.out(`Input method ${id} selected for user #0\n`);
      return 0;
    case 'reset':
      s.put('secure', 'enabled_input_methods', LATIN_IME_ID);
      s.setIme(LATIN_IME_ID);
      io.out(`Reset current and enabled IMEs for user #0\n  Selected: ${LATIN_IME_ID}\n   Enabled: ${LATIN_IME_ID}\n`);
      return 0;
    default:
      io.out(
        'ime <command>:\n  list [-a] [-s]\n    prints all enabled input methods.\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset [--user <USER_ID>]\n',
      );
      return sub === undefined || sub === 'help' ? 0 : 255;
  }
}

const NAMESPACES: SettingsNamespace[] = ['system', 'secure', 'global'];

export function settingsCommand(io: CommandIo, phone: PhoneContext): number {
  const args = io.argv.slice(1);
  while (args[0] === '--user' || args[0] === '--lineage') args.splice(0, args[0] === '--user' ? 2 : 1);
  const [verb, ns, key, ...rest] = args;
  if (verb === undefined) {
    io.out(
      'Settings provider (settings) commands:\n  get [--user <USER_ID> | current] NAMESPACE KEY\n  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]\n  delete [--user <USER_ID> | current] NAMESPACE KEY\n  list [--user <USER_ID> | current] NAMESPACE\n',
    );
    return 0;
  }
  if (!NAMESPACES.includes(ns as SettingsNamespace)) {
    io.err(`Invalid namespace '${ns ?? ''}'\n`);
    return 255;
  }
  const table = ns as SettingsNamespace;
  switch (verb) {
    case 'get':
      if (key === undefined) break;
      io.out(`${phone.settings.get(table, key) ?? 'null'}\n`);
      return 0;
    case 'put':
      if (key === undefined || rest[0] === undefined) break;
      phone.settings.put(table, key, rest[0]);
      phone.screen.touch();
      return 0;
    case 'delete':
      if (key === undefined) break;
      io.out(`Deleted ${phone.settings.delete(table, key) ? 1 : 0} rows\n`);
      phone.screen.touch();
      return 0;
    case 'list':
      io.out(
        phone.settings
          .list(table)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
      );
      return 0;
  }
  io.err(`Invalid arguments for settings ${verb}\n`);
  return 255;
}
