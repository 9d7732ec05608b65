/**
 * `device-bridge sim` and `device-bridge demo`: simulated phones attached to an ADB server,
 * and (demo) a private ADB server plus the bridge, so a newcomer sees everything work
 * without a phone.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Core } from '../core/create-core';
import { startPrivateAdbServer, type AdbServerRig } from './private-adb-server';
import { startSimFarm, type SimFarm } from './sim-farm';
import { createSimulatedPhone } from './phone';
import type { TimingProfileName } from './timing-profiles';

type Flags = Map<string, string[]>;

interface CliHelpers {
  parseHostPort: (text: string, defaultPort?: number) => { host: string; port: number };
  defaultAdb: () => { host: string; port: number };
  serve: (flags: Flags) => Promise<Core>;
}

const MODELS = ['Pixel 7', 'Pixel 8 Pro', 'Galaxy S23', 'Redmi Note 12', 'OnePlus 11', 'Xperia 5 V'];

export async function runSimCommand(command: 'sim' | 'demo', flags: Flags, helpers: CliHelpers): Promise<() => Promise<void>> {
  const count = Number(flags.get('devices')?.at(-1) ?? (command === 'demo' ? '3' : '1'));
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new TypeError('--devices must be 1–64');
  const profile = (flags.get('profile')?.at(-1) ?? 'instant') as TimingProfileName;
  if (profile !== 'instant' && profile !== 'usb-phone') throw new TypeError('--profile must be instant or usb-phone');

  let adb = flags.get('adb')?.at(-1) ? helpers.parseHostPort(flags.get('adb')?.at(-1) ?? '') : helpers.defaultAdb();
  let privateAdb: AdbServerRig | undefined;
  if (command === 'demo') {
    privateAdb = await startPrivateAdbServer();
    adb = { host: '127.0.0.1', port: privateAdb.port };
  }
  let farm: SimFarm | undefined;
  let core: Core | undefined;
  try {
    farm = await startSimFarm({
      count,
      adb,
      createPhone: (i) =>
        createSimulatedPhone({
          serial: `SIM${String(i + 1).padStart(4, '0')}X${(0x4f2a + i).toString(16).toUpperCase()}`,
          model: MODELS[i % MODELS.length] ?? 'Pixel 7',
          profile,
          withAdbKeyboard: i % 2 === 0,
        }),
    });
    process.stdout.write(`${count} simulated phone(s) attached to adb at ${adb.host}:${adb.port}: ${farm.phones.map((p) => p.serial).join(', ')}\n`);
    if (command === 'demo') {
      const demoFlags: Flags = new Map(flags);
      demoFlags.set('adb', [`${adb.host}:${adb.port}`]);
      if (!demoFlags.has('data-dir')) demoFlags.set('data-dir', [mkdtempSync(join(tmpdir(), 'device-bridge-demo-'))]);
      if (!demoFlags.has('port')) demoFlags.set('port', ['0']);
      core = await helpers.serve(demoFlags);
    }
  } catch (error) {
    await farm?.stop();
    await privateAdb?.stop();
    throw error;
  }
  return async () => {
    await core?.stop();
    await farm?.stop();
    await privateAdb?.stop();
  };
}
