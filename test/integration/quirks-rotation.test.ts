/**
 * Rotation quirks (main/sim/QUIRKS.md: landscape, reverse-landscape, landscape-tablet,
 * wm-size-override, wm-density-override) through the real adb server and the data plane. In
 * every case the screenshot, the UI tree, taps and swipes agree: a tap by text at the
 * element's centre lands on it (the sim's hit-testing opens the app), "swipe up" moves the
 * finger up on the screen the person sees and the list shows later rows, the screenshot is as
 * wide and tall as the tree. A rotation between two calls is noticed by the screen-size cache
 * from the next UI tree or screenshot, not 3 s later.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import type { SimulatedPhone } from '../../main/sim/phone';

/** How far the tree's elements reach: the screen's width and height (bars span it edge to edge). */
function extent(tree: Json): [number, number] {
  const bounds = (tree.nodes as Json[]).map((node) => node.bounds as [number, number, number, number]);
  return [Math.max(...bounds.map((b) => b[2])), Math.max(...bounds.map((b) => b[3]))];
}

/** The number of the first list row the tree shows ("Item 7" → 7). */
function firstRow(tree: Json): number {
  const rows = (tree.nodes as Json[])
    .map((node) => /^Item (\d+)$/.exec(String(node.text ?? ''))?.[1])
    .filter((n) => n !== undefined);
  assert.ok(rows.length > 0, JSON.stringify(tree.nodes));
  return Math.min(...rows.map(Number));
}

const LIST = 'com.example.list';
const LAUNCHER = 'com.google.android.apps.nexuslauncher';

describe('rotation and size overrides: coordinates, swipes, screenshots and the tree agree', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;
  let n = 0;
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<Json> =>
    result(await invoke(bound.client, bound.channel, tool, args, `call_rot_${process.pid}_${++n}`));

  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  async function home(): Promise<void> {
    await call('android_press_key', { key: 'home' });
    await waitUntil(() => phone.foregroundPackage() === LAUNCHER, 5_000, 'home screen');
  }

  const cases: Array<{ quirks: string[]; width: number; height: number; rotation: number; density: number }> = [
    { quirks: ['landscape'], width: 2400, height: 1080, rotation: 1, density: 420 },
    { quirks: ['reverse-landscape'], width: 2400, height: 1080, rotation: 3, density: 420 },
    { quirks: ['landscape-tablet'], width: 2560, height: 1600, rotation: 0, density: 320 },
    { quirks: ['wm-size-override', 'wm-density-override'], width: 810, height: 1800, rotation: 0, density: 360 },
    { quirks: ['landscape', 'wm-size-override'], width: 1800, height: 810, rotation: 1, density: 420 },
  ];

  for (const c of cases) {
    test(`${c.quirks.join(' + ')}: ${c.width}x${c.height}, rotation ${c.rotation}`, async () => {
      phone.setQuirks(c.quirks);
      await home();
      const status = await call('android_device_status');
      assert.deepEqual(
        {
          width: status.screen.width,
          height: status.screen.height,
          rotation: status.screen.rotation,
          density: status.screen.density,
        },
        { width: c.width, height: c.height, rotation: c.rotation, density: c.density },
      );
      const tree = await call('android_ui_tree', { interactive_only: false });
      assert.deepEqual(extent(tree), [c.width, c.height]);
      const shot = await call('android_screenshot', { format: 'png', max_side: 4096 });
      assert.deepEqual([shot.width, shot.height], [c.width, c.height], 'the screenshot is as large as the tree');
      assert.equal(shot.display, undefined, 'one display: results carry no display');

      // A tap by text at the element's centre: the sim hit-tests it and opens the list.
      const icon = (tree.nodes as Json[]).find((node) => node.text === 'Long list');
      assert.ok(icon, JSON.stringify(tree.nodes));
      const from = phone.argvLog.length;
      await call('android_tap', { element: { text: 'Long list' } });
      await waitUntil(() => phone.foregroundPackage() === LIST, 5_000, 'the list app in front');
      assert.deepEqual(
        phone.argvLog.slice(from).filter((a) => a[0] === 'input'),
        [['input', 'tap', String(icon.center[0]), String(icon.center[1])]],
      );

      // "up" is up on the screen the person sees: the finger moves to a smaller y, and the list
      // shows later rows.
      const before = firstRow(await call('android_ui_tree'));
      const swiped = await call('android_swipe', { direction: 'up' });
      const [fx, fy] = swiped.from as [number, number];
      const [tx, ty] = swiped.to as [number, number];
      assert.equal(fx, Math.round(c.width / 2));
      assert.equal(tx, fx);
      assert.ok(fy > ty && fy < c.height && ty > 0, JSON.stringify(swiped));
      const later = firstRow(await call('android_ui_tree'));
      assert.ok(later > before, `first row ${before} → ${later}`);
      await home();
    });
  }

  test('the phone check on a one-display phone says so', async () => {
    phone.setQuirks(['landscape']);
    const res = await bound.rig.bridge.admin('GET', `/admin/api/devices/${bound.rig.device(0).deviceId}/check`);
    const row = (res.body.checks as Json[]).find((c) => c.id === 'display') as Json;
    assert.equal(row.status, 'ok');
    // wm size's natural size; the display is turned, and it is the only one.
    assert.equal(row.detail, 'display 0 (default), 1080×2400, the only display');
    phone.setQuirks([]);
  });

  test('a rotation between two calls: the next UI tree or screenshot makes the size cache follow at once', async () => {
    phone.setQuirks([]);
    await home();
    await call('android_tap', { element: { text: 'Long list' } });
    await waitUntil(() => phone.foregroundPackage() === LIST, 5_000, 'the list app in front');
    const portrait = await call('android_swipe', { direction: 'up' });
    assert.equal((portrait.from as number[])[0], 540);

    // Turned: the agent looks at the tree (rotation 1 in its dump), then swipes by direction.
    phone.setQuirks(['landscape']);
    await call('android_ui_tree');
    const landscape = await call('android_swipe', { direction: 'up' });
    assert.equal((landscape.from as number[])[0], 1200, JSON.stringify(landscape));
    assert.ok((landscape.from as number[])[1]! < 1080);

    // Turned back: a screenshot (1080 wide) is enough.
    phone.setQuirks([]);
    const shot = await call('android_screenshot', { format: 'png', max_side: 4096 });
    assert.deepEqual([shot.width, shot.height], [1080, 2400]);
    const back = await call('android_swipe', { direction: 'left' });
    assert.deepEqual(back.from, [810, 1200]);
    await home();
  });
});
