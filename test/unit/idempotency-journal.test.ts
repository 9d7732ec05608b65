import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyJournal } from '../../main/core/tools/idempotency-journal';

function tempJournalPath(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'journal-'));
  return { path: join(dir, 'tool-calls.jsonl'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const ACK = { payload: { tool_id: 'android_tap', result: { status: 'tapped' } } };

void test('a finished call is answered from the file after a restart; a started one is unknown', (t) => {
  const { path, remove } = tempJournalPath();
  t.after(remove);
  const journal = new IdempotencyJournal(path, 60_000);
  journal.started('ch\ncall_1', 'h1');
  journal.done('ch\ncall_1', 'h1', ACK);
  journal.started('ch\ncall_2', 'h2');
  journal.close();

  const reopened = new IdempotencyJournal(path, 60_000);
  assert.deepEqual(reopened.get('ch\ncall_1'), {
    key: 'ch\ncall_1',
    argsHash: 'h1',
    state: 'done',
    at: reopened.get('ch\ncall_1')?.at,
    ack: ACK,
  });
  assert.equal(reopened.get('ch\ncall_2')?.state, 'unknown');
  reopened.close();
});

void test('the file stays the size of the live records under many calls, and records written after a compaction survive a restart', (t) => {
  const { path, remove } = tempJournalPath();
  t.after(remove);
  let now = 1_000_000;
  const journal = new IdempotencyJournal(path, 10_000, () => now);
  for (let i = 0; i < 5_000; i++) {
    now += 10; // 1,000 calls per 10 s window are live at any time
    journal.started(`ch\ncall_${i}`, 'h');
    journal.done(`ch\ncall_${i}`, 'h', ACK);
  }
  const lines = readFileSync(path, 'utf8').trim().split('\n').length;
  assert.ok(lines <= 3 * 1_001 + 2, `the file has ${lines} lines for ≤ 1001 live records`);
  journal.close();

  const reopened = new IdempotencyJournal(path, 10_000, () => now);
  // The newest call was appended after the last compaction replaced the file.
  assert.equal(reopened.get('ch\ncall_4999')?.state, 'done');
  assert.equal(reopened.get('ch\ncall_0'), undefined, 'expired');
  reopened.close();
});

void test('the file keeps the at-rest form of an ack; the exact ack answers retries until the bridge stops', (t) => {
  const { path, remove } = tempJournalPath();
  t.after(remove);
  const typed = {
    payload: {
      tool_id: 'android_type_text',
      result: { status: 'typed', ui: [{ text: 'Meet me at 221B Baker Street' }] },
    },
  };
  const atRest = {
    payload: {
      tool_id: 'android_type_text',
      result: { status: 'typed', ui: [{ text: '[text: 28 chars, hmac-sha256:0badc0de]' }] },
    },
  };
  const journal = new IdempotencyJournal(path, 60_000);
  journal.started('ch\ncall_t', 'h');
  journal.done('ch\ncall_t', 'h', typed, atRest);
  assert.deepEqual(journal.get('ch\ncall_t')?.ack, typed);
  assert.ok(!readFileSync(path, 'utf8').includes('Baker'), 'appended line');
  journal.compact();
  assert.ok(!readFileSync(path, 'utf8').includes('Baker'), 'compacted file');
  assert.match(readFileSync(path, 'utf8'), /hmac-sha256:0badc0de/);
  journal.close();
  const reopened = new IdempotencyJournal(path, 60_000);
  assert.deepEqual(reopened.get('ch\ncall_t')?.ack, atRest);
  reopened.close();
});

void test('each channel keeps its last calls only: a busy channel drops its oldest, other channels keep theirs, and so does the file', (t) => {
  const { path, remove } = tempJournalPath();
  t.after(remove);
  // A day's window would otherwise hold every tap of the day (~430 bytes each in memory).
  const journal = new IdempotencyJournal(path, 24 * 3600_000, Date.now, 3);
  journal.started('quiet\nlease\ncall_q', 'hq');
  journal.done('quiet\nlease\ncall_q', 'hq', ACK);
  for (let i = 1; i <= 5; i++) {
    journal.started(`busy\nlease\ncall_${i}`, `h${i}`);
    journal.done(`busy\nlease\ncall_${i}`, `h${i}`, ACK);
  }
  assert.equal(journal.size(), 4);
  assert.equal(journal.get('busy\nlease\ncall_1'), undefined);
  assert.equal(journal.get('busy\nlease\ncall_2'), undefined);
  for (const i of [3, 4, 5]) assert.equal(journal.get(`busy\nlease\ncall_${i}`)?.state, 'done');
  assert.equal(journal.get('quiet\nlease\ncall_q')?.state, 'done', 'another channel keeps its calls');
  journal.compact();
  journal.close();
  const reopened = new IdempotencyJournal(path, 24 * 3600_000, Date.now, 3);
  assert.equal(reopened.size(), 4);
  assert.equal(reopened.get('busy\nlease\ncall_2'), undefined);
  reopened.close();
});
