/**
 * `device-bridge sim` and `device-bridge demo`: simulated phones attached to an ADB server,
 * and (demo) a private ADB server plus the bridge, so a newcomer sees everything work
 * without a phone.
 */
import { defaultAdbServer, type Core } from '../core/create-core';
import type { AdbServerAddress } from '../core/config/core-options';
import { parseHostPort, UsageError, type ParsedFlags } from '../cli-args';
import { parseQuirkList, type QuirkName } from './phone-quirks';
import { startPrivateAdbServer, type AdbServerRig } from './private-adb-server';
import { startSimFarm, type SimFarm } from './sim-farm';
import { createSimulatedPhone } from './phone';
import type { TimingProfileName } from './timing-profiles';

/** Starts the bridge on the given ADB server with the command's own bridge flags (demo); resolves to its stop. */
export type StartBridge = (adb: AdbServerAddress) => Promise<Pick<Core, 'stop'>>;

const PROFILES: readonly TimingProfileName[] = ['instant', 'usb-phone'];

const MODELS = ['Pixel 7', 'Pixel 8 Pro', 'Galaxy S23', 'Redmi Note 12', 'OnePlus 11', 'Xperia 5 V'];

/**
 * Starts the phones (and for demo a private ADB server and the bridge); resolves to a stop
 * function once everything is up. Flags are those cli-commands.ts declares for the command.
 */
export async function runSimCommand(
  command: 'sim' | 'demo',
  flags: ParsedFlags,
  startBridge: StartBridge,
): Promise<() => Promise<void>> {
  const count = flags.integer('devices', { min: 1, max: 64 }) ?? (command === 'demo' ? 3 : 1);
  const profile = flags.choice('profile', PROFILES) ?? 'instant';
  const quirks = quirksFlag(flags.value('quirks'));
  const adbFlag = command === 'sim' ? flags.value('adb') : undefined;
  let adb = adbFlag !== undefined ? parseHostPort(adbFlag, '--adb') : defaultAdbServer();
  let privateAdb: AdbServerRig | undefined;
  if (command === 'demo') {
    privateAdb = await startPrivateAdbServer();
    adb = { host: '127.0.0.1', port: privateAdb.port };
  }
  let farm: SimFarm | undefined;
  let core: Pick<Core, 'stop'> | undefined;
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
          quirks,
        }),
    });
    process.stdout.write(
      `${count} simulated phone(s) attached to adb at ${adb.host}:${adb.port}: ${farm.phones.map((p) => p.serial).join(', ')}${quirks.length ? ` (quirks: ${quirks.join(', ')})` : ''}\n`,
    );
    if (command === 'demo') core = await startBridge(adb);
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

/** `--quirks a,b`: every name checked before anything starts; an unknown one is a usage error listing the known ones. */
export function quirksFlag(text: string | undefined): QuirkName[] {
  if (text === undefined) return [];
  try {
    return parseQuirkList(text);
  } catch (error) {
    throw new UsageError('invalid_value', `--quirks: ${error instanceof Error ? error.message : String(error)}`);
  }
}
