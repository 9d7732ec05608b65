import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  forgetConsoleToken,
  fragmentWithoutToken,
  takeConsoleToken,
  tokenFromFragment,
} from '../../renderer/src/api/console-token';
import type { TokenHost } from '../../renderer/src/api/console-token';

function fakeHost(hash: string, stored: Record<string, string> = {}, blocked = false) {
  const storage = { ...stored };
  const replaced: string[] = [];
  const host: TokenHost = {
    location: { hash, pathname: '/console/', search: '' },
    history: { replaceState: (_d, _u, url) => void replaced.push(url ?? '') },
    sessionStorage: {
      getItem: (k) => {
        if (blocked) throw new Error('SecurityError');
        return storage[k] ?? null;
      },
      setItem: (k, v) => {
        if (blocked) throw new Error('SecurityError');
        storage[k] = v;
      },
      removeItem: (k) => void delete storage[k],
    },
  };
  return { host, storage, replaced };
}

void describe('console admin token from the URL fragment', () => {
  void test('reads #token=… alone or among other fragment parameters', () => {
    assert.equal(tokenFromFragment('#token=abc123'), 'abc123');
    assert.equal(tokenFromFragment('#view=approvals&token=t%2Bk'), 't+k');
    assert.equal(tokenFromFragment(''), null);
    assert.equal(tokenFromFragment('#token='), null);
    assert.equal(tokenFromFragment('#other=1'), null);
    assert.equal(fragmentWithoutToken('#view=approvals&token=x'), '#view=approvals');
    assert.equal(fragmentWithoutToken('#token=x'), '');
  });

  void test('stores the token for this tab and removes it from the address bar', () => {
    const { host, storage, replaced } = fakeHost('#token=secret-token-123');
    assert.equal(takeConsoleToken(host), 'secret-token-123');
    assert.deepEqual(Object.values(storage), ['secret-token-123']);
    assert.deepEqual(replaced, ['/console/']);
  });

  void test('a reload (no fragment) uses the stored token; a refused token is forgotten', () => {
    const first = fakeHost('#token=secret-token-123');
    takeConsoleToken(first.host);
    const reload = fakeHost('', first.storage);
    assert.equal(takeConsoleToken(reload.host), 'secret-token-123');
    assert.deepEqual(reload.replaced, [], 'nothing to clean up');
    forgetConsoleToken(reload.host);
    assert.equal(takeConsoleToken(fakeHost('', reload.storage).host), null);
  });

  void test('works without storage (privacy mode): the token lives for the page only', () => {
    const { host, replaced } = fakeHost('#token=secret-token-123', {}, true);
    assert.equal(takeConsoleToken(host), 'secret-token-123');
    assert.deepEqual(replaced, ['/console/']);
    assert.equal(takeConsoleToken(fakeHost('', {}, true).host), null);
  });
});

void describe('console admin token beside a section address', () => {
  void test('#/<section>?token=… gives the token and keeps the section in the address bar', () => {
    assert.equal(tokenFromFragment('#/pairings?token=abc'), 'abc');
    assert.equal(tokenFromFragment('#/settings/limits'), null);
    assert.equal(tokenFromFragment('#/devices/token=x'), null, 'a phone id is not a token');
    assert.equal(fragmentWithoutToken('#/pairings?token=abc'), '#/pairings');
    assert.equal(fragmentWithoutToken('#/pairings?x=1&token=abc'), '#/pairings?x=1');
    const { host, replaced } = fakeHost('#/pairings?token=secret-token-123');
    assert.equal(takeConsoleToken(host), 'secret-token-123');
    assert.deepEqual(replaced, ['/console/#/pairings']);
  });
});
