/**
 * com.example.list: 200 rows ("Item 1" … "Item 200") in a scrollable RecyclerView. A swipe
 * over the list scrolls it by exactly the finger's travel (no fling), so tests can predict
 * which rows are visible; only attached (visible) rows are in the tree, clipped to the list.
 * An item's page has a "Next item" button opening the next item's page: a tap that changes the
 * screen every time, for an agent's screenshot → tap → screenshot loop (bench/agent-loop.ts).
 */
import type { AppDef, BuildContext } from './app-types';
import { APP_BACKGROUND_RGB, LIST_HEADER_RGB, TEXT_RGB, hex } from './colors';
import { appPage, button, pageRow, resId, textView } from './app-widgets';
import { intersect, rect, uiNode, type UiNode } from './ui-node';

export const LIST_PKG = 'com.example.list';
export const LIST_ITEM_COUNT = 200;

export function listRowHeight(ctx: Pick<BuildContext, 'layout'>): number {
  return ctx.layout.dp(56);
}

function maxScroll(ctx: BuildContext): number {
  const L = ctx.layout;
  return Math.max(0, LIST_ITEM_COUNT * listRowHeight(ctx) - (L.body.bottom - L.body.top));
}

function listNode(ctx: BuildContext): UiNode {
  const L = ctx.layout;
  const viewport = L.body;
  const rowHeight = listRowHeight(ctx);
  const scroll = ctx.entry.state.num('scroll');
  const first = Math.floor(scroll / rowHeight);
  const rows: UiNode[] = [];
  for (let i = first; i < LIST_ITEM_COUNT; i++) {
    const top = viewport.top + i * rowHeight - scroll;
    if (top >= viewport.bottom) break;
    const full = rect(0, top, L.width, top + rowHeight);
    const visible = intersect(full, viewport);
    if (!visible) continue;
    rows.push(
      uiNode({
        className: 'android.widget.TextView',
        resourceId: resId(LIST_PKG, 'row_title'),
        text: `Item ${i + 1}`,
        bounds: visible,
        clickable: true,
        focusable: true,
        action: `open:${i + 1}`,
        paint: {
          stroke: '#e0e0e0',
          strokeWidth: 1,
          textColor: hex(TEXT_RGB),
          fontSize: L.dp(18),
          label: `Item ${i + 1}`,
        },
      }),
    );
  }
  return uiNode({
    className: 'androidx.recyclerview.widget.RecyclerView',
    resourceId: resId(LIST_PKG, 'list'),
    bounds: viewport,
    focusable: true,
    scrollable: true,
    clip: true,
    children: rows,
  });
}

export const listApp: AppDef = {
  pkg: LIST_PKG,
  label: 'Long list',
  system: false,
  launchable: true,
  header: LIST_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'main',
  screens: {
    main: {
      activity: 'com.example.list.ListActivity',
      exported: true,
      build(ctx) {
        return appPage(ctx.layout, LIST_PKG, 'Long list', LIST_HEADER_RGB, [listNode(ctx)]);
      },
      onScroll(_node, dy, ctx) {
        const next = Math.min(maxScroll(ctx), Math.max(0, ctx.entry.state.num('scroll') + Math.round(dy)));
        ctx.entry.state.set('scroll', next);
      },
      onAction(action, ctx) {
        if (action.startsWith('open:')) ctx.open('item', { item: action.slice('open:'.length) });
      },
    },
    item: {
      activity: 'com.example.list.ItemActivity',
      build(ctx) {
        const L = ctx.layout;
        const item = ctx.entry.params.item ?? '?';
        const top = L.body.top + L.margin;
        return appPage(L, LIST_PKG, `Item ${item}`, LIST_HEADER_RGB, [
          textView(L, LIST_PKG, pageRow(L, 0, 40), `Details for Item ${item}`, { id: 'detail_text' }),
          button(L, LIST_PKG, rect(L.margin, top + L.dp(56), L.margin + L.dp(160), top + L.dp(104)), 'Next item', {
            id: 'next_item',
            action: 'next',
            color: LIST_HEADER_RGB,
          }),
        ]);
      },
      onAction(action, ctx) {
        const item = Number(ctx.entry.params.item ?? '0');
        if (action === 'next' && item < LIST_ITEM_COUNT) ctx.open('item', { item: String(item + 1) });
      },
    },
  },
};
