/**
 * Part g (#26): a person driving a phone they took over. Timed from the console's request
 * (POST /admin/api/devices/:id/input, what a click in the live view sends) to the moment the
 * simulated phone starts the `input tap` command: the bridge's own share of a click. What the
 * phone then spends on the tap is the phone's own time, reported beside it (the whole request).
 */
import type { Cleanup } from './env';
import { startInProcessBridge, startPhones, waitForDevices } from './env';
import type { Report } from './report';
import { ms, summarize, table } from './stats';
import type { AdbServerRig } from '../test/helpers/adb-server';

export async function takeoverBench(
  report: Report,
  cleanup: Cleanup,
  adb: AdbServerRig,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  report.section('g. Take over: a click in the live view to the tap on the phone');
  const rows: string[][] = [];
  for (const profile of ['instant', 'usb-phone'] as const) {
    log(`g. person taps on the ${profile} phone`);
    const set = await startPhones(cleanup, adb, [profile], profile === 'instant' ? 'GI' : 'GU');
    const phone = set.phones[0];
    if (!phone) throw new Error('no phone');
    const bridge = await startInProcessBridge(cleanup, adb);
    const [deviceId] = await waitForDevices(bridge, [set.serial(0)]);
    const taken = await bridge.admin('POST', `/admin/api/devices/${deviceId}/takeover`, { action: 'take' });
    if (taken.status !== 200) throw new Error(`take over: HTTP ${taken.status}`);
    const reached: number[] = [];
    const whole: number[] = [];
    const samples = quick ? 10 : profile === 'instant' ? 100 : 30;
    // One tap first, not counted: the bridge learns the screen's size once per phone.
    for (let i = -1; i < samples; i += 1) {
      let arrivedAt = 0;
      const onCommand = (argv: string[]): void => {
        if (argv[0] === 'input' && argv.includes('tap') && arrivedAt === 0) arrivedAt = performance.now();
      };
      phone.events.on('command', onCommand);
      const started = performance.now();
      const res = await bridge.admin('POST', `/admin/api/devices/${deviceId}/input`, {
        kind: 'tap',
        x: 100 + (i % 50),
        y: 400,
      });
      const ended = performance.now();
      phone.events.off('command', onCommand);
      if (res.status !== 200) throw new Error(`input: HTTP ${res.status} ${JSON.stringify(res.body)}`);
      if (arrivedAt === 0) throw new Error('the phone never saw the tap');
      if (i < 0) continue;
      reached.push(arrivedAt - started);
      whole.push(ended - started);
    }
    const toPhone = summarize(reached);
    const all = summarize(whole);
    rows.push([
      profile,
      String(toPhone.count),
      ms(toPhone.p50),
      ms(toPhone.p95),
      ms(all.p50),
      toPhone.p50 <= 30 ? 'met' : 'missed',
    ]);
  }
  report.add(
    table(
      [
        'phone profile',
        'n',
        'click → `input tap` starts on the phone, p50',
        'p95',
        'the whole request (with the phone’s own time), p50',
        'goal ≤30 ms + the phone',
      ],
      rows,
    ),
  );
  report.add(
    'Measured from the request the live view sends on a click (loopback HTTP, admin token) to the simulated ' +
      'phone starting `input tap`; the phone’s own time is what the profile charges for the command (`main/sim/TIMING-SOURCES.md`).',
  );
}
