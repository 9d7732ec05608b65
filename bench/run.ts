/**
 * `npm run bench [-- --quick]`: the speed figures of issues #5 and #6, measured through the
 * whole path on simulated phones and a private real adb server, printed as tables and
 * written to bench/results.md. Every process, server and temporary directory it starts is
 * stopped at the end, after an error and on Ctrl-C too.
 */
import { join } from 'node:path';
import { Cleanup, bindChannel, connectClient, startAdb, startInProcessBridge, startPhones, waitForDevices } from './env';
import { measureLatency, type LatencyRow, type SampleCounts } from './latency';
import { Report, machineInfo } from './report';
import { ms, pct, signedMs, table } from './stats';

const QUICK = process.argv.includes('--quick');
const RESULTS = join(__dirname, 'results.md');

/** Sample counts per timing profile; usb-phone calls take 0.1–2 s each, so fewer. */
const LATENCY_SAMPLES: Record<'instant' | 'usb-phone', SampleCounts> = QUICK
  ? { instant: { tap: 60, status: 40, uiTree: 30, screenshot: 12 }, 'usb-phone': { tap: 8, status: 10, uiTree: 0, screenshot: 5 } }
  : { instant: { tap: 300, status: 200, uiTree: 150, screenshot: 50 }, 'usb-phone': { tap: 30, status: 40, uiTree: 6, screenshot: 15 } };

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Goal (issue #5): at p50 the bridge adds at most 10 % and at most 2 ms. */
function latencyTable(rows: LatencyRow[]): string {
  return table(
    ['tool', 'direct adbkit command', 'n', 'adbkit p50', 'bridge p50', 'added p50', 'added %', 'adbkit p95', 'bridge p95', 'goal ≤2 ms & ≤10%'],
    rows.map((r) => {
      const added = r.bridge.p50 - r.adbkit.p50;
      const ratio = (added / r.adbkit.p50) * 100;
      return [
        r.tool,
        r.direct,
        String(r.bridge.count),
        ms(r.adbkit.p50),
        ms(r.bridge.p50),
        signedMs(added),
        pct(ratio),
        ms(r.adbkit.p95),
        ms(r.bridge.p95),
        added <= 2 && ratio <= 10 ? 'met' : added <= 2 ? 'ms met, % missed' : 'missed',
      ];
    }),
  );
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const onSignal = (): void => {
    log('interrupted; cleaning up');
    void cleanup.runAll().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const report = new Report(machineInfo(), QUICK ? 'quick' : 'full');
  const started = Date.now();
  let failed: unknown;
  try {
    log('starting a private adb server and two simulated phones (instant, usb-phone)');
    const adb = await startAdb(cleanup);
    const pair = await startPhones(cleanup, adb, ['instant', 'usb-phone'], 'A');
    const bridge = await startInProcessBridge(cleanup, adb);
    const [instantId, usbId] = await waitForDevices(bridge, [pair.serial(0), pair.serial(1)]);
    const client = await connectClient(cleanup, bridge, 'bench client');
    const channels = {
      instant: await bindChannel(bridge, client, instantId!),
      'usb-phone': await bindChannel(bridge, client, usbId!),
    };

    report.section('a. One call: bridge vs the same adb command through adbkit');
    report.add(
      'Each tool through the whole bridge (WebSocket → queue → adbkit → adb → phone → ack), in this process, against the ' +
        'same adb commands issued directly through adbkit on the same adb server and phone, alternating call by call after warm-up.',
    );
    for (const profile of ['instant', 'usb-phone'] as const) {
      log(`a. latency, ${profile} phone`);
      const index = profile === 'instant' ? 0 : 1;
      const rows = await measureLatency(
        { client, channelId: channels[profile], adbPort: adb.port, serial: pair.serial(index), phone: pair.phones[index]! },
        LATENCY_SAMPLES[profile],
        log,
      );
      report.add(`**${profile} phone**\n\n${latencyTable(rows)}`);
    }
  } catch (error) {
    failed = error;
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    report.section('Bench failed');
    report.add(`The run stopped early: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    log('cleaning up');
    await cleanup.runAll();
  }
  report.add(`Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  report.write(RESULTS);
  log(`written ${RESULTS}`);
  process.exitCode = failed ? 1 : 0;
}

void main();
