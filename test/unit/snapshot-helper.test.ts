/**
 * The snapshot helper's status lines (main/core/snapshot/snapshot-status.ts) and its install
 * decisions (snapshot-helper.ts) with a scripted phone: a tree only from a complete, ok run;
 * every other ending has its reason; a refused install keeps the phone's own fix.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import { parseInstrumentOutput, xmlFromInstrumentOutput } from '../../main/core/snapshot/snapshot-status';
import {
  ensureSnapshotHelper,
  findSnapshotHelperApk,
  readSnapshotTree,
} from '../../main/core/snapshot/snapshot-helper';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

const XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="你好" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][100,50]" /></hierarchy>`;

function chunks(xml: string, parts: number, order: number[] = [...Array(parts).keys()]): string {
  const b64 = Buffer.from(xml, 'utf8').toString('base64');
  const size = Math.ceil(b64.length / parts);
  return order
    .map(
      (i) =>
        `INSTRUMENTATION_STATUS: agentDeviceProtocol=android-snapshot-helper-v1\nINSTRUMENTATION_STATUS: chunkCount=${parts}\n` +
        `INSTRUMENTATION_STATUS: chunkIndex=${i}\nINSTRUMENTATION_STATUS: outputFormat=uiautomator-xml\n` +
        `INSTRUMENTATION_STATUS: payloadBase64=${b64.slice(i * size, (i + 1) * size)}\nINSTRUMENTATION_STATUS_CODE: 1\n`,
    )
    .join('');
}

const OK =
  'INSTRUMENTATION_RESULT: agentDeviceProtocol=android-snapshot-helper-v1\nINSTRUMENTATION_RESULT: nodeCount=1\nINSTRUMENTATION_RESULT: ok=true\nINSTRUMENTATION_CODE: -1\n';

function reasonOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof BridgeError);
    assert.equal(error.code, 'helper_unavailable');
    assert.equal(typeof error.details?.fix, 'string', 'every failure says what to do');
    assert.match(error.message, / Fix: /);
    return error.details?.reason;
  }
  return assert.fail('expected a failure');
}

const xmlOf = (text: string, exitCode: number | undefined = 0): string =>
  xmlFromInstrumentOutput(parseInstrumentOutput(text), exitCode);

describe('snapshot helper status lines', () => {
  test('chunks in any order, CRLF line ends (a pty), multi-byte text: the exact XML', () => {
    assert.equal(xmlOf(chunks(XML, 3, [2, 0, 1]) + OK), XML);
    assert.equal(xmlOf((chunks(XML, 2) + OK).replaceAll('\n', '\r\n')), XML);
  });

  test('a value over several lines (a stack trace) stays one value', () => {
    const parsed = parseInstrumentOutput(
      'INSTRUMENTATION_RESULT: agentDeviceProtocol=android-snapshot-helper-v1\nINSTRUMENTATION_RESULT: ok=false\nINSTRUMENTATION_RESULT: stack=java.lang.RuntimeException: boom\n\tat a.b(C.java:1)\nINSTRUMENTATION_CODE: -1\n',
    );
    assert.equal(parsed.result?.stack, 'java.lang.RuntimeException: boom\n\tat a.b(C.java:1)');
    assert.equal(parsed.resultCode, -1);
  });

  test('missing, duplicate or out-of-range chunks, or no XML: malformed_output, never a partial tree', () => {
    assert.equal(
      reasonOf(() => xmlOf(chunks(XML, 3, [0, 2]) + OK)),
      'malformed_output',
    );
    assert.equal(
      reasonOf(() => xmlOf(chunks(XML, 2, [0, 0, 1]) + OK)),
      'malformed_output',
    );
    assert.equal(
      reasonOf(() => xmlOf(chunks(XML, 2, [0, 5]) + OK)),
      'malformed_output',
    );
    assert.equal(
      reasonOf(() => xmlOf(OK)),
      'malformed_output',
    );
    assert.equal(
      reasonOf(() => xmlOf(chunks('<hierarchy rotation="0">', 1) + OK)),
      'malformed_output',
    );
  });

  test('the process died: "Process crashed.", killed (137), or a stream cut before the result', () => {
    const crashed =
      chunks(XML, 2, [0]) + 'INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n';
    assert.equal(
      reasonOf(() => xmlOf(crashed)),
      'crashed',
    );
    assert.equal(
      reasonOf(() => xmlOf(chunks(XML, 2, [0]), 137)),
      'crashed',
    );
    assert.equal(
      reasonOf(() => xmlOf(chunks(XML, 2) + 'INSTRUMENTATION_RESULT: ok=tr')),
      'crashed',
    );
  });

  test('the helper reports its own failure: accessibility_timeout for TimeoutException, else helper_error', () => {
    const failed = (errorType: string): string =>
      `INSTRUMENTATION_RESULT: agentDeviceProtocol=android-snapshot-helper-v1\nINSTRUMENTATION_RESULT: errorType=${errorType}\nINSTRUMENTATION_RESULT: message=null\nINSTRUMENTATION_RESULT: ok=false\nINSTRUMENTATION_CODE: -1\n`;
    assert.equal(
      reasonOf(() => xmlOf(failed('java.util.concurrent.TimeoutException'))),
      'accessibility_timeout',
    );
    assert.equal(
      reasonOf(() => xmlOf(failed('java.lang.IllegalStateException'))),
      'helper_error',
    );
  });

  test("am could not start it: not_installed, or start_refused with the phone's words", () => {
    const missing =
      'INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{com.callstack.agentdevice.snapshothelper/.SnapshotInstrumentation}\nINSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS_CODE: -1\nandroid.util.AndroidException: INSTRUMENTATION_FAILED: com.callstack.agentdevice.snapshothelper/.SnapshotInstrumentation\n';
    assert.equal(
      reasonOf(() => xmlOf(missing, 1)),
      'not_installed',
    );
    const denied =
      'java.lang.SecurityException: Permission Denial: starting instrumentation ComponentInfo{x/.Y} from pid=1, uid=2000 not allowed\n\tat android.os.Parcel.createException(Parcel.java:2995)\n';
    assert.equal(
      reasonOf(() => xmlOf(denied, 1)),
      'start_refused',
    );
  });
});

describe('snapshot helper on a scripted phone', () => {
  const apk = findSnapshotHelperApk();

  test("the bundled APK is found with its manifest's identity", () => {
    assert.ok(apk);
    assert.equal(apk.packageName, 'com.callstack.agentdevice.snapshothelper');
    assert.equal(apk.minSdk, 23);
    assert.match(apk.sha256, /^[0-9a-f]{64}$/);
  });

  test("another signer's package under its name is uninstalled, then the shipped APK installed and verified", async () => {
    const pkg = apk!.packageName;
    const shell = new FakeDeviceShell()
      .on(['getprop', 'ro.build.version.sdk'], '34\n')
      .on(['pm', 'path', pkg], 'package:/data/app/~~x/base.apk\n')
      .on(
        ['sha256sum', '/data/app/~~x/base.apk'],
        `${'0'.repeat(64)}  /data/app/~~x/base.apk\n`,
        `${apk!.sha256}  /data/app/~~x/base.apk\n`,
      )
      .on(
        ['pm', 'install'],
        'Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package signatures do not match]\n',
        'Success\n',
      )
      .on(['pm', 'uninstall', pkg], 'Success\n')
      .on(['rm', '-f'], '');
    const handle = await ensureSnapshotHelper(shell, apk!, { timeoutMs: 10_000 });
    assert.equal(handle.installed, 'replaced');
    const steps = shell.argvs().map((a) => a.slice(0, 2).join(' '));
    assert.deepEqual(steps, [
      'getprop ro.build.version.sdk',
      `pm path`,
      `sha256sum /data/app/~~x/base.apk`,
      '/data/local/tmp/xagent-snapshot-helper.apk',
      'pm install',
      'pm uninstall',
      'pm install',
      'rm -f',
      'pm path',
      'sha256sum /data/app/~~x/base.apk',
    ]);
  });

  test("a refused install is helper_unavailable install_refused with the phone's fix", async () => {
    const shell = new FakeDeviceShell()
      .on(['getprop', 'ro.build.version.sdk'], '34\n')
      .on(['pm', 'path', apk!.packageName], '')
      .on(['pm', 'install'], 'Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n')
      .on(['rm', '-f'], '');
    const error = await ensureSnapshotHelper(shell, apk!, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    assert.ok(error instanceof BridgeError);
    assert.equal(error.code, 'helper_unavailable');
    assert.equal(error.details?.reason, 'install_refused');
    assert.equal(error.details?.cause, 'install_blocked');
    assert.match(String(error.details?.fix), /Install via USB/);
  });

  test("the read asks for agent-device's idle settings and a helper deadline inside the caller's", async () => {
    const shell = new FakeDeviceShell().on(['am', 'instrument'], chunks(XML, 1) + OK);
    const tree = await readSnapshotTree(shell, {
      helper: {
        packageName: apk!.packageName,
        runner: apk!.runner,
        versionCode: apk!.versionCode,
        sha256: apk!.sha256,
        installed: 'current',
      },
      timeoutMs: 8_000,
    });
    assert.equal(tree.nodes[0]?.text, '你好');
    const [argv] = shell.argvs();
    assert.deepEqual(argv?.slice(0, 3), ['am', 'instrument', '-w']);
    const extra = (k: string): string | undefined => argv?.[argv.indexOf(k) + 1];
    assert.equal(extra('waitForIdleQuietMs'), '100');
    assert.equal(extra('waitForIdleTimeoutMs'), '500');
    assert.ok(Number(extra('timeoutMs')) < 8_000);
    assert.equal(argv?.at(-1), apk!.runner);
    assert.equal(shell.argvs().length, 1, 'a finished read needs no force-stop');
  });
});
