/**
 * Exactly-once for tool calls (Device Profile §4), around the journal: a retry of a finished
 * call gets its stored ack, a retry of a running call joins it, a retry with other arguments
 * is a conflict, and a side-effecting call that was running when the bridge stopped is
 * answered `outcome_unknown`, never run again.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { ErrorCode } from '../errors';
import { IdempotencyJournal, type StoredAck } from './idempotency-journal';
import type { ToolCall } from './tool-call';
import { ackAtRest, typedTextDigest, typedTexts } from './typed-text';

/** How often superseded and expired journal lines are dropped from the file. */
const COMPACT_EVERY_MS = 10 * 60_000;

export interface ExactlyOnceOptions {
  dataDir: string;
  /** How long a finished call's ack is kept for retries. */
  windowMs: number;
  /** Keys the arguments hash and the typed text kept at rest (typed-text.ts). */
  hashKey: Buffer;
  clock: () => number;
}

export class ExactlyOnce {
  private readonly journal: IdempotencyJournal;
  private readonly inFlight = new Map<string, { argsHash: string; promise: Promise<StoredAck> }>();
  private compactTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: ExactlyOnceOptions) {
    this.journal = new IdempotencyJournal(join(o.dataDir, 'tool-calls.jsonl'), o.windowMs, o.clock);
  }

  start(): void {
    this.compactTimer = setInterval(() => this.journal.compact(), COMPACT_EVERY_MS);
    this.compactTimer.unref();
  }

  /** Waits for the calls still running (the queue has canceled them), then closes the journal. */
  async stop(): Promise<void> {
    if (this.compactTimer) clearInterval(this.compactTimer);
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
    this.journal.close();
  }

  /** The keyed hash a call's arguments are compared by. */
  hash(toolId: string, args: unknown): string {
    return hashArgs(toolId, args, this.o.hashKey);
  }

  /** Runs `work` once per key: a stored ack for a finished call, the running one joined, a changed one refused. */
  async run(key: string, argsHash: string, sideEffect: boolean, work: () => Promise<StoredAck>): Promise<StoredAck> {
    const running = this.inFlight.get(key);
    if (running) {
      if (running.argsHash !== argsHash) return conflict();
      return running.promise;
    }
    if (sideEffect) {
      const record = this.journal.get(key);
      if (record) {
        if (record.argsHash !== argsHash) return conflict();
        if (record.state === 'done' && record.ack) return record.ack;
        return errorAck(
          'outcome_unknown',
          'this call was in progress when the bridge stopped; whether it took effect is unknown, so it is not run again. Look at the screen, then use a new tool_call_id.',
        );
      }
    }
    const promise = work();
    this.inFlight.set(key, { argsHash, promise });
    try {
      return await promise;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** The call is about to reach the phone (or its refusal is its answer): a retry is never run again. */
  started(call: ToolCall): void {
    if (call.tool.sideEffect) this.journal.started(call.key, call.argsHash);
  }

  /**
   * A side-effecting call that reached the phone (journaled `started`) records its final ack;
   * the file keeps it without observed screens and with the call's typed text replaced by its
   * length and keyed hash (typed-text.ts ackAtRest).
   */
  settle(call: ToolCall, ack: StoredAck): void {
    if (!call.tool.sideEffect || !this.journal.get(call.key)) return;
    const atRest = ackAtRest(ack, typedTexts(call.tool.id, call.args), (text) => typedTextDigest(text, this.o.hashKey));
    this.journal.done(call.key, call.argsHash, ack, atRest);
  }
}

export function errorAck(code: ErrorCode, message: string): StoredAck {
  return { error: { code, message } };
}

function conflict(): StoredAck {
  return errorAck(
    'idempotency_conflict',
    'this tool_call_id was already used with other arguments; use a new tool_call_id',
  );
}

/**
 * Stable hash of a call: tool id plus arguments with keys sorted at every level. Keyed, as it
 * is kept in the journal and a plain hash of a short typed text could be reversed by guessing.
 */
export function hashArgs(toolId: string, args: unknown, key: Buffer): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value as Record<string, unknown>)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return createHmac('sha256', key)
    .update(toolId)
    .update('\n')
    .update(JSON.stringify(canonical(args)))
    .digest('hex');
}
