/**
 * `dumpsys` for the services an adb client reads: battery, window (focus, display size),
 * activity activities (the resumed activity), power (wakefulness) and input (touch
 * surface orientation). Only the lines clients grep for are faithful; the rest is a short,
 * plausible frame around them.
 */
import type { CommandIo, PhoneContext } from './command-types';
import { dumpsysPackage } from './dumpsys-package';
import { shortComponent } from './intent';
import { defaultDisplayInfo, displayRotationLines, dumpsysDisplay, surfaceFlingerDisplayIds } from './displays';
import { displaySectionFocus, legacyWindowPolicy, windowsSectionTail } from './window-versions';

import { objectId } from './object-id';

export { objectId };

function focus(phone: PhoneContext): { windowToken: string; record: string } {
  const w = phone.screen.window();
  // A system dialog that is no activity (ANR) has its own title; the app's record keeps focus.
  const app = w.focusedApp ?? { pkg: w.pkg, activity: w.activity };
  const full = `${app.pkg}/${app.activity}`;
  const title = w.title ?? `${w.pkg}/${w.activity}`;
  return {
    windowToken: `Window{${objectId(`w:${title}:${w.taskId}`)} u0 ${title}}`,
    record: `ActivityRecord{${objectId(`r:${full}:${w.taskId}`)} u0 ${shortComponent(app.pkg, app.activity)} t${w.taskId}}`,
  };
}

const SEPARATOR = '-'.repeat(80);

function battery(phone: PhoneContext): string {
  const b = phone.battery;
  return [
    'Current Battery Service state:',
    '  AC powered: false',
    `  USB powered: ${b.usbPowered}`,
    '  Wireless powered: false',
    '  Dock powered: false',
    `  Max charging current: ${b.usbPowered ? 500000 : 0}`,
    `  Max charging voltage: ${b.usbPowered ? 5000000 : 0}`,
    `  Charge counter: ${Math.round(b.level * 43000)}`,
    `  status: ${b.usbPowered ? (b.level >= 100 ? 5 : 2) : 3}`,
    '  health: 2',
    '  present: true',
    `  level: ${b.level}`,
    '  scale: 100',
    `  voltage: ${3700 + b.level * 5}`,
    `  temperature: ${b.temperature}`,
    '  technology: Li-ion',
    `  Charging state: ${b.usbPowered ? 1 : 0}`,
    '  Charging policy: 1',
    '  Capacity level: -1',
    '',
  ].join('\n');
}

function windowDisplays(phone: PhoneContext): string {
  const d = phone.displays;
  const { width: w, height: h } = d.logicalSize();
  const natural = d.physicalSize();
  const base = d.naturalLogicalSize();
  const density = d.density();
  const L = phone.screen.layout;
  const appHeight = h - L.navBarHeight;
  const cast = d.castDisplay();
  return [
    'WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)',
    ...(cast
      ? [
          `  Display: mDisplayId=${cast.id}`,
          `    init=${cast.width}x${cast.height} ${cast.density}dpi mMinSizeOfResizeableTaskDp=220 cur=${cast.width}x${cast.height} app=${cast.width}x${cast.height} rng=${cast.height}x${cast.height}-${cast.width}x${cast.width}`,
          '    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion()',
          '',
        ]
      : []),
    '  Display: mDisplayId=0 (organized) rootTasks=2',
    `    init=${natural.width}x${natural.height} ${d.physicalDensity()}dpi mMinSizeOfResizeableTaskDp=220 base=${base.width}x${base.height} ${density}dpi cur=${w}x${h} app=${w}x${appHeight} rng=${Math.min(w, h)}x${Math.min(w, h) - L.statusBarHeight}-${Math.max(w, h)}x${Math.max(w, appHeight)}`,
    `    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,${w},${h}))`,
    '',
    `  mDisplayInfo=${defaultDisplayInfo(phone)}`,
    ...displayRotationLines(phone),
    '',
  ].join('\n');
}

/**
 * The keyguard as Android 10+ dumps it (KeyguardServiceDelegate.dump and its
 * KeyguardStateMonitor); the locked-* quirks show it, `secure` telling a PIN/pattern apart.
 */
function windowPolicy(phone: PhoneContext): string {
  if (phone.info.sdk <= 28) return legacyWindowPolicy(phone);
  const awake = phone.screen.awake;
  const showing = phone.quirks.has('locked-swipe') || phone.quirks.has('locked-pin');
  const secure = phone.quirks.has('locked-pin');
  return [
    'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
    '    mSafeMode=false mSystemReady=true mSystemBooted=true',
    `    mScreenOnEarly=${awake} mScreenOnFully=${awake}`,
    '    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true',
    `    mAwake=${awake}`,
    '    KeyguardServiceDelegate',
    `      showing=${showing}`,
    `      inputRestricted=${showing}`,
    '      occluded=false',
    `      secure=${secure}`,
    '      dreaming=false',
    '      systemIsReady=true',
    '      deviceHasKeyguard=true',
    '      enabled=true',
    '      offReason=OFF_BECAUSE_OF_USER',
    '      currentUser=0',
    '      bootCompleted=true',
    `      screenState=${awake ? 'SCREEN_STATE_ON' : 'SCREEN_STATE_OFF'}`,
    `      interactiveState=${awake ? 'INTERACTIVE_STATE_AWAKE' : 'INTERACTIVE_STATE_SLEEP'}`,
    '      KeyguardStateMonitor',
    `        mIsShowing=${showing}`,
    '        mSimSecure=false',
    `        mInputRestricted=${showing}`,
    '        mTrusted=false',
    '        mCurrentUserId=0',
    '',
  ].join('\n');
}

function windowWindows(phone: PhoneContext): string {
  const f = focus(phone);
  const w = phone.screen.window();
  return [
    'WINDOW MANAGER WINDOWS (dumpsys window windows)',
    `  Window #0 Window{${objectId('NotificationShade')} u0 NotificationShade}:`,
    '    mDisplayId=0 rootTaskId=1 mSession=Session{9a3c2e1 1874:u0a10167} mClient=android.os.BinderProxy@1d2e3f4',
    `  Window #1 Window{${objectId('StatusBar')} u0 StatusBar}:`,
    '    mDisplayId=0 rootTaskId=1 mSession=Session{9a3c2e1 1874:u0a10167} mClient=android.os.BinderProxy@2e3f4a5',
    `  Window #2 ${f.windowToken}:`,
    `    mDisplayId=0 rootTaskId=${w.taskId} mSession=Session{4b5c6d7 4321:u0a10123} mClient=android.os.BinderProxy@3f4a5b6`,
    `    mOwnerUid=10123 showForAllUsers=false package=${w.pkg} appop=NONE`,
    `    mAttrs={(0,0)(fillxfill) sim={adjust=resize forwardNavigation} ty=BASE_APPLICATION fmt=TRANSLUCENT${w.secure ? ' fl=SECURE' : ''}}`,
    `    isOnScreen=${phone.screen.awake} isVisible=${phone.screen.awake}`,
    '',
    // Android 10+ keep the focus lines in the display section; 8–9 end this one with them.
    ...windowsSectionTail(phone, f),
  ].join('\n');
}

function activities(phone: PhoneContext): string {
  const f = focus(phone);
  const lines = [
    'ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)',
    'Display #0 (activities from top to bottom):',
  ];
  const tasks = [...phone.screen.allTasks()].reverse();
  for (const task of tasks) {
    lines.push(
      `  * Task{${objectId(`t:${task.id}`)} #${task.id} type=standard A=10123:${task.app.pkg} U=0 visible=${phone.screen.window().taskId === task.id} mode=fullscreen translucent=false sz=${task.stack.length}}`,
    );
    task.stack
      .map((entry, i) => ({ entry, i }))
      .reverse()
      .forEach(({ entry, i }) => {
        const def = phone.screen.screenDef(task.app, entry);
        const full = `${task.app.pkg}/${def.activity}`;
        lines.push(
          `    * Hist  #${i}: ActivityRecord{${objectId(`r:${full}:${task.id}`)} u0 ${shortComponent(task.app.pkg, def.activity)} t${task.id}}`,
        );
      });
  }
  lines.push(
    '',
    `    mResumedActivity: ${f.record}`,
    `    topResumedActivity=${f.record}`,
    `  ResumedActivity: ${f.record}`,
    '',
    `  mFocusedRootTask=Task{${objectId(`t:${phone.screen.window().taskId}`)} #${phone.screen.window().taskId}}`,
    '',
  );
  return lines.join('\n');
}

function power(phone: PhoneContext): string {
  const awake = phone.screen.awake;
  // Always-on display: a phone that is not awake dozes rather than sleeps.
  const dozing = !awake && phone.quirks.has('dozing');
  return [
    'POWER MANAGER (dumpsys power)',
    '',
    'Power Manager State:',
    '  mDirty=0x0',
    `  mWakefulness=${awake ? 'Awake' : dozing ? 'Dozing' : 'Asleep'}`,
    '  mWakefulnessChanging=false',
    `  mIsPowered=${phone.battery.usbPowered}`,
    `  mPlugType=${phone.battery.usbPowered ? 2 : 0}`,
    `  mBatteryLevel=${phone.battery.level}`,
    '  mStayOn=false',
    '  mProximityPositive=false',
    '  mBootCompleted=true',
    '  mSystemReady=true',
    '  mHoldingWakeLockSuspendBlocker=false',
    `  mHoldingDisplaySuspendBlocker=${awake}`,
    '',
    `Display Power: state=${awake ? 'ON' : dozing ? 'DOZE' : 'OFF'}`,
    '',
  ].join('\n');
}

function input(phone: PhoneContext): string {
  const d = phone.displays;
  const { width: w, height: h } = d.logicalSize();
  const physical = d.orientedPhysicalSize();
  const natural = d.physicalSize();
  const panel = d.activePanel();
  const rotation = d.rotation();
  const cast = d.castDisplay();
  return [
    'INPUT MANAGER (dumpsys input)',
    '',
    'Input Manager State:',
    `  Interactive: ${phone.screen.awake}`,
    '',
    'Input Reader State (Nums of device: 2):',
    '  Device 4: sec_touchscreen',
    '    Sources: TOUCHSCREEN',
    '    Touch Input Mapper (mode - DIRECT):',
    `      Viewport INTERNAL: displayId=0, uniqueId=local:${panel.physicalId}, port=${panel.port}, orientation=${rotation}, logicalFrame=[0, 0, ${w}, ${h}], physicalFrame=[0, 0, ${physical.width}, ${physical.height}], deviceSize=[${natural.width}, ${natural.height}], isActive=[1]`,
    ...(cast
      ? [
          `      Viewport VIRTUAL: displayId=${cast.id}, uniqueId=virtual:${cast.ownerPackage},10139,${cast.name},0, port=<none>, orientation=0, logicalFrame=[0, 0, ${cast.width}, ${cast.height}], physicalFrame=[0, 0, ${cast.width}, ${cast.height}], deviceSize=[${cast.width}, ${cast.height}], isActive=[1]`,
        ]
      : []),
    `      RawSurfaceWidth: ${natural.width}px`,
    `      RawSurfaceHeight: ${natural.height}px`,
    '      SurfaceLeft: 0',
    '      SurfaceTop: 0',
    `      SurfaceRight: ${physical.width}`,
    `      SurfaceBottom: ${physical.height}`,
    `      SurfaceOrientation: ${rotation}`,
    '',
  ].join('\n');
}

export function dumpsysCommand(io: CommandIo, phone: PhoneContext): number {
  const [, service, section] = io.argv;
  switch (service) {
    case 'battery':
      io.out(battery(phone));
      return 0;
    case 'window':
      if (section === 'windows' || section === 'w') io.out(windowWindows(phone));
      else if (section === 'displays' || section === 'd')
        io.out(windowDisplays(phone) + displaySectionFocus(phone, focus(phone)));
      else if (section === 'policy' || section === 'p') io.out(windowPolicy(phone));
      else
        io.out(
          [
            windowPolicy(phone),
            windowDisplays(phone) + displaySectionFocus(phone, focus(phone)),
            windowWindows(phone),
          ].join(`${SEPARATOR}\n`),
        );
      return 0;
    case 'activity':
      io.out(activities(phone));
      return 0;
    case 'power':
      io.out(power(phone));
      return 0;
    case 'input':
      io.out(input(phone));
      return 0;
    case 'package':
      return dumpsysPackage(io, phone, section);
    case 'display':
      io.out(dumpsysDisplay(phone));
      return 0;
    case 'SurfaceFlinger':
      // Only the --display-id listing is simulated; the full dump is many kilobytes of layers.
      if (section === '--display-id') io.out(surfaceFlingerDisplayIds(phone));
      else io.out(`Display ${phone.displays.activePanel().physicalId} (HWC display 0)\n`);
      return 0;
    case undefined:
      io.out(
        'Currently running services:\n  SurfaceFlinger\n  activity\n  battery\n  display\n  input\n  power\n  window\n',
      );
      return 0;
    default:
      io.err(`Can't find service: ${service}\n`);
      return 0;
  }
}
