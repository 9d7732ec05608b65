/**
 * Rotation and several displays on simulated phones (main/sim/QUIRKS.md: landscape,
 * reverse-landscape, landscape-tablet, wm-size-override, wm-density-override, foldable,
 * cast-second-display): the exact lines real phones print, and the rule they all follow —
 * screenshot pixels, `input` coordinates and dump bounds are the logical display in its
 * current orientation (at its override size), while `wm size` prints the natural size.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { boundsOf, center, dump, findNode, newPhone, sh } from './phone-test-kit';
import { MULTIPLE_DISPLAYS_WARNING } from '../../main/sim/commands/screencap';
import { createServiceResolver } from '../../main/sim/adbd-services';

async function pngSize(png: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(png).metadata();
  return { width: meta.width ?? 0, height: meta.height ?? 0 };
}

describe('rotation quirks', () => {
  test('landscape: wm size keeps the natural size; dumpsys input, dumpsys window, settings and the dump say rotation 1; pixels and bounds are landscape', async () => {
    const phone = newPhone({ quirks: ['landscape'] });
    assert.equal((await sh(phone, 'wm size')).stdout, 'Physical size: 1080x2400\n');
    const input = (await sh(phone, 'dumpsys input')).stdout;
    assert.match(
      input,
      /Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=1, logicalFrame=\[0, 0, 2400, 1080\], physicalFrame=\[0, 0, 2400, 1080\], deviceSize=\[1080, 2400\]/,
    );
    assert.match(input, /^ {6}SurfaceOrientation: 1$/m);
    const window = (await sh(phone, 'dumpsys window displays')).stdout;
    assert.match(window, /^ {6}mRotation=1 mDeferredRotationPauseCount=0$/m);
    assert.match(window, /cur=2400x1080 /);
    assert.match(window, /mUserRotation=ROTATION_90 /);
    assert.equal((await sh(phone, 'settings get system user_rotation')).stdout, '1\n');
    const raw = await sh(phone, 'uiautomator dump /dev/tty');
    assert.match(raw.stdout, /<hierarchy rotation="1">/);
    const nodes = await dump(phone);
    assert.equal(nodes[0]?.bounds, '[0,0][2400,1080]');
    assert.deepEqual(await pngSize((await sh(phone, 'screencap -p')).raw), { width: 2400, height: 1080 });
  });

  test('reverse-landscape: rotation 3 everywhere', async () => {
    const phone = newPhone({ quirks: ['reverse-landscape'] });
    assert.match((await sh(phone, 'dumpsys input')).stdout, /orientation=3, logicalFrame=\[0, 0, 2400, 1080\]/);
    assert.match((await sh(phone, 'dumpsys window displays')).stdout, /mUserRotation=ROTATION_270 /);
    assert.match((await sh(phone, 'uiautomator dump /dev/tty')).stdout, /<hierarchy rotation="3">/);
    assert.equal((await sh(phone, 'settings get system user_rotation')).stdout, '3\n');
  });

  test('landscape-tablet: natural size 2560x1600 at rotation 0; landscape pixels without turning', async () => {
    const phone = newPhone({ quirks: ['landscape-tablet'] });
    assert.equal((await sh(phone, 'wm size')).stdout, 'Physical size: 2560x1600\n');
    assert.equal((await sh(phone, 'wm density')).stdout, 'Physical density: 320\n');
    assert.match((await sh(phone, 'dumpsys input')).stdout, /orientation=0, logicalFrame=\[0, 0, 2560, 1600\]/);
    assert.match(
      (await sh(phone, 'dumpsys window displays')).stdout,
      /mLandscapeRotation=ROTATION_0 mSeascapeRotation=ROTATION_180/,
    );
    assert.match(
      (await sh(phone, 'uiautomator dump /dev/tty')).stdout,
      /<hierarchy rotation="0"><node [^>]*bounds="\[0,0\]\[2560,1600\]"/,
    );
    assert.deepEqual(await pngSize((await sh(phone, 'screencap -p')).raw), { width: 2560, height: 1600 });
  });

  test('wm-size-override and wm-density-override: two lines each; apps, pixels and taps use the override', async () => {
    const phone = newPhone({ quirks: ['wm-size-override', 'wm-density-override'] });
    assert.equal((await sh(phone, 'wm size')).stdout, 'Physical size: 1080x2400\nOverride size: 810x1800\n');
    assert.equal((await sh(phone, 'wm density')).stdout, 'Physical density: 420\nOverride density: 360\n');
    assert.match(
      (await sh(phone, 'dumpsys input')).stdout,
      /logicalFrame=\[0, 0, 810, 1800\], physicalFrame=\[0, 0, 1080, 2400\], deviceSize=\[1080, 2400\]/,
    );
    assert.match(
      (await sh(phone, 'dumpsys window displays')).stdout,
      /init=1080x2400 420dpi mMinSizeOfResizeableTaskDp=220 base=810x1800 360dpi cur=810x1800 /,
    );
    assert.deepEqual(await pngSize((await sh(phone, 'screencap -p')).raw), { width: 810, height: 1800 });
    // A tap at the centre of a dumped element hits that element (hit-testing in the override space).
    const nodes = await dump(phone);
    const settings = findNode(nodes, (n) => n.text === 'Settings');
    const c = center(settings);
    assert.ok(boundsOf(nodes[0]!).right === 810);
    assert.equal((await sh(phone, `input tap ${c.x} ${c.y}`)).exitCode, 0);
    assert.equal(phone.foregroundPackage(), 'com.android.settings');
  });

  test('a quirk set while the phone runs turns it: the next dump is landscape, setQuirks([]) turns it back', async () => {
    const phone = newPhone();
    assert.match(
      (await sh(phone, 'uiautomator dump /dev/tty')).stdout,
      /<hierarchy rotation="0"><node [^>]*bounds="\[0,0\]\[1080,2400\]"/,
    );
    phone.setQuirks(['landscape']);
    assert.match(
      (await sh(phone, 'uiautomator dump /dev/tty')).stdout,
      /<hierarchy rotation="1"><node [^>]*bounds="\[0,0\]\[2400,1080\]"/,
    );
    phone.setQuirks([]);
    assert.equal((await sh(phone, 'settings get system user_rotation')).stdout, '0\n');
    assert.match(
      (await sh(phone, 'uiautomator dump /dev/tty')).stdout,
      /<hierarchy rotation="0"><node [^>]*bounds="\[0,0\]\[1080,2400\]"/,
    );
  });
});

describe('several displays', () => {
  test('foldable: SurfaceFlinger lists both panels; screencap without -d warns on stderr (Android 14) and captures the first, unused panel black', async () => {
    const phone = newPhone({ quirks: ['foldable'] });
    assert.equal(
      (await sh(phone, 'dumpsys SurfaceFlinger --display-id')).stdout,
      'Display 4619827677550801152 (HWC display 0): port=0 pnpId=GGL displayName="Common Panel"\nDisplay 4619827677550801153 (HWC display 1): port=1 pnpId=GGL displayName="Common Panel"\n',
    );
    assert.equal(
      MULTIPLE_DISPLAYS_WARNING,
      '[Warning] Multiple displays were found, but no display id was specified! Defaulting to the first display found, however this default is not guaranteed to be consistent across captures. A display id should be specified.\n' +
        'A display ID can be specified with the [-d display-id] option.\n' +
        'See "dumpsys SurfaceFlinger --display-id" for valid display IDs.\n',
    );
    const bare = await sh(phone, 'screencap -p');
    assert.equal(bare.exitCode, 0);
    assert.equal(bare.stderr, MULTIPLE_DISPLAYS_WARNING);
    const inner = await sharp(bare.raw).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([inner.info.width, inner.info.height], [2208, 1840]);
    assert.ok(
      inner.data.every((v, i) => (i % inner.info.channels === 3 ? true : v === 0)),
      'the folded inner panel captures black',
    );
    // Aimed at the outer panel (display 0 while folded): the phone's screen, no warning.
    const outer = await sh(phone, 'screencap -p -d 4619827677550801153');
    assert.equal(outer.stderr, '');
    assert.deepEqual(await pngSize(outer.raw), { width: 1080, height: 2092 });
    assert.equal((await sh(phone, 'wm size')).stdout, 'Physical size: 1080x2092\n');
    // Unknown ids fail as SurfaceFlinger does; a non-number is refused by screencap itself.
    assert.deepEqual(await sh(phone, 'screencap -p -d 42').then((r) => [r.exitCode, r.stderr]), [
      1,
      'Failed to take screenshot. Status: -2\n',
    ]);
    assert.deepEqual(await sh(phone, 'screencap -d outer').then((r) => [r.exitCode, r.stderr]), [
      1,
      'Invalid display ID: Out of range [0, 2^64).\n',
    ]);
  });

  test('foldable: dumpsys display names both panels and which one backs display 0; unfolding swaps them', async () => {
    const phone = newPhone({ quirks: ['foldable'] });
    const folded = (await sh(phone, 'dumpsys display')).stdout;
    assert.match(
      folded,
      /DisplayDeviceInfo\{"Built-in Screen": uniqueId="local:4619827677550801152", 2208 x 1840, [^\n]*state OFF,/,
    );
    assert.match(
      folded,
      /DisplayDeviceInfo\{"Built-in Screen": uniqueId="local:4619827677550801153", 1080 x 2092, [^\n]*state ON,/,
    );
    assert.match(
      folded,
      /mBaseDisplayInfo=DisplayInfo\{"Built-in Screen", displayId 0, [^\n]*real 1080 x 2092, [^\n]*state ON, type INTERNAL, uniqueId "local:4619827677550801153"/,
    );
    phone.setFolded(false);
    const open = (await sh(phone, 'dumpsys display')).stdout;
    assert.match(
      open,
      /mBaseDisplayInfo=DisplayInfo\{"Built-in Screen", displayId 0, [^\n]*real 2208 x 1840, [^\n]*uniqueId "local:4619827677550801152"/,
    );
    assert.deepEqual(await pngSize((await sh(phone, 'screencap -p -d 4619827677550801152')).raw), {
      width: 2208,
      height: 1840,
    });
    assert.match(
      (await sh(phone, 'uiautomator dump /dev/tty')).stdout,
      /<hierarchy rotation="0"><node [^>]*bounds="\[0,0\]\[2208,1840\]"/,
    );
  });

  test('exec: carries screencap’s stderr in front of the image, as adbd does without the shell protocol', async () => {
    // Through the service resolver the host talks to: the bytes an `adb exec-out screencap -p` gets.
    const phone = newPhone({ quirks: ['foldable'] });
    const handler = createServiceResolver(phone)('exec:screencap -p');
    assert.ok(handler);
    const chunks: Buffer[] = [];
    await handler({
      write: async (data: Buffer) => void chunks.push(data),
      close: () => undefined,
      signal: new AbortController().signal,
      closed: new Promise(() => undefined),
    } as never);
    const bytes = Buffer.concat(chunks);
    assert.equal(bytes.subarray(0, MULTIPLE_DISPLAYS_WARNING.length).toString('latin1'), MULTIPLE_DISPLAYS_WARNING);
    assert.deepEqual(
      [...bytes.subarray(MULTIPLE_DISPLAYS_WARNING.length, MULTIPLE_DISPLAYS_WARNING.length + 4)],
      [0x89, 0x50, 0x4e, 0x47],
    );
  });

  test('cast-second-display: display 2 in dumpsys display and dumpsys window; touches sent to it never reach the phone’s screen', async () => {
    const phone = newPhone({ quirks: ['cast-second-display'] });
    const displays = (await sh(phone, 'dumpsys display')).stdout;
    assert.match(displays, /Logical Displays: size=2/);
    assert.match(
      displays,
      /DisplayInfo\{"Living Room TV", displayId 2, [^\n]*real 1920 x 1080, [^\n]*state ON, type VIRTUAL/,
    );
    assert.match((await sh(phone, 'dumpsys window displays')).stdout, /^ {2}Display: mDisplayId=2$/m);
    // One physical panel: screencap has nothing to warn about.
    assert.equal((await sh(phone, 'screencap -p')).stderr, '');
    const settings = center(findNode(await dump(phone), (n) => n.text === 'Settings'));
    const version = phone.screenState().version;
    assert.equal((await sh(phone, `input -d 2 tap ${settings.x} ${settings.y}`)).exitCode, 0);
    assert.equal(phone.screenState().version, version, 'nothing changed on the phone');
    assert.equal((await sh(phone, `input -d 0 tap ${settings.x} ${settings.y}`)).exitCode, 0);
    assert.equal(phone.foregroundPackage(), 'com.android.settings');
  });
});
