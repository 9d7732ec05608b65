/**
 * The arithmetic of driving a phone from its picture (docs/REFERENCE.md "Take over"): a point
 * of a letterboxed, CSS-scaled picture is the phone pixel under it, portrait and landscape, and
 * the bars are nobody's; a wheel scroll is a swipe of its notches' length that stays on the
 * screen, the right way round; a long paste is cut into requests the bridge takes, never inside
 * a character.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { containedRect, phonePointAt } from '../../renderer/src/features/phone-view/screen-geometry';
import { textParts } from '../../renderer/src/features/phone-view/use-person-input';
import { scrollSwipe } from '../../main/core/takeover/person-input';

void describe('the picture’s point on the phone', () => {
  const portrait = { width: 1080, height: 2400 };
  const landscape = { width: 2400, height: 1080 };

  void test('a portrait picture in a box too wide has bars left and right; points map inside it', () => {
    // 360 × 630 box: the picture is 283.5 wide, 38.25 px bars on each side.
    const box = { left: 100, top: 50, width: 360, height: 630 };
    assert.deepEqual(containedRect(box, portrait), { left: 138.25, top: 50, width: 283.5, height: 630 });
    assert.deepEqual(phonePointAt(box, portrait, 138.25 + 283.5 * 0.25, 50 + 630 * 0.75), { x: 270, y: 1800 });
    assert.equal(phonePointAt(box, portrait, 120, 300), null, 'the left bar');
    assert.equal(phonePointAt(box, portrait, 440, 300), null, 'the right bar');
    // A drag that ends beyond the edge ends on the last pixel.
    assert.deepEqual(phonePointAt(box, portrait, 600, 2000, true), { x: 1079, y: 2399 });
  });

  void test('a landscape picture in a tall box has bars above and below; its points are turned pixels', () => {
    const box = { left: 0, top: 0, width: 360, height: 630 };
    const content = containedRect(box, landscape);
    assert.equal(content.width, 360);
    assert.equal(content.height, 162);
    assert.equal(content.top, 234);
    assert.deepEqual(phonePointAt(box, landscape, 90, 234 + 162 * 0.75), { x: 600, y: 810 });
    assert.equal(phonePointAt(box, landscape, 90, 100), null, 'the bar above');
  });

  void test('CSS scaling only changes the box: the same share is the same pixel', () => {
    for (const scale of [0.5, 1, 1.75]) {
      const box = { left: 10, top: 10, width: 324 * scale, height: 720 * scale };
      assert.deepEqual(phonePointAt(box, portrait, 10 + 324 * scale * 0.5, 10 + 720 * scale * 0.1), { x: 540, y: 240 });
    }
  });
});

void describe('a wheel scroll as a swipe', () => {
  const screen = { width: 1080, height: 2400 };
  void test('down moves the finger up by 15 % a notch, centred on the pointer', () => {
    assert.deepEqual(scrollSwipe({ x: 540, y: 1200 }, 'down', 1, screen), {
      from: { x: 540, y: 1380 },
      to: { x: 540, y: 1020 },
    });
    assert.deepEqual(scrollSwipe({ x: 540, y: 1200 }, 'up', 2, screen), {
      from: { x: 540, y: 840 },
      to: { x: 540, y: 1560 },
    });
  });
  void test('near an edge it stays on the screen; many notches are at most 60 % of the side', () => {
    const near = scrollSwipe({ x: 540, y: 5 }, 'down', 1, screen);
    assert.deepEqual(near, { from: { x: 540, y: 361 }, to: { x: 540, y: 1 } });
    const far = scrollSwipe({ x: 1070, y: 500 }, 'left', 10, screen);
    assert.deepEqual(far, { from: { x: 430, y: 500 }, to: { x: 1078, y: 500 } });
  });
});

void describe('a long paste in parts', () => {
  void test('parts of at most the limit, never splitting a character', () => {
    assert.deepEqual(textParts('abcdef', 4), ['abcd', 'ef']);
    // 😀 is two UTF-16 units: it moves to the next part whole.
    assert.deepEqual(textParts('abc😀d', 4), ['abc', '😀d']);
    assert.deepEqual(textParts('', 4), []);
    assert.equal(textParts('你'.repeat(2500)).length, 3);
  });
});
