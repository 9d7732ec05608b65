/**
 * Parses a command line the way Android's /system/bin/sh (mksh) would for the subset an adb
 * client uses: words with '…' / "…" / backslash quoting, `;` `&` newlines, `&&` `||`, `|`,
 * `$(…)` and backquote substitution, `$NAME` `${NAME}` `$?` parameters, `#` comments and
 * redirections (`>`, `>>`, `<`, `N>`, `N>&M`). Compound commands (if/for/subshells) are not
 * supported and parse as errors or plain words. The parser never runs anything; see
 * phone-shell.ts for execution.
 */

export type WordPart =
  | { kind: 'text'; value: string; quoted: boolean }
  | { kind: 'param'; name: string; quoted: boolean }
  | { kind: 'subst'; script: ShellScript; quoted: boolean };

export interface ShellWord {
  parts: WordPart[];
}

export interface ShellRedirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&' | '<&';
  target: ShellWord;
}

export interface SimpleCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
}

export interface Pipeline {
  negate: boolean;
  commands: SimpleCommand[];
}

export interface AndOrList {
  first: Pipeline;
  rest: Array<{ op: '&&' | '||'; pipeline: Pipeline }>;
  /** Ended by `&`: runs in the background while the script goes on (`wait` joins it). */
  background?: boolean;
}

export interface ShellScript {
  items: AndOrList[];
}

/** A parse failure; `message` is what mksh prints after "/system/bin/sh: ". */
export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

/** Parses a whole command line; throws ShellSyntaxError. */
export function parseShell(source: string): ShellScript {
  const parser = new Parser(source);
  const script = parser.parseList(false);
  if (!parser.atEnd()) throw parser.unexpected();
  return script;
}

const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const SPECIAL_PARAMS = new Set(['?', '$', '#', '!', '@', '*', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

class Parser {
  private pos = 0;

  constructor(private readonly src: string) {}

  atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  unexpected(): ShellSyntaxError {
    if (this.atEnd()) return new ShellSyntaxError('syntax error: unexpected EOF');
    const two = this.src.slice(this.pos, this.pos + 2);
    const token = ['&&', '||', ';;', '>>', '<<', '>&', '<&'].includes(two) ? two : this.src.charAt(this.pos);
    return new ShellSyntaxError(`syntax error: '${token === '\n' ? 'newline' : token}' unexpected`);
  }

  /** list := and_or ((';' | '&' | NL) and_or)*; stops at EOF or, inside $(…), at ')'. */
  parseList(insideSubst: boolean): ShellScript {
    const items: AndOrList[] = [];
    for (;;) {
      this.skipBlanks(true);
      if (this.atEnd() || (insideSubst && this.peek() === ')')) break;
      const item = this.parseAndOr(insideSubst);
      items.push(item);
      this.skipBlanks(false);
      const c = this.peek();
      if ((c === ';' && this.peek(1) !== ';') || (c === '&' && this.peek(1) !== '&') || c === '\n') {
        if (c === '&') item.background = true;
        this.pos++;
        continue;
      }
      if (this.atEnd() || (insideSubst && c === ')')) break;
      throw this.unexpected();
    }
    return { items };
  }

  private parseAndOr(insideSubst: boolean): AndOrList {
    const first = this.parsePipeline(insideSubst);
    const rest: AndOrList['rest'] = [];
    for (;;) {
      this.skipBlanks(false);
      const two = this.src.slice(this.pos, this.pos + 2);
      if (two !== '&&' && two !== '||') break;
      this.pos += 2;
      this.skipBlanks(true);
      rest.push({ op: two, pipeline: this.parsePipeline(insideSubst) });
    }
    return { first, rest };
  }

  private parsePipeline(insideSubst: boolean): Pipeline {
    this.skipBlanks(false);
    let negate = false;
    if (this.peek() === '!' && (this.peek(1) === ' ' || this.peek(1) === '\t')) {
      negate = true;
      this.pos++;
    }
    const commands = [this.parseSimple(insideSubst)];
    for (;;) {
      this.skipBlanks(false);
      if (this.peek() !== '|' || this.peek(1) === '|') break;
      this.pos++;
      this.skipBlanks(true);
      commands.push(this.parseSimple(insideSubst));
    }
    return { negate, commands };
  }

  private parseSimple(insideSubst: boolean): SimpleCommand {
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    for (;;) {
      this.skipBlanks(false);
      if (this.atEnd()) break;
      const c = this.peek();
      if (c === ';' || c === '&' || c === '|' || c === '\n') break;
      if (c === ')') {
        if (insideSubst) break;
        throw this.unexpected();
      }
      if (c === '(') throw this.unexpected();
      const fdMatch = /^(\d+)(?=[<>])/.exec(this.src.slice(this.pos, this.pos + 12));
      if (c === '<' || c === '>' || fdMatch) {
        redirects.push(this.parseRedirect(fdMatch ? Number(fdMatch[1]) : undefined));
        continue;
      }
      words.push(this.parseWord());
    }
    if (words.length === 0 && redirects.length === 0) throw this.unexpected();
    return { words, redirects };
  }

  private parseRedirect(explicitFd: number | undefined): ShellRedirect {
    if (explicitFd !== undefined) this.pos += String(explicitFd).length;
    const c = this.peek();
    let op: ShellRedirect['op'];
    if (c === '>') {
      if (this.peek(1) === '>') op = '>>';
      else if (this.peek(1) === '&') op = '>&';
      else op = '>';
    } else {
      if (this.peek(1) === '<') throw this.unexpected(); // here-documents are not supported
      op = this.peek(1) === '&' ? '<&' : '<';
    }
    this.pos += op.length;
    if (op === '>' && this.peek() === '|') this.pos++; // >| (noclobber override) acts like >
    this.skipBlanks(false);
    if (this.atEnd() || META.has(this.peek())) throw this.unexpected();
    const target = this.parseWord();
    const fd = explicitFd ?? (op.startsWith('<') ? 0 : 1);
    return { fd, op, target };
  }

  private parseWord(): ShellWord {
    const parts: WordPart[] = [];
    const text = (value: string, quoted: boolean): void => {
      const last = parts[parts.length - 1];
      if (last?.kind === 'text' && last.quoted === quoted) last.value += value;
      else parts.push({ kind: 'text', value, quoted });
    };
    while (!this.atEnd()) {
      const c = this.peek();
      if (META.has(c)) break;
      if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end < 0) throw new ShellSyntaxError('syntax error: no closing quote');
        text(this.src.slice(this.pos + 1, end), true);
        this.pos = end + 1;
      } else if (c === '"') {
        this.parseDoubleQuoted(parts, text);
      } else if (c === '\\') {
        const next = this.peek(1);
        if (next === '\n') this.pos += 2;
        else if (this.pos + 1 < this.src.length) {
          text(next, true);
          this.pos += 2;
        } else {
          text('\\', false);
          this.pos++;
        }
      } else if (c === '$') {
        this.parseDollar(parts, text, false);
      } else if (c === '`') {
        parts.push({ kind: 'subst', script: this.parseBackquote(), quoted: false });
      } else {
        text(c, false);
        this.pos++;
      }
    }
    return { parts };
  }

  private parseDoubleQuoted(parts: WordPart[], text: (value: string, quoted: boolean) => void): void {
    this.pos++; // opening quote
    text('', true); // "" is an empty (but present) word
    for (;;) {
      if (this.atEnd()) throw new ShellSyntaxError('syntax error: no closing quote');
      const c = this.peek();
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\') {
        const next = this.peek(1);
        if (next === '$' || next === '`' || next === '"' || next === '\\') {
          text(next, true);
          this.pos += 2;
        } else if (next === '\n') {
          this.pos += 2;
        } else {
          text('\\', true);
          this.pos++;
        }
      } else if (c === '$') {
        this.parseDollar(parts, text, true);
      } else if (c === '`') {
        parts.push({ kind: 'subst', script: this.parseBackquote(), quoted: true });
      } else {
        text(c, true);
        this.pos++;
      }
    }
  }

  private parseDollar(parts: WordPart[], text: (value: string, quoted: boolean) => void, quoted: boolean): void {
    const next = this.peek(1);
    if (next === '(') {
      if (this.peek(2) === '(') throw new ShellSyntaxError('syntax error: arithmetic expansion is not supported');
      this.pos += 2;
      const script = this.parseList(true);
      if (this.peek() !== ')') throw new ShellSyntaxError('syntax error: no closing quote');
      this.pos++;
      parts.push({ kind: 'subst', script, quoted });
      return;
    }
    if (next === '{') {
      const end = this.src.indexOf('}', this.pos + 2);
      if (end < 0) throw new ShellSyntaxError('syntax error: no closing quote');
      const name = this.src.slice(this.pos + 2, end);
      if (!/^([A-Za-z_][A-Za-z0-9_]*|[?$#!@*0-9-])$/.test(name))
        throw new ShellSyntaxError(`\${${name}}: bad substitution`);
      parts.push({ kind: 'param', name, quoted });
      this.pos = end + 1;
      return;
    }
    if (SPECIAL_PARAMS.has(next)) {
      parts.push({ kind: 'param', name: next, quoted });
      this.pos += 2;
      return;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.pos + 1, this.pos + 257));
    if (name) {
      parts.push({ kind: 'param', name: name[0], quoted });
      this.pos += 1 + name[0].length;
      return;
    }
    text('$', quoted);
    this.pos++;
  }

  /** `…`: inside, backslash quotes only $ ` and \; the body is parsed as its own script. */
  private parseBackquote(): ShellScript {
    let body = '';
    let i = this.pos + 1;
    for (;;) {
      if (i >= this.src.length) throw new ShellSyntaxError('syntax error: no closing quote');
      const c = this.src.charAt(i);
      if (c === '`') break;
      if (c === '\\' && ['$', '`', '\\'].includes(this.src.charAt(i + 1))) {
        body += this.src.charAt(i + 1);
        i += 2;
        continue;
      }
      body += c;
      i++;
    }
    this.pos = i + 1;
    return parseShell(body);
  }

  private skipBlanks(newlines: boolean): void {
    while (!this.atEnd()) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || (newlines && c === '\n')) this.pos++;
      else if (c === '\\' && this.peek(1) === '\n') this.pos += 2;
      else if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end;
      } else break;
    }
  }

  private peek(offset = 0): string {
    return this.src.charAt(this.pos + offset);
  }
}
