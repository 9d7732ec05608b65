/**
 * Which results carry toasts (main/core/tools/toast-window.ts) follows from each tool's facts,
 * and the Card says so: a tool's output schema lists `toasts` exactly when its results carry
 * them (the tools that act on the screen or the app in front), so an agent reading the Card is
 * never promised toasts a tool cannot give.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../main/core/tools/catalogue';
import { toastFields, watchesToasts } from '../../main/core/tools/toast-window';

test('a tool’s output schema lists toasts exactly when its results carry them', () => {
  const watching = TOOLS.filter((t) => t.kind === 'control' && watchesToasts(t.facts)).map((t) => t.id);
  assert.ok(
    watching.includes('android_tap') && watching.includes('android_batch') && watching.includes('android_launch_app'),
  );
  assert.ok(!watching.includes('android_install_apk') && !watching.includes('android_push_file'));
  for (const tool of TOOLS) {
    const listed = 'toasts' in ((tool.output.properties as Record<string, unknown> | undefined) ?? {});
    assert.equal(listed, tool.kind === 'control' && watchesToasts(tool.facts), tool.id);
  }
});

test('not watched is never an empty list: the fields say why, and list only toasts seen anyway', () => {
  assert.deepEqual(toastFields({ watched: false, why: 'no helper' }), {
    toasts_watched: false,
    toasts_note: 'no helper',
  });
  assert.deepEqual(toastFields({ watched: true, toasts: [] }), { toasts: [], toasts_watched: true });
  assert.deepEqual(toastFields({ watched: true, toasts: [{ text: 'Saved', at: 0, seenBefore: true }] }), {
    toasts: [{ text: 'Saved', at: '1970-01-01T00:00:00.000Z', seen_before: true }],
    toasts_watched: true,
  });
});
