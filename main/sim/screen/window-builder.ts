/**
 * Wraps an app's content in the view hierarchy every Android 14 activity window has
 * (DecorView FrameLayout → LinearLayout → FrameLayout android:id/content, plus the
 * status- and navigation-bar background views), all reported under the app's package.
 */
import type { Rgb } from './colors';
import { darker, hex } from './colors';
import type { Layout } from './layout';
import { rect, uiNode, walk, type UiNode } from './ui-node';

export function buildDecor(layout: Layout, content: UiNode[], header: Rgb, background: Rgb): UiNode {
  const full = rect(0, 0, layout.width, layout.height);
  const contentFrame = uiNode({
    className: 'android.widget.FrameLayout',
    resourceId: 'android:id/content',
    bounds: layout.content,
    paint: { fill: hex(background) },
    children: content,
  });
  return uiNode({
    className: 'android.widget.FrameLayout',
    bounds: full,
    paint: { fill: hex(background) },
    children: [
      uiNode({ className: 'android.widget.LinearLayout', bounds: full, children: [contentFrame] }),
      uiNode({
        className: 'android.view.View',
        resourceId: 'android:id/statusBarBackground',
        bounds: rect(0, 0, layout.width, layout.statusBarHeight),
        paint: { fill: hex(darker(header)) },
      }),
      uiNode({
        className: 'android.view.View',
        resourceId: 'android:id/navigationBarBackground',
        bounds: rect(0, layout.height - layout.navBarHeight, layout.width, layout.height),
        paint: { fill: hex(background) },
      }),
    ],
  });
}

/** The node showing field `fieldId`, if it is on screen. */
export function findFieldNode(root: UiNode, fieldId: string): UiNode | undefined {
  for (const node of walk(root)) if (node.fieldId === fieldId) return node;
  return undefined;
}

/** Editable fields in screen order (for TAB). */
export function fieldOrder(root: UiNode): string[] {
  const out: string[] = [];
  for (const node of walk(root)) if (node.fieldId) out.push(node.fieldId);
  return out;
}
