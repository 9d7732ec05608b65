/**
 * The console's section addresses (main/contract/console-route.ts): every section and
 * Settings part survives the round trip, a phone's view keeps its old address, and anything
 * else is no route (the console then opens on its first page).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONSOLE_SECTIONS,
  SETTINGS_PARTS,
  consoleLink,
  routeFromHash,
  routeHash,
  type ConsoleRoute,
} from '../../main/contract/console-route';

void describe('console routes', () => {
  void test('every section, Settings part and phone survives the round trip', () => {
    const routes: ConsoleRoute[] = [
      ...CONSOLE_SECTIONS.filter((s) => s !== 'settings').map((section) => ({ section })),
      { section: 'settings', part: null },
      ...SETTINGS_PARTS.map((part) => ({ section: 'settings', part }) as const),
      { section: 'phone', deviceId: 'dev 1/2#?' },
    ];
    for (const route of routes) assert.deepEqual(routeFromHash(routeHash(route)), route, routeHash(route));
    assert.equal(routeHash({ section: 'settings', part: 'limits' }), '#/settings/limits');
    assert.equal(routeHash({ section: 'phone', deviceId: 'a/b' }), '#/devices/a%2Fb', 'the tray’s address');
  });

  void test('the token after a route does not change the route', () => {
    assert.deepEqual(routeFromHash('#/pairings?token=abc'), { section: 'pairings' });
    assert.deepEqual(routeFromHash('#/devices/dev_1?token=abc'), { section: 'phone', deviceId: 'dev_1' });
  });

  void test('anything else is no route', () => {
    for (const hash of [
      '',
      '#',
      '#token=abc',
      '#/',
      '#/nowhere',
      '#/settings/nowhere',
      '#/lan/x',
      '#devices',
      '#/settings/limits/x',
    ])
      assert.equal(routeFromHash(hash), null, hash);
  });

  void test('a link for a new tab carries the token after the route', () => {
    assert.equal(
      consoleLink('http://127.0.0.1:8765/console/', { section: 'pairings' }, 'a+b'),
      'http://127.0.0.1:8765/console/#/pairings?token=a%2Bb',
    );
  });
});
