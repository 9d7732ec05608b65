/**
 * Names the resident helper (appium-uiautomator2-server) is known by on a phone: its two
 * packages, the instrumentation the driver starts, and the device ports its HTTP server
 * (ServerConfig.DEFAULT_SERVER_PORT in the server's public source) and its MJPEG
 * screenshot stream listen on.
 */
export const UIA2_SERVER_PKG = 'io.appium.uiautomator2.server';
export const UIA2_TEST_PKG = 'io.appium.uiautomator2.server.test';
export const UIA2_RUNNER = 'androidx.test.runner.AndroidJUnitRunner';
/**
 * What appium-uiautomator2-driver starts (lib/uiautomator2-server/core.ts):
 * `am instrument -w [--no-window-animation] -e disableAnalytics true` + this component.
 */
export const UIA2_INSTRUMENTATION = `${UIA2_TEST_PKG}/${UIA2_RUNNER}`;
export const UIA2_TEST_CLASS = 'io.appium.uiautomator2.server.test.AppiumUiAutomator2Server';
export const UIA2_DEVICE_PORT = 6790;
/** MjpegScreenshotServer's port (the `mjpegServerPort` setting's default, 7810). */
export const UIA2_MJPEG_PORT = 7810;

/** Packages with no launcher activity: installing them adds no icon to the home screen. */
export const HEADLESS_PACKAGES: ReadonlySet<string> = new Set([UIA2_SERVER_PKG, UIA2_TEST_PKG]);
