/**
 * The bridge's own files on a phone (program-lifecycle/checked-files.ts): a copy with the
 * package's bytes is used as it is, a wrong or missing one is pushed into its folder and checked
 * again, and one that still differs is refused by name, never run.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCheckedFiles, localFileSha256 } from '../../main/core/program-lifecycle/checked-files';
import { isBridgeError } from '../../main/core/errors';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

const REMOTE = '/data/local/tmp/xagent-test/program.jar';

function withJar(run: (local: string, sha256: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checked-files-'));
    try {
      const local = join(dir, 'program.jar');
      writeFileSync(local, 'the package’s bytes');
      await run(local, localFileSha256(local));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const set = (local: string, sha256: string) => ({
  files: [{ local, sha256, remote: REMOTE }],
  dir: '/data/local/tmp/xagent-test',
  dirMode: '700',
  what: 'test program',
  reason: 'test_mismatch',
});

describe('the bridge’s files on a phone', () => {
  test(
    'a copy with the package’s bytes is used as it is: one check, nothing made or pushed',
    withJar(async (local, sha256) => {
      const shell = new FakeDeviceShell().on(['sha256sum'], `${sha256}  ${REMOTE}\n`);
      await installCheckedFiles(shell, set(local, sha256));
      assert.deepEqual(shell.argvs(), [['sha256sum', REMOTE]]);
    }),
  );

  test(
    'a missing copy: its folder is made for the shell user alone, the file pushed, then checked again',
    withJar(async (local, sha256) => {
      const shell = new FakeDeviceShell()
        .on(['sha256sum'], `sha256sum: ${REMOTE}: No such file or directory\n`, `${sha256}  ${REMOTE}\n`)
        .on(['mkdir'], '')
        .on(['chmod'], '');
      await installCheckedFiles(shell, set(local, sha256));
      assert.deepEqual(shell.argvs(), [
        ['sha256sum', REMOTE],
        ['mkdir', '-p', '/data/local/tmp/xagent-test'],
        ['chmod', '700', '/data/local/tmp/xagent-test'],
        [REMOTE],
        ['sha256sum', REMOTE],
      ]);
      assert.equal((shell.calls.find((c) => c.kind === 'push')?.options as { mode?: number }).mode, 0o644);
    }),
  );

  test(
    'a copy that still differs after the push is refused by name and reason',
    withJar(async (local, sha256) => {
      const shell = new FakeDeviceShell()
        .on(['sha256sum'], `${'0'.repeat(64)}  ${REMOTE}\n`)
        .on(['mkdir'], '')
        .on(['chmod'], '');
      const error = await installCheckedFiles(shell, set(local, sha256)).catch((e: unknown) => e);
      assert.ok(isBridgeError(error) && error.code === 'command_failed', String(error));
      assert.match(error.message, /program\.jar is not the bridge’s test program; it was not run/);
      assert.deepEqual(error.details, { reason: 'test_mismatch' });
    }),
  );
});
