/**
 * Command-line parsing for the headless CLI. Each command declares its flags once, in one
 * table (name, boolean or valued, repeatable, help); that table drives parsing, the refusal
 * of unknown or misplaced flags (naming the nearest known one) and the usage text.
 * Plain data in, typed errors out: nothing here prints or exits.
 */

export type FlagKind = 'boolean' | 'value';

export interface FlagSpec {
  /** Name without the leading `--`, kebab-case. */
  readonly name: string;
  /** `boolean`: present or not, takes no value. `value`: `--name VALUE` or `--name=VALUE`. */
  readonly kind: FlagKind;
  /** May be given more than once (values kept in order); otherwise a second use is refused. */
  readonly repeatable?: boolean;
  /** What the value looks like in the usage text, e.g. `HOST:PORT` (valued flags). */
  readonly placeholder?: string;
  /** One line for the usage text. */
  readonly help: string;
}

export interface CommandSpec {
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
}

export type UsageErrorCode =
  | 'unknown_command'
  | 'unknown_flag'
  | 'missing_value'
  | 'unexpected_value'
  | 'repeated_flag'
  | 'unexpected_argument'
  | 'invalid_value';

/** A command line the CLI refuses (exit status 2, with the usage). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    readonly code: UsageErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Every command takes `--help` (and `-h`); it is not repeated in each table. */
export const HELP_FLAG: FlagSpec = { name: 'help', kind: 'boolean', help: 'print the usage and exit' };

/** The flags one command line gave, readable only by names its command declares. */
export class ParsedFlags {
  constructor(
    readonly command: CommandSpec,
    private readonly given: ReadonlyMap<string, readonly string[]>,
  ) {}

  /** The value of a valued flag, or undefined when it was not given. */
  value(name: string): string | undefined {
    const spec = this.spec(name, 'value');
    if (spec.repeatable) throw new Error(`--${name} is repeatable: read it with values()`);
    return this.given.get(name)?.[0];
  }

  /** Every value of a repeatable flag, in command-line order (empty when not given). */
  values(name: string): readonly string[] {
    this.spec(name, 'value');
    return this.given.get(name) ?? [];
  }

  /** Whether a boolean flag was given. */
  has(name: string): boolean {
    this.spec(name, 'boolean');
    return this.given.has(name);
  }

  /**
   * A valued flag as an integer in [min, max]; undefined when not given. Anything else
   * (`abc`, `1.5`, `1e3`, out of range) is a UsageError naming the flag and the range.
   */
  integer(name: string, range: { min: number; max: number }): number | undefined {
    const text = this.value(name);
    if (text === undefined) return undefined;
    const value = /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
      throw new UsageError(
        'invalid_value',
        `--${name} must be an integer from ${range.min} to ${range.max} (got ${JSON.stringify(text)})`,
      );
    }
    return value;
  }

  /** A valued flag that must be one of `choices`; undefined when not given. */
  choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const text = this.value(name);
    if (text === undefined) return undefined;
    const found = choices.find((c) => c === text);
    if (found === undefined) {
      throw new UsageError(
        'invalid_value',
        `--${name} must be ${formatChoices(choices)} (got ${JSON.stringify(text)})`,
      );
    }
    return found;
  }

  /** Reading a flag the command does not declare is a bug in the CLI, not in the command line. */
  private spec(name: string, kind: FlagKind): FlagSpec {
    const spec = this.command.flags.find((f) => f.name === name);
    if (!spec) throw new Error(`--${name} is not a flag of ${this.command.name}; declare it in its table`);
    if (spec.kind !== kind) throw new Error(`--${name} is a ${spec.kind} flag of ${this.command.name}`);
    return spec;
  }
}

function formatChoices(choices: readonly string[]): string {
  if (choices.length <= 1) return choices.join('');
  return `${choices.slice(0, -1).join(', ')} or ${choices.at(-1) ?? ''}`;
}

export interface ParsedCommandLine<C extends CommandSpec = CommandSpec> {
  command: C;
  flags: ParsedFlags;
  /** `--help` or `-h` was given. */
  help: boolean;
}

/**
 * Parses `argv` (without node and the script) against the declared commands. The first
 * argument names the command; with none, or when the line starts with a flag,
 * `defaultCommand` applies. Throws UsageError for anything not declared.
 */
export function parseCommandLine<C extends CommandSpec>(
  argv: readonly string[],
  commands: readonly C[],
  defaultCommand: string,
): ParsedCommandLine<C> {
  const first = argv[0];
  const named = first !== undefined && !first.startsWith('-');
  const commandName = named ? first : defaultCommand;
  const command = commands.find((c) => c.name === commandName);
  if (!command) {
    const near = nearest(
      commandName,
      commands.map((c) => c.name),
    );
    throw new UsageError('unknown_command', `unknown command ${commandName}${near ? ` (did you mean ${near}?)` : ''}`);
  }
  const rest = named ? argv.slice(1) : argv;
  const given = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? '';
    if (arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      throw new UsageError(
        'unexpected_argument',
        `unexpected argument ${JSON.stringify(arg)} for ${command.name} (flags start with --)`,
      );
    }
    if (!arg.startsWith('--')) throw unknownFlag(arg, command, commands);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const spec = name === HELP_FLAG.name ? HELP_FLAG : command.flags.find((f) => f.name === name);
    if (!spec) throw unknownFlag(`--${name}`, command, commands);
    if (given.has(name) && !spec.repeatable) {
      throw new UsageError('repeated_flag', `--${name} was given more than once; ${command.name} takes it once`);
    }
    let value: string;
    if (spec.kind === 'boolean') {
      if (inline !== undefined)
        throw new UsageError('unexpected_value', `--${name} takes no value (got --${name}=${inline})`);
      value = '';
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = rest[i + 1];
      value = next === undefined || next.startsWith('--') ? '' : next;
      if (value !== '') i += 1;
    }
    if (spec.kind === 'value' && value === '') {
      throw new UsageError('missing_value', `--${name} needs a value: --${name} ${spec.placeholder ?? 'VALUE'}`);
    }
    if (spec === HELP_FLAG) help = true;
    else given.set(name, [...(given.get(name) ?? []), value]);
  }
  return { command, flags: new ParsedFlags(command, given), help };
}

function unknownFlag(flag: string, command: CommandSpec, commands: readonly CommandSpec[]): UsageError {
  const name = flag.replace(/^-+/, '');
  const near = nearest(name, [...command.flags.map((f) => f.name), HELP_FLAG.name]);
  let hint = '';
  if (near) hint = ` (did you mean --${near}?)`;
  else {
    const owners = commands.filter((c) => c.flags.some((f) => f.name === name)).map((c) => c.name);
    if (owners.length > 0) hint = ` (--${name} is a flag of ${owners.join(', ')})`;
  }
  return new UsageError('unknown_flag', `unknown flag ${flag} for ${command.name}${hint}`);
}

/**
 * The candidate closest to `word`, when close enough to be a slip: at most one edit per
 * three letters (at least one; a swap of neighbours is one edit), or `word` is the start
 * of exactly that candidate (three letters or more). Ties go to the first candidate.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = word.length >= 3 && candidate.startsWith(word) ? 1 : editDistance(word, candidate);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i += 1) d[i * cols] = i;
  for (let j = 0; j < cols; j += 1) d[j] = j;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      d[i * cols + j] = value;
    }
  }
  return at(a.length, b.length);
}

/**
 * The usage text, built from the same tables the parser reads: one line per command, then
 * its flags with their placeholders and help. `footer` is appended as is.
 */
export function formatUsage(program: string, commands: readonly CommandSpec[], footer = ''): string {
  const flagLabel = (f: FlagSpec): string =>
    `--${f.name}${f.kind === 'value' ? ` ${f.placeholder ?? 'VALUE'}` : ''}${f.repeatable ? ' ...' : ''}`;
  const commandWidth = Math.max(0, ...commands.map((c) => c.name.length));
  const flagWidth = Math.max(0, ...commands.flatMap((c) => c.flags.map((f) => flagLabel(f).length)));
  const lines = [`Usage: ${program} <command> [flags]   (every command also takes --help)`, ''];
  for (const command of commands) {
    lines.push(`  ${command.name.padEnd(commandWidth)}  ${command.summary}`);
    for (const flag of command.flags) lines.push(`      ${flagLabel(flag).padEnd(flagWidth)}  ${flag.help}`);
  }
  if (footer) lines.push('', footer);
  return lines.join('\n');
}

/**
 * `HOST:PORT` (IPv6 in brackets); the port may be left out when `defaultPort` is given.
 * `what` names the flag in the message.
 */
export function parseHostPort(text: string, what = 'address', defaultPort?: number): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text.trim());
  const port = match?.[2] !== undefined ? Number(match[2]) : defaultPort;
  if (!match?.[1] || port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(
      'invalid_value',
      `${what} must be HOST:PORT with a port from 1 to 65535 (got ${JSON.stringify(text)})`,
    );
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}
