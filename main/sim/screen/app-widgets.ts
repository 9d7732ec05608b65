/**
 * Standard widgets the simulated apps are made of (toolbar, TextView, Button, EditText,
 * list row, Switch), each with the class names and flags real Android reports for it in a
 * uiautomator dump, and the paint the renderer draws.
 */
import type { BuildContext } from './app-types';
import { APP_BACKGROUND_RGB, BUTTON_TEXT_RGB, ERROR_RGB, HINT_RGB, TEXT_RGB, hex, isLight, type Rgb } from './colors';
import type { Layout } from './layout';
import { rect, uiNode, type Rect, type UiNode } from './ui-node';

/** Android's PasswordTransformationMethod shows every character as U+2022. */
export const PASSWORD_DOT = '\u2022';

export function resId(pkg: string, id: string): string {
  return `${pkg}:id/${id}`;
}

export function toolbar(layout: Layout, pkg: string, title: string, color: Rgb): UiNode {
  const top = layout.content.top;
  const bounds = rect(0, top, layout.width, top + layout.toolbarHeight);
  const titleNode = uiNode({
    className: 'android.widget.TextView',
    text: title,
    bounds: rect(layout.margin, top, Math.round(layout.width * 0.7), top + layout.toolbarHeight),
    paint: { textColor: isLight(color) ? hex(TEXT_RGB) : '#ffffff', fontSize: layout.dp(22), bold: true },
  });
  return uiNode({
    className: 'android.view.ViewGroup',
    resourceId: resId(pkg, 'toolbar'),
    bounds,
    paint: { fill: hex(color) },
    children: [titleNode],
  });
}

export interface TextOptions {
  id?: string;
  size?: number;
  color?: Rgb;
  bold?: boolean;
  align?: 'start' | 'center';
  multiline?: boolean;
}

export function textView(layout: Layout, pkg: string, bounds: Rect, text: string, options: TextOptions = {}): UiNode {
  return uiNode({
    className: 'android.widget.TextView',
    resourceId: options.id ? resId(pkg, options.id) : '',
    text,
    bounds,
    paint: {
      textColor: hex(options.color ?? TEXT_RGB),
      fontSize: options.size ?? layout.dp(16),
      bold: options.bold,
      align: options.align,
      multiline: options.multiline,
    },
  });
}

export function errorText(layout: Layout, pkg: string, bounds: Rect, text: string, id: string): UiNode {
  return textView(layout, pkg, bounds, text, { id, color: ERROR_RGB });
}

export interface ButtonOptions {
  id: string;
  action: string;
  color: Rgb;
}

export function button(layout: Layout, pkg: string, bounds: Rect, text: string, options: ButtonOptions): UiNode {
  return uiNode({
    className: 'android.widget.Button',
    resourceId: resId(pkg, options.id),
    text,
    bounds,
    clickable: true,
    focusable: true,
    action: options.action,
    paint: {
      fill: hex(options.color),
      radius: layout.dp(20),
      textColor: isLight(options.color) ? hex(TEXT_RGB) : hex(BUTTON_TEXT_RGB),
      fontSize: layout.dp(16),
      bold: true,
      align: 'center',
    },
  });
}

export interface EditTextOptions {
  id: string;
  hint: string;
  password?: boolean;
  multiline?: boolean;
  /** Resource id override (e.g. a system app's own id scheme). */
  resourceId?: string;
}

/**
 * An EditText bound to a field of the task. Like TextView.getTextForAccessibility, the
 * dumped text is the hint while empty and the transformed text (dots) for passwords.
 */
export function editText(ctx: BuildContext, bounds: Rect, options: EditTextOptions): UiNode {
  const state = ctx.field(options.id);
  const focused = ctx.focusedField === options.id;
  const shown = options.password ? PASSWORD_DOT.repeat([...state.text].length) : state.text;
  const empty = state.text.length === 0;
  return uiNode({
    className: 'android.widget.EditText',
    resourceId: options.resourceId ?? resId(ctx.pkg, options.id),
    text: empty ? options.hint : shown,
    bounds,
    clickable: true,
    focusable: true,
    focused,
    longClickable: true,
    password: options.password === true,
    selected: false,
    fieldId: options.id,
    multiline: options.multiline === true,
    paint: {
      fill: '#ffffff',
      stroke: focused ? '#1a73e8' : '#9aa0a6',
      strokeWidth: focused ? ctx.layout.dp(2) : ctx.layout.dp(1),
      radius: ctx.layout.dp(4),
      label: empty ? options.hint : shown,
      textColor: hex(empty ? HINT_RGB : TEXT_RGB),
      fontSize: ctx.layout.dp(16),
      multiline: options.multiline === true,
      caret: focused,
      labelIsHint: empty,
    },
  });
}

export interface RowOptions {
  action: string;
  summary?: string | undefined;
  /** A Switch at the end of the row (checkable). */
  toggle?: { checked: boolean } | undefined;
  /** Resource id of the title (Settings uses android:id/title). */
  titleId?: string;
  summaryId?: string;
}

/** A clickable list row: LinearLayout with a title and optional summary (Settings style). */
export function listRow(layout: Layout, bounds: Rect, title: string, options: RowOptions): UiNode {
  const pad = layout.margin;
  const mid = options.summary ? Math.round(bounds.top + (bounds.bottom - bounds.top) * 0.55) : bounds.bottom;
  const children: UiNode[] = [
    uiNode({
      className: 'android.widget.TextView',
      resourceId: options.titleId ?? 'android:id/title',
      text: title,
      bounds: rect(bounds.left + pad, bounds.top, bounds.right - layout.dp(80), mid),
      paint: { textColor: hex(TEXT_RGB), fontSize: layout.dp(18) },
    }),
  ];
  if (options.summary) {
    children.push(
      uiNode({
        className: 'android.widget.TextView',
        resourceId: options.summaryId ?? 'android:id/summary',
        text: options.summary,
        bounds: rect(bounds.left + pad, mid, bounds.right - layout.dp(80), bounds.bottom - layout.dp(8)),
        paint: { textColor: hex(HINT_RGB), fontSize: layout.dp(14) },
      }),
    );
  }
  if (options.toggle) {
    children.push(
      uiNode({
        className: 'android.widget.Switch',
        resourceId: 'android:id/switch_widget',
        text: options.toggle.checked ? 'ON' : 'OFF',
        bounds: rect(bounds.right - layout.dp(72), bounds.top, bounds.right - pad, bounds.bottom),
        checkable: true,
        checked: options.toggle.checked,
        focusable: true,
        paint: { toggle: true, fill: options.toggle.checked ? '#1a73e8' : '#9aa0a6', label: '' },
      }),
    );
  }
  return uiNode({
    className: 'android.widget.LinearLayout',
    bounds,
    clickable: true,
    focusable: true,
    action: options.action,
    checkable: options.toggle !== undefined,
    checked: options.toggle?.checked ?? false,
    paint: { stroke: '#e0e0e0', strokeWidth: 1 },
    children,
  });
}

/** A vertical container filling `bounds`. */
export function column(bounds: Rect, children: UiNode[], fill?: string): UiNode {
  return uiNode({ className: 'android.widget.LinearLayout', bounds, children, paint: fill ? { fill } : undefined });
}

/** An app's page: its toolbar, then `body` below it, on the apps' background. */
export function appPage(layout: Layout, pkg: string, title: string, color: Rgb, body: UiNode[]): UiNode[] {
  return [column(layout.content, [toolbar(layout, pkg, title, color), ...body], hex(APP_BACKGROUND_RGB))];
}

/** A row across the page inside the side margins, `fromDp` to `toDp` below the body's top margin. */
export function pageRow(layout: Layout, fromDp: number, toDp: number): Rect {
  const top = layout.body.top + layout.margin;
  return rect(layout.margin, top + layout.dp(fromDp), layout.width - layout.margin, top + layout.dp(toDp));
}
