/**
 * The bridge's UI reader on a simulated phone without the adb server in between: against
 * appium-uiautomator2-server (one UiAutomation client, both ways), under the ui-dump quirks, and
 * its timings on the usb-phone profile (TIMING-SOURCES.md "The UI reader"), each run through
 * the phone's live exec with a stdin the test writes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createSimulatedPhone } from '../../main/sim/phone';
import type { PhoneStdinSource } from '../../main/sim/phone-device';
import { USB_PHONE_TIMINGS } from '../../main/sim/timing-profiles';
import { startHelperRig, type HelperRig } from './helper-kit';
import { DUMP, JAR, REMOTE_JAR, SKIP, START, WAIT_MS } from './ui-reader-kit';

void describe('the UI reader and appium-uiautomator2-server: one UiAutomation client', { skip: SKIP }, () => {
  let h: HelperRig;
  before(async () => {
    h = await startHelperRig();
    await h.installHelper();
    h.phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o644, Math.floor(Date.now() / 1000));
  });
  after(async () => {
    await h?.close();
  });

  /** The reader run live on the phone with a stdin that stays open until `end()`. */
  function runReader(): { output: () => string; ready: Promise<void>; end: () => void; done: Promise<number> } {
    let output = '';
    let onOutput: (() => void) | undefined;
    let eof: ((data: undefined) => void) | undefined;
    const closed = new Promise<undefined>((resolve) => (eof = resolve));
    const done = h.phone.execLive!(START, {
      signal: AbortSignal.timeout(60_000),
      stdinSource: { read: () => closed },
      onStdout: (chunk) => {
        output += chunk.toString();
        onOutput?.();
      },
    });
    const ready = (async () => {
      while (!/ready \d+\n/.test(output)) {
        const more = new Promise<void>((resolve) => (onOutput = resolve));
        if ((await Promise.race([more.then(() => 'more'), done.then(() => 'done')])) === 'done')
          throw new Error(`no ready line: ${output}`);
      }
    })();
    return { output: () => output, ready, end: () => eof?.(undefined), done: done.then((r) => r.exitCode) };
  }

  test('the reader holds it: the server’s instrumentation dies at start (Process crashed.)', async () => {
    const reader = runReader();
    await reader.ready;
    const instrumentation = await h.startInstrumentation();
    const { output } = await instrumentation.exited;
    assert.match(output, /INSTRUMENTATION_RESULT: shortMsg=Process crashed\./);
    assert.equal(h.phone.helper.state(), 'stopped');
    reader.end();
    assert.equal(await reader.done, 0);
  });

  test('the server holds it: the reader prints error … already registered! and exits 1', async () => {
    const instrumentation = await h.startInstrumentation();
    await h.phone.helper.waitForState('running', AbortSignal.timeout(WAIT_MS));
    const refused = await h.phone.exec(START, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(refused.exitCode, 1);
    assert.match(
      refused.stdout.toString(),
      /^error connect java\.lang\.IllegalStateException: .*already registered!\n$/,
    );
    instrumentation.child.kill();
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    await h.phone.helper.waitForState('stopped', AbortSignal.timeout(WAIT_MS));
  });
});

void describe('the UI reader on phones with ui-dump quirks', { skip: SKIP }, () => {
  /** The reader run with these requests as its whole stdin (then EOF), as `echo … | app_process …` would. */
  async function answers(
    quirks: string[],
    requests: string,
    line = START,
  ): Promise<{ stdout: string; exitCode: number }> {
    const phone = createSimulatedPhone({ serial: 'uir-quirk', quirks });
    after(() => phone.close());
    phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o644, Math.floor(Date.now() / 1000));
    let live = '';
    const result = await phone.execLive!(line, {
      signal: AbortSignal.timeout(WAIT_MS),
      stdin: Buffer.from(requests),
      onStdout: (chunk) => (live += chunk.toString()),
    });
    return { stdout: (live + result.stdout.toString()).replace(/ready \d+/, 'ready PID'), exitCode: result.exitCode };
  }

  test('null root: none; unreadable or no folder for the dump file: an error line and it goes on; never settling: the tree anyway', async () => {
    assert.deepEqual(await answers(['ui-dump-null-root'], 'tree 0 1080 2400\nfocus 0 1080 2400\n'), {
      stdout: 'xagent-ui-reader 1 ready PID\nnone\nnone\n',
      exitCode: 0,
    });
    const unreadable = await answers(['ui-dump-unreadable'], 'tree 0 1080 2400\nfocus 0 1080 2400\nquit\n');
    assert.equal(
      unreadable.stdout,
      `xagent-ui-reader 1 ready PID\nerror java.io.FileNotFoundException: ${DUMP}: open failed: ENOENT (No such file or directory)\nnone\n`,
    );
    const nowhere = await answers(
      [],
      'tree 0 1080 2400\nquit\n',
      START.replace(`'${DUMP}'`, "'/data/local/tmp/nope/d.xml'"),
    );
    assert.deepEqual(nowhere, {
      stdout:
        'xagent-ui-reader 1 ready PID\nerror java.io.FileNotFoundException: /data/local/tmp/nope/d.xml: open failed: ENOENT (No such file or directory)\n',
      exitCode: 0,
    });
    const busy = await answers(['ui-dump-idle-timeout'], 'tree 0 1080 2400');
    assert.match(busy.stdout, /^xagent-ui-reader 1 ready PID\ntree \d+\n<\?xml .*<\/hierarchy>$/s);
    const empty = await answers(['ui-dump-empty'], 'tree 3 1080 2400\nfocus 0 1080 2400\n');
    const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="3" />`;
    assert.equal(empty.stdout, `xagent-ui-reader 1 ready PID\ntree ${xml.length}\n${xml}none\n`);
  });
});

void describe('the UI reader’s timings (usb-phone, virtual time)', { skip: SKIP }, () => {
  test('start = JVM + UiAutomation connect, tree = idle wait + walk, focus ≈ 20 ms', async () => {
    // A wall clock that stands still: the phone's clock moves only by its own (virtual) waits.
    const wall = Date.now();
    const phone = createSimulatedPhone({
      serial: 'uir-time',
      profile: 'usb-phone',
      virtualTime: true,
      clock: () => wall,
    });
    after(() => phone.close());
    phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o100644, Math.floor(Date.now() / 1000));
    const uptime = async (): Promise<number> => {
      const out = await phone.exec('cat /proc/uptime', { signal: AbortSignal.timeout(WAIT_MS) });
      return Math.round(Number(out.stdout.toString().split(' ')[0]) * 1000);
    };
    const lines: string[] = [];
    let output = '';
    let wake: (() => void) | undefined;
    const nextOutput = async (pattern: RegExp): Promise<void> => {
      while (!pattern.test(output)) await new Promise<void>((resolve) => (wake = resolve));
    };
    const requests: string[] = [];
    let give: ((data: Buffer | undefined) => void) | undefined;
    const stdinSource: PhoneStdinSource = {
      read: () =>
        new Promise((resolve) => {
          const next = requests.shift();
          if (next !== undefined) resolve(next === '' ? undefined : Buffer.from(next));
          else give = resolve;
        }),
    };
    const send = (line: string | undefined): void => {
      const data = line === undefined ? undefined : Buffer.from(line);
      if (give) {
        const g = give;
        give = undefined;
        g(data);
      } else requests.push(line ?? '');
    };
    const t0 = await uptime();
    const running = phone.execLive!(START, {
      signal: AbortSignal.timeout(60_000),
      stdinSource,
      onStdout: (chunk) => {
        output += chunk.toString();
        lines.push(chunk.toString());
        wake?.();
      },
    });
    await nextOutput(/ready \d+\n$/);
    const t1 = await uptime();
    // /proc/uptime has 10 ms steps, and each `cat` (toybox) and app_process's own shell step
    // cost 5 ms more: the phone's time lies between the figure and 20 ms above it.
    const within = (took: number, ms: number, what: string): void =>
      assert.ok(took >= ms && took <= ms + 20, `${what} took ${took} ms, expected ${ms}`);
    within(t1 - t0, USB_PHONE_TIMINGS.uiReaderJvmStart + USB_PHONE_TIMINGS.uiReaderConnect, 'start');
    send('tree 0 1080 2400\n');
    await nextOutput(/<\/hierarchy>$/);
    const t2 = await uptime();
    const tree = USB_PHONE_TIMINGS.uiReaderIdleQuiet + USB_PHONE_TIMINGS.helperSource;
    within(t2 - t1, tree, 'tree');
    send('focus 0 1080 2400\n');
    await nextOutput(/none\n$/);
    const t3 = await uptime();
    within(t3 - t2, USB_PHONE_TIMINGS.uiReaderFocus, 'focus');
    send(undefined); // EOF
    const result = await running;
    assert.equal(result.exitCode, 0);
    assert.ok(lines.length >= 3);
  });
});

void describe('which bytes are the reader', { skip: SKIP }, () => {
  test('the phone option uiReaderJar names the file whose bytes run; the repository’s jar then does not', async () => {
    const phone = createSimulatedPhone({ serial: 'uir-other', uiReaderJar: `${JAR}.missing` });
    after(() => phone.close());
    phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o644, Math.floor(Date.now() / 1000));
    const out = await phone.exec(START, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(out.exitCode, 1);
    assert.match(out.stderr.toString(), /ClassNotFoundException: Didn't find class "com\.xagent\.bridge\.UiReader"/);
    assert.equal(phone.uiReader.holdsUiAutomation(), false);
  });
});
