/**
 * `getprop` (every property as `[key]: [value]`, sorted by key), `getprop KEY [DEFAULT]`
 * (the value, or the default, or an empty line), and `wm size` / `wm density`.
 */
import type { CommandIo, PhoneContext, PhoneInfo } from './command-types';

/** The system properties an adb client typically reads, for the phone described by `info`. */
export function buildProps(info: PhoneInfo): Map<string, string> {
  return new Map([
    ['ro.product.model', info.model],
    // Says what this phone is, so the bridge shows "simulated" rather than a LAN phone.
    ['ro.xagent.simulated', '1'],
    ['ro.product.manufacturer', info.manufacturer],
    ['ro.product.brand', info.brand],
    ['ro.product.name', info.product],
    ['ro.product.device', info.device],
    ['ro.product.board', info.device],
    ['ro.product.cpu.abi', 'arm64-v8a'],
    ['ro.product.cpu.abilist', 'arm64-v8a,armeabi-v7a,armeabi'],
    ['ro.product.locale', 'en-US'],
    ['ro.build.version.release', info.androidVersion],
    ['ro.build.version.release_or_codename', info.androidVersion],
    ['ro.build.version.sdk', String(info.sdk)],
    ['ro.build.version.security_patch', '2024-02-05'],
    ['ro.build.version.codename', 'REL'],
    ['ro.build.id', info.buildId],
    ['ro.build.display.id', info.buildId],
    ['ro.build.type', 'user'],
    ['ro.build.tags', 'release-keys'],
    ['ro.build.fingerprint', info.fingerprint],
    ['ro.build.characteristics', 'nosdcard'],
    ['ro.serialno', info.serial],
    ['ro.boot.serialno', info.serial],
    ['ro.hardware', info.device],
    ['ro.sf.lcd_density', String(info.density)],
    ['ro.debuggable', '0'],
    ['ro.secure', '1'],
    ['ro.adb.secure', '1'],
    ['persist.sys.timezone', 'UTC'],
    ['persist.sys.locale', 'en-US'],
    ['sys.boot_completed', '1'],
    ['dev.bootcomplete', '1'],
    ['init.svc.adbd', 'running'],
    ['service.adb.root', '0'],
    ['net.bt.name', 'Android'],
    ['gsm.sim.state', 'ABSENT'],
  ]);
}

export function getpropCommand(io: CommandIo, phone: PhoneContext): number {
  const [, key, fallback] = io.argv;
  if (key === undefined) {
    const keys = [...phone.props.keys()].sort();
    io.out(keys.map((k) => `[${k}]: [${phone.props.get(k) ?? ''}]\n`).join(''));
    return 0;
  }
  io.out(`${phone.props.get(key) ?? fallback ?? ''}\n`);
  return 0;
}

export function wmCommand(io: CommandIo, phone: PhoneContext): number {
  const sub = io.argv[1];
  const d = phone.displays;
  // WindowManagerShellCommand: the natural (rotation 0) size; an override adds its own line.
  if (sub === 'size' && io.argv.length === 2) {
    const p = d.physicalSize();
    const o = d.overrideSize();
    io.out(`Physical size: ${p.width}x${p.height}\n${o ? `Override size: ${o.width}x${o.height}\n` : ''}`);
    return 0;
  }
  if (sub === 'density' && io.argv.length === 2) {
    const o = d.overrideDensity();
    io.out(`Physical density: ${d.physicalDensity()}\n${o !== undefined ? `Override density: ${o}\n` : ''}`);
    return 0;
  }
  if (sub === undefined) {
    io.out(
      'Window manager (window) commands:\n  help\n      Print this help text.\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n    Return or override display size.\n  density [reset|DENSITY] [-d DISPLAY_ID]\n    Return or override display density.\n',
    );
    return 0;
  }
  io.err(`Unknown command: ${io.argv.slice(1).join(' ')}\n`);
  return 255;
}
