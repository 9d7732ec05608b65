/**
 * `node --import tsx bench/scrcpy.ts`: the scrcpy input lane (main/core/scrcpy/) against stock
 * `input` on one `usb-phone` simulated phone behind a private real adb server: a tap and typing
 * "你好，世界" (scrcpy: paste; stock: `input text` of ASCII, since stock cannot type Chinese
 * without a keyboard app). p50 of N samples each, side by side in one run. Stops everything it starts.
 */
import Adb from '@devicefarmer/adbkit';
import { AdbDeviceShell } from '../main/core/devices/adb-device-shell';
import { ScrcpyInputSession } from '../main/core/scrcpy/scrcpy-input-session';
import { createSimulatedPhone } from '../main/sim/phone';
import { startSimFarm } from '../main/sim/sim-farm';
import { startAdbServer } from '../test/helpers/adb-server';

const SAMPLES = 10;
const CALL = { timeoutMs: 10_000 };

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function timed(work: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await work();
    out.push(performance.now() - t);
  }
  return out;
}

async function main(): Promise<void> {
  const adb = await startAdbServer();
  const farm = await startSimFarm({
    count: 1,
    adb: { host: '127.0.0.1', port: adb.port },
    createPhone: () => createSimulatedPhone({ serial: 'BENCHSCRCPY', withAdbKeyboard: false, profile: 'usb-phone' }),
  });
  let lane: ScrcpyInputSession | undefined;
  try {
    const shell = new AdbDeviceShell(
      Adb.createClient({ host: '127.0.0.1', port: adb.port, bin: '/bin/false' }),
      farm.phones[0]?.serial ?? '',
    );
    const started = performance.now();
    lane = await ScrcpyInputSession.start(shell, { screen: { width: 1080, height: 2400 }, timeoutMs: 20_000 });
    const startMs = performance.now() - started;
    const l = lane;
    const scrcpyTap = await timed(() => l.tap(540, 1200, CALL));
    const stockTap = await timed(() => shell.run(['input', 'tap', '540', '1200'], CALL));
    const scrcpyType = await timed(() => l.typeText('你好，世界', CALL));
    const stockType = await timed(() => shell.run(['input', 'text', 'hello%sworld'], CALL));
    const row = (name: string, a: number[], b: number[]): string =>
      `| ${name} | ${p50(a).toFixed(1)} | ${p50(b).toFixed(1)} | ${(p50(a) / p50(b)).toFixed(3)}× |`;
    console.log(`scrcpy-server start (push checked, JVM, connect, first barrier): ${startMs.toFixed(0)} ms`);
    console.log('| usb-phone, p50 ms | scrcpy lane | stock `input` | ratio |\n|---|---|---|---|');
    console.log(row('tap', scrcpyTap, stockTap));
    console.log(row('type "你好，世界" (stock: `input text hello%sworld`)', scrcpyType, stockType));
  } finally {
    await lane?.stop();
    await farm.stop();
    await adb.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
