/**
 * A scripted DeviceShell for unit tests of main/core/android: records every call's argv and
 * options, and answers with canned outputs chosen by the longest matching argv prefix (a
 * later script for the same prefix replaces an earlier one). A list of answers is consumed
 * in order (the last one repeats), which is how tests script "fails once, then succeeds".
 * Unscripted commands reject, so a test cannot pass by accident.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeError } from '../../main/core/errors';
import type { DeviceShell, ShellOutput, ShellRunOptions } from '../../main/core/devices/device-shell';

export type FakeAnswer =
  | string
  | Buffer
  | {
      stdout?: string | Buffer;
      exitCode?: number;
      /** Reject with this error instead of answering. */
      error?: Error;
      /** Never answer; reject only when the deadline passes or the signal aborts. */
      hang?: boolean;
    };

export interface FakeCall {
  kind: 'run' | 'execOut' | 'push' | 'pull';
  argv: string[];
  options: ShellRunOptions;
}

interface Script {
  prefix: readonly string[];
  answers: FakeAnswer[];
  used: number;
}

export class FakeDeviceShell implements DeviceShell {
  readonly calls: FakeCall[] = [];
  private readonly scripts: Script[] = [];
  private readonly files = new Map<string, FakeAnswer[]>();

  /** Answers commands whose argv starts with `prefix` (longest prefix wins). */
  on(prefix: readonly string[], ...answers: FakeAnswer[]): this {
    if (answers.length === 0) throw new Error('give at least one answer');
    this.scripts.push({ prefix: [...prefix], answers, used: 0 });
    return this;
  }

  /** Content (or failure) returned by pull(remotePath); a path that matches no entry is "not found". */
  onPull(remotePath: string, ...answers: FakeAnswer[]): this {
    this.files.set(remotePath, answers);
    return this;
  }

  /** argv of every run/execOut call, in order. */
  argvs(kind?: FakeCall['kind']): string[][] {
    return this.calls.filter((c) => kind === undefined || c.kind === kind).map((c) => c.argv);
  }

  async run(argv: readonly string[], options: ShellRunOptions): Promise<ShellOutput> {
    this.calls.push({ kind: 'run', argv: [...argv], options });
    return this.answer(this.pick(argv), options);
  }

  async execOut(argv: readonly string[], options: ShellRunOptions): Promise<Buffer> {
    this.calls.push({ kind: 'execOut', argv: [...argv], options });
    return (await this.answer(this.pick(argv), options)).stdout;
  }

  async push(
    _data: Buffer | NodeJS.ReadableStream,
    remotePath: string,
    options: ShellRunOptions & { mode?: number },
  ): Promise<void> {
    this.calls.push({ kind: 'push', argv: [remotePath], options });
  }

  async pull(remotePath: string, options: ShellRunOptions): Promise<Buffer> {
    this.calls.push({ kind: 'pull', argv: [remotePath], options });
    const answers =
      this.files.get(remotePath) ??
      [...this.files.entries()].find(([path]) => path.endsWith('*') && remotePath.startsWith(path.slice(0, -1)))?.[1];
    if (!answers) throw new BridgeError('file_not_found', `fake: no file ${remotePath}`);
    const answer = answers.length > 1 ? answers.shift() : answers[0];
    return (await this.answer(answer ?? '', options)).stdout;
  }

  private pick(argv: readonly string[]): FakeAnswer {
    let best: Script | undefined;
    for (const script of this.scripts) {
      const matches = script.prefix.length <= argv.length && script.prefix.every((word, i) => argv[i] === word);
      if (matches && (!best || script.prefix.length >= best.prefix.length)) best = script;
    }
    if (!best) throw new Error(`fake device shell: no answer scripted for ${JSON.stringify(argv)}`);
    const answer = best.answers[Math.min(best.used, best.answers.length - 1)];
    best.used++;
    return answer ?? '';
  }

  private async answer(answer: FakeAnswer, options: ShellRunOptions): Promise<ShellOutput> {
    if (typeof answer === 'string' || Buffer.isBuffer(answer)) {
      return { stdout: Buffer.isBuffer(answer) ? answer : Buffer.from(answer, 'utf8'), exitCode: 0 };
    }
    if (answer.error) throw answer.error;
    if (answer.hang) return hang(options);
    const stdout = answer.stdout ?? '';
    return { stdout: Buffer.isBuffer(stdout) ? stdout : Buffer.from(stdout, 'utf8'), exitCode: answer.exitCode ?? 0 };
  }
}

function hang(options: ShellRunOptions): Promise<never> {
  return new Promise((_resolve, reject) => {
    const timer = setTimeout(() => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(new BridgeError('command_timeout', 'fake: deadline passed'));
    }, options.timeoutMs);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new BridgeError('canceled', 'fake: aborted'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads a captured phone output from test/fixtures/android/. */
export function androidFixture(name: string): string {
  return readFileSync(join(__dirname, '..', 'fixtures', 'android', name), 'utf8');
}
