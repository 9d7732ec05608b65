/**
 * Which display the bridge acts on (android/displays.ts) and what it does to screencap's
 * output (android/screencap.ts, tools/display-tracker.ts): parsing `dumpsys display`, picking
 * the display in use, aiming argv at it, stripping Android 14's multiple-display warning and
 * reading a frame's size.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aimAtDisplay,
  displayRef,
  isMultiDisplay,
  parseDumpsysDisplay,
  pickDisplay,
  type DisplayTarget,
} from '../../main/core/android/displays';
import { decodeRawScreencap, stripScreencapNotices } from '../../main/core/android/screencap';
import { frameSize } from '../../main/core/tools/display-tracker';
import { createSimulatedPhone } from '../../main/sim/phone';
import { MULTIPLE_DISPLAYS_WARNING } from '../../main/sim/commands/screencap';
import { FOLD_INNER, FOLD_OUTER } from '../../main/sim/phone-displays';

function info(id: number, name: string, rest: string): string {
  return `    mOverrideDisplayInfo=DisplayInfo{"${name}", displayId ${id}, displayGroupId 0, ${rest}}`;
}

/** An Android 12 phone with one display; the physical id is the short `local:0` some builds print. */
const ONE_DISPLAY = [
  'DISPLAY MANAGER (dumpsys display)',
  "  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', physicalPort=0, orientation=1}]",
  'Display Devices: size=1',
  '  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:0", 1440 x 2960, modeId 1, density 560, state ON}',
  'Logical Displays: size=1',
  '  Display 0:',
  info(
    0,
    'Built-in Screen',
    'FLAG_SECURE, real 2960 x 1440, largest app 2960 x 2960, rotation 1, state ON, type INTERNAL, uniqueId "local:0", app 2960 x 1356',
  ),
  '',
].join('\n');

/** A Samsung-style foldable with a logical display per panel, the inner one off. */
const TWO_LOGICAL = [
  'Display Devices: size=2',
  '  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:4630946317637160339", 2176 x 1812, state OFF}',
  '  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:4630946165954792596", 904 x 2316, state ON}',
  'Logical Displays: size=2',
  info(
    0,
    'Built-in Screen',
    'real 2176 x 1812, rotation 0, state OFF, type INTERNAL, uniqueId "local:4630946317637160339"',
  ),
  info(
    1,
    'Built-in Screen',
    'real 904 x 2316, rotation 0, state ON, type INTERNAL, uniqueId "local:4630946165954792596"',
  ),
].join('\n');

describe('dumpsys display: the display in use', () => {
  const phones: Array<ReturnType<typeof createSimulatedPhone>> = [];
  after(() => phones.forEach((p) => p.close()));
  async function simDump(quirks: string[], unfold = false): Promise<string> {
    const phone = createSimulatedPhone({ serial: `disp${phones.length}`, quirks });
    phones.push(phone);
    if (unfold) phone.setFolded(false);
    return (await phone.exec('dumpsys display', { signal: new AbortController().signal })).stdout.toString('utf8');
  }

  test('one display: found, turned size and rotation read, no flags added', () => {
    const layout = parseDumpsysDisplay(ONE_DISPLAY);
    assert.deepEqual(layout.displays, [
      {
        id: 0,
        name: 'Built-in Screen',
        type: 'INTERNAL',
        state: 'ON',
        width: 2960,
        height: 1440,
        rotation: 1,
        physicalId: '0',
      },
    ]);
    const target = pickDisplay(layout);
    assert.ok(target);
    assert.equal(isMultiDisplay(target), false);
    assert.deepEqual(aimAtDisplay(['screencap', '-p'], target, 34), ['screencap', '-p']);
    assert.deepEqual(aimAtDisplay(['input', 'tap', '1', '2'], target, 34), ['input', 'tap', '1', '2']);
  });

  test('the simulated foldable, folded and unfolded: display 0 on the panel in use, two panels', async () => {
    const folded = pickDisplay(parseDumpsysDisplay(await simDump(['foldable'])));
    assert.deepEqual(folded, {
      display: {
        id: 0,
        name: 'Built-in Screen',
        type: 'INTERNAL',
        state: 'ON',
        width: FOLD_OUTER.width,
        height: FOLD_OUTER.height,
        rotation: 0,
        physicalId: FOLD_OUTER.physicalId,
      },
      logicalCount: 1,
      physicalCount: 2,
    });
    assert.deepEqual(aimAtDisplay(['screencap', '-p'], folded, 34), ['screencap', '-d', FOLD_OUTER.physicalId, '-p']);
    assert.deepEqual(aimAtDisplay(['input', 'swipe', '1', '2', '3', '4', '300'], folded, 34), [
      'input',
      '-d',
      '0',
      'swipe',
      '1',
      '2',
      '3',
      '4',
      '300',
    ]);
    assert.deepEqual(displayRef(folded as DisplayTarget), {
      id: 0,
      name: 'Built-in Screen',
      physical_id: FOLD_OUTER.physicalId,
      of: 2,
    });
    const open = pickDisplay(parseDumpsysDisplay(await simDump(['foldable'], true)));
    assert.equal(open?.display.physicalId, FOLD_INNER.physicalId);
    assert.deepEqual([open?.display.width, open?.display.height], [FOLD_INNER.width, FOLD_INNER.height]);
  });

  test('a logical display per panel: the one that is on; a cast display is never chosen', async () => {
    const samsung = pickDisplay(parseDumpsysDisplay(TWO_LOGICAL));
    assert.equal(samsung?.display.id, 1);
    assert.deepEqual(aimAtDisplay(['input', 'tap', '5', '6'], samsung, 34), ['input', '-d', '1', 'tap', '5', '6']);
    const cast = pickDisplay(parseDumpsysDisplay(await simDump(['cast-second-display'])));
    assert.equal(cast?.display.id, 0);
    assert.equal(cast?.logicalCount, 2);
    assert.equal(cast?.physicalCount, 1);
    // One panel: screencap needs no -d (and none is added); input names display 0.
    assert.deepEqual(aimAtDisplay(['screencap'], cast, 34), ['screencap']);
    assert.deepEqual(aimAtDisplay(['input', 'keyevent', '3'], cast, 34), ['input', '-d', '0', 'keyevent', '3']);
  });

  test('Android 10–11 (`"NAME, displayId N"`) and Android 9 (no id in DisplayInfo: the block’s mDisplayId) are read too', () => {
    const android11 = [
      'Logical Displays: size=2',
      '  Display 0:',
      '    mDisplayId=0',
      '    mBaseDisplayInfo=DisplayInfo{"Built-in Screen, displayId 0", uniqueId "local:0", app 1080 x 2214, real 1080 x 2340, largest app 2340 x 2214, rotation 0, state ON, type INTERNAL, address {port=0}, FLAG_SECURE}',
      '  Display 2:',
      '    mDisplayId=2',
      '    mBaseDisplayInfo=DisplayInfo{"Cast screen, displayId 2", uniqueId "virtual:com.example,10100,Cast screen,0", app 1280 x 720, real 1280 x 720, rotation 0, state ON, type VIRTUAL, FLAG_PRESENTATION}',
    ].join('\n');
    const t11 = pickDisplay(parseDumpsysDisplay(android11));
    assert.deepEqual(
      [
        t11?.display.id,
        t11?.display.name,
        t11?.display.width,
        t11?.display.height,
        t11?.display.physicalId,
        t11?.logicalCount,
      ],
      [0, 'Built-in Screen', 1080, 2340, '0', 2],
    );
    const android9 = [
      '  Display 0:',
      '    mDisplayId=0',
      '    mBaseDisplayInfo=DisplayInfo{"Built-in Screen", uniqueId "local:0", app 2560 x 1704, real 2560 x 1800, rotation 1}',
    ].join('\n');
    const t9 = pickDisplay(parseDumpsysDisplay(android9));
    assert.deepEqual(
      [t9?.display.id, t9?.display.width, t9?.display.height, t9?.display.rotation, t9?.display.state],
      [0, 2560, 1800, 1, 'UNKNOWN'],
    );
    assert.equal(isMultiDisplay(t9), false);
  });

  test('asleep (every display off): display 0; Android 9 and older get no input -d; a command that names a display is left alone', () => {
    const asleep = pickDisplay(parseDumpsysDisplay(TWO_LOGICAL.replace('state ON, type', 'state OFF, type')));
    assert.equal(asleep?.display.id, 0);
    assert.deepEqual(aimAtDisplay(['input', 'tap', '1', '1'], asleep, 28), ['input', 'tap', '1', '1']);
    assert.deepEqual(aimAtDisplay(['screencap', '-p'], asleep, 28), ['screencap', '-p']);
    assert.deepEqual(aimAtDisplay(['screenrecord', '/sdcard/a.mp4'], asleep, 28), ['screenrecord', '/sdcard/a.mp4']);
    assert.deepEqual(aimAtDisplay(['screencap', '-p'], asleep, 29), ['screencap', '-d', '4630946317637160339', '-p']);
    assert.deepEqual(aimAtDisplay(['screencap', '-d', '42'], asleep, 34), ['screencap', '-d', '42']);
    assert.equal(pickDisplay(parseDumpsysDisplay("Can't find service: display\n")), null);
    assert.deepEqual(aimAtDisplay(['input', 'tap', '1', '1'], null, 34), ['input', 'tap', '1', '1']);
  });
});

describe('screencap output with the multiple-display warning in front', () => {
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
    Buffer.from([0, 0, 4, 56, 0, 0, 8, 44]),
  ]);

  test('the three lines are stripped; the image bytes are untouched', () => {
    const warned = Buffer.concat([Buffer.from(MULTIPLE_DISPLAYS_WARNING), png]);
    assert.ok(stripScreencapNotices(warned).equals(png));
    assert.ok(stripScreencapNotices(png).equals(png));
    assert.deepEqual(frameSize(warned), { width: 1080, height: 2092 });
  });

  test('a raw frame behind the warning decodes; other text in front is not hidden', () => {
    const header = Buffer.alloc(16);
    header.writeUInt32LE(2, 0);
    header.writeUInt32LE(1, 4);
    header.writeUInt32LE(1, 8);
    header.writeUInt32LE(1, 12);
    const raw = Buffer.concat([header, Buffer.from([1, 2, 3, 255, 4, 5, 6, 255])]);
    const frame = decodeRawScreencap(
      stripScreencapNotices(Buffer.concat([Buffer.from(MULTIPLE_DISPLAYS_WARNING), raw])),
    );
    assert.deepEqual([frame.width, frame.height, [...frame.rgba]], [2, 1, [1, 2, 3, 255, 4, 5, 6, 255]]);
    assert.deepEqual(frameSize(raw), { width: 2, height: 1 });
    const other = Buffer.concat([Buffer.from('WARNING: something else\n'), png]);
    assert.ok(stripScreencapNotices(other).equals(other));
    assert.equal(frameSize(Buffer.from('no image')), null);
  });
});
