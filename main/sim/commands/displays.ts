/**
 * The display dumps an adb client reads to learn which displays a phone has, which is on,
 * how it is turned and at what size: `dumpsys display` (DisplayManagerService: viewports,
 * display devices with `uniqueId "local:<physical id>"`, logical displays with their
 * DisplayInfo), `dumpsys SurfaceFlinger --display-id`, and the rotation lines of
 * `dumpsys window displays` (DisplayRotation). Formats follow Android 12–14 dumps quoted in
 * public threads (nikp123/scrcpy-desktop#1, AirtestProject/Airtest#796,
 * MaaAssistantArknights#11516, mobile-next/mobile-mcp#158); lines clients do not read are
 * left out.
 */
import type { PhoneContext } from './command-types';
import type { SimPanel } from '../phone-displays';

const ROTATION_NAMES = ['ROTATION_0', 'ROTATION_90', 'ROTATION_180', 'ROTATION_270'] as const;

function panelState(phone: PhoneContext, panel: SimPanel): 'ON' | 'OFF' {
  const active = phone.displays.activePanel().physicalId === panel.physicalId;
  return active && phone.screen.awake ? 'ON' : 'OFF';
}

/** DisplayInfo.toString() of logical display 0 (the fields clients parse, in Android's order). */
export function defaultDisplayInfo(phone: PhoneContext): string {
  const d = phone.displays;
  const { width: w, height: h } = d.logicalSize();
  const density = d.density();
  const L = phone.screen.layout;
  const appH = h - L.navBarHeight;
  const panel = d.activePanel();
  return (
    `DisplayInfo{"Built-in Screen", displayId 0, displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real ${w} x ${h}, largest app ${Math.max(w, appH)} x ${Math.max(w, appH)}, smallest app ${Math.min(w, appH)} x ${Math.min(w, appH)}, ` +
    `appVsyncOff 7500000, presDeadline 12666666, mode 1, defaultMode 1, modes [{id=1, width=${panel.width}, height=${panel.height}, fps=60.0}], rotation ${d.rotation()}, state ${phone.screen.awake ? 'ON' : 'OFF'}, type INTERNAL, ` +
    `uniqueId "local:${panel.physicalId}", app ${w} x ${appH}, density ${density} (${density}.0 x ${density}.0) dpi}`
  );
}

function castDisplayInfo(phone: PhoneContext): string | undefined {
  const c = phone.displays.castDisplay();
  if (!c) return undefined;
  return (
    `DisplayInfo{"${c.name}", displayId ${c.id}, displayGroupId 0, FLAG_PRESENTATION, real ${c.width} x ${c.height}, largest app ${c.width} x ${c.width}, smallest app ${c.height} x ${c.height}, ` +
    `appVsyncOff 0, presDeadline 16666666, mode ${c.id + 1}, defaultMode ${c.id + 1}, modes [{id=${c.id + 1}, width=${c.width}, height=${c.height}, fps=60.0}], rotation 0, state ON, type VIRTUAL, ` +
    `uniqueId "virtual:${c.ownerPackage},10139,${c.name},0", app ${c.width} x ${c.height}, density ${c.density} (${c.density}.0 x ${c.density}.0) dpi, owner ${c.ownerPackage} (uid 10139)}`
  );
}

/** `dumpsys display` */
export function dumpsysDisplay(phone: PhoneContext): string {
  const d = phone.displays;
  const panels = d.panels();
  const active = d.activePanel();
  const logical = d.logicalSize();
  const physical = d.orientedPhysicalSize();
  const natural = d.physicalSize();
  const cast = d.castDisplay();
  const viewports = [
    `DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:${active.physicalId}', physicalPort=${active.port}, orientation=${d.rotation()}, logicalFrame=Rect(0, 0 - ${logical.width}, ${logical.height}), physicalFrame=Rect(0, 0 - ${physical.width}, ${physical.height}), deviceWidth=${natural.width}, deviceHeight=${natural.height}}`,
    ...(cast
      ? [
          `DisplayViewport{type=VIRTUAL, valid=true, isActive=true, displayId=${cast.id}, uniqueId='virtual:${cast.ownerPackage},10139,${cast.name},0', physicalPort=null, orientation=0, logicalFrame=Rect(0, 0 - ${cast.width}, ${cast.height}), physicalFrame=Rect(0, 0 - ${cast.width}, ${cast.height}), deviceWidth=${cast.width}, deviceHeight=${cast.height}}`,
        ]
      : []),
  ];
  const lines = [
    'DISPLAY MANAGER (dumpsys display)',
    '  mOnlyCode=false',
    '  mSafeMode=false',
    '  mPendingTraversal=false',
    `  mViewports=[${viewports.join(', ')}]`,
    '  mDefaultDisplayDefaultColorMode=0',
    '  mWifiDisplayScanRequestCount=0',
    `  mStableDisplaySize=Point(${natural.width}, ${natural.height})`,
    '',
    `Display States: size=${d.logicalIds().length}`,
    '  Display Id=0',
    `  Display State=${phone.screen.awake ? 'ON' : 'OFF'}`,
    ...(cast ? [`  Display Id=${cast.id}`, '  Display State=ON'] : []),
    '',
    `Display Devices: size=${panels.length + (cast ? 1 : 0)}`,
  ];
  for (const p of panels) {
    lines.push(
      `  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:${p.physicalId}", ${p.width} x ${p.height}, modeId 1, defaultModeId 1, supportedModes [{id=1, width=${p.width}, height=${p.height}, fps=60.0}], density ${p.density}, ${p.density}.0 x ${p.density}.0 dpi, appVsyncOff 7500000, presDeadline 12666666, touch INTERNAL, rotation 0, type INTERNAL, address {port=${p.port}, model=0x0}, state ${panelState(phone, p)}, committedState ${panelState(phone, p)}, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}`,
      `    mAdapter=LocalDisplayAdapter`,
      `    mUniqueId=local:${p.physicalId}`,
      `    mCurrentLayerStack=${p.physicalId === active.physicalId ? 0 : -1}`,
      `    mPhysicalDisplayId=${p.physicalId}`,
    );
  }
  if (cast) {
    lines.push(
      `  DisplayDeviceInfo{"${cast.name}": uniqueId="virtual:${cast.ownerPackage},10139,${cast.name},0", ${cast.width} x ${cast.height}, modeId ${cast.id + 1}, defaultModeId ${cast.id + 1}, supportedModes [{id=${cast.id + 1}, width=${cast.width}, height=${cast.height}, fps=60.0}], density ${cast.density}, ${cast.density}.0 x ${cast.density}.0 dpi, touch NONE, rotation 0, type VIRTUAL, owner ${cast.ownerPackage} (uid 10139), state ON, committedState ON, FLAG_PRESENTATION}`,
      `    mAdapter=VirtualDisplayAdapter`,
    );
  }
  lines.push(
    '',
    `Logical Displays: size=${d.logicalIds().length}`,
    '  Display 0:',
    '    mDisplayId=0',
    '    mIsEnabled=true',
    '    mLayerStack=0',
    '    mHasContent=true',
    `    mPrimaryDisplayDevice=Built-in Screen`,
    `    mBaseDisplayInfo=${defaultDisplayInfo(phone)}`,
    `    mOverrideDisplayInfo=${defaultDisplayInfo(phone)}`,
  );
  const castInfo = castDisplayInfo(phone);
  if (cast && castInfo) {
    lines.push(
      `  Display ${cast.id}:`,
      `    mDisplayId=${cast.id}`,
      '    mIsEnabled=true',
      `    mLayerStack=${cast.id}`,
      '    mHasContent=true',
      `    mPrimaryDisplayDevice=${cast.name}`,
      `    mBaseDisplayInfo=${castInfo}`,
      `    mOverrideDisplayInfo=${castInfo}`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

/** `dumpsys SurfaceFlinger --display-id`: one line per physical display (mobile-mcp#158's format). */
export function surfaceFlingerDisplayIds(phone: PhoneContext): string {
  return phone.displays
    .panels()
    .map((p) => `Display ${p.physicalId} (HWC display ${p.hwc}): port=${p.port} pnpId=GGL displayName="Common Panel"\n`)
    .join('');
}

/** The rotation block of `dumpsys window displays` (DisplayRotation.dump, Android 12+). */
export function displayRotationLines(phone: PhoneContext): string[] {
  const rotation = phone.displays.rotation();
  const natural = phone.displays.physicalSize();
  const landscapeNatural = natural.width > natural.height;
  return [
    '    DisplayRotation',
    '      mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED',
    `      mRotation=${rotation} mDeferredRotationPauseCount=0`,
    `      mLandscapeRotation=${landscapeNatural ? 'ROTATION_0' : 'ROTATION_90'} mSeascapeRotation=${landscapeNatural ? 'ROTATION_180' : 'ROTATION_270'}`,
    `      mPortraitRotation=${landscapeNatural ? 'ROTATION_270' : 'ROTATION_0'} mUpsideDownRotation=${landscapeNatural ? 'ROTATION_90' : 'ROTATION_180'}`,
    `      mUserRotationMode=USER_ROTATION_LOCKED mUserRotation=${ROTATION_NAMES[rotation]} mCameraRotationMode=0 mAllowAllRotations=unknown`,
  ];
}
