/**
 * The typed library of device operations over a DeviceShell: what the android_* tools call.
 * Every operation builds an argv itself (no free-form command strings), takes
 * `{ timeoutMs, signal }` and reports failures as BridgeError with a stable code.
 */
export { quoteShellArg, buildCommandLine, OperationDeadline } from '../devices/shell-quote';
export type { OperationOptions } from '../devices/shell-quote';
export { KEY_NAMES, keyCode, isKeyName } from './keys';
export type { KeyName } from './keys';
export {
  tap,
  longPress,
  swipe,
  dragAndDrop,
  pressKey,
  pressKeys,
  assertInsideScreen,
  assertGestureDuration,
  MIN_GESTURE_MS,
  MAX_GESTURE_MS,
} from './input';
export type { Point, ScreenSize, InputOptions, PressKeyOptions } from './input';
export {
  typeText,
  clearField,
  detectUnicodeIme,
  isUnicodeImeSelected,
  needsUnicodeIme,
  planAsciiTyping,
  planImeTyping,
  MAX_TEXT_LENGTH,
  ADB_KEYBOARD_IME,
} from './text-input';
export type { TypeTextOptions, TypeTextResult, ClearFieldOptions } from './text-input';
export {
  listPackages,
  launchApp,
  stopApp,
  openUrl,
  isPackageInstalled,
  isValidPackageName,
  isValidActivityName,
  assertPackageName,
  assertActivityName,
  parsePackageList,
  clearAppData,
} from './apps';
export type { ListPackagesOptions } from './apps';
export {
  parsePackagePermissions,
  readPackagePermissions,
  setRuntimePermission,
  shellException,
  isValidPermissionName,
} from './app-permissions';
export type { PackagePermissions, RuntimePermissionState, PermissionChange } from './app-permissions';
export {
  readDeviceStatus,
  readScreenSize,
  readOrientedScreenSize,
  readRotation,
  orientedSize,
  parseGetprop,
  devicePropsFrom,
  parseWmSize,
  parseWmDensity,
  parseBattery,
  parseScreenOn,
  parseForegroundApp,
  parseInputRotation,
} from './device-info';
export type {
  DeviceStatus,
  DeviceProps,
  ScreenInfo,
  BatteryInfo,
  BatteryStatus,
  ForegroundApp,
  Rotation,
} from './device-info';
export {
  dumpUiXml,
  readUiTree,
  extractHierarchyXml,
  parseUiXml,
  decodeXmlEntities,
  compactTree,
  isInteractive,
  findElements,
  findElement,
  screenSignature,
} from './ui-tree';
export type { UiNode, UiDumpOptions, CompactTree, CompactTreeOptions, ElementSelector } from './ui-tree';
export { captureRaw, capturePng, decodeRawScreencap, isSecureBlackFrame, PIXEL_FORMAT } from './screencap';
export type { RawFrame, SecureFrameOptions } from './screencap';
export { recordScreenChunks, chunkPlan, screenRecordArgv, looksLikeMp4, MAX_RECORD_SECONDS } from './screen-record';
export type { RecordScreenOptions } from './screen-record';
