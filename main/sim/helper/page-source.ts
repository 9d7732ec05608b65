/**
 * The helper's page source (GET /session/:id/source) for a window, in the format of the
 * appium-uiautomator2-server's AccessibilityNodeInfoDumper and UiElementSnapshot: a root
 * <hierarchy index="0" class="hierarchy" rotation width height>, one element per node named
 * after its class, attributes in the server's SUPPORTED_ATTRIBUTES order with null values
 * left out (content-desc, resource-id, hint…), indented by KXmlSerializer ("\r\n" and two
 * spaces a level). Built from the same UiNode tree the sim's `uiautomator dump` describes,
 * so both lanes see the same screen. The toasts the listener keeps follow the window root
 * as UiElementSnapshot.addToastMsg adds them: `<android.widget.Toast>` with index, package
 * (always com.android.settings), class, text and displayed only.
 */
import type { ScreenWindow } from '../screen/screen-machine';
import { escapeXmlAttribute } from '../screen/ui-dump';
import { intersect, rect, type Rect, type UiNode } from '../screen/ui-node';

export interface SourceOptions {
  width: number;
  height: number;
  rotation: number;
  /** AccessibilityWindowInfo id of the app window. */
  windowId: number;
  /** Keep only this many levels below the window root (the helper-sparse-tree quirk). */
  maxDepth?: number;
  /** The toast texts NotificationListener keeps (notification-listener.ts), read when the source began. */
  toasts?: readonly string[];
}

/** The package UiElementSnapshot.addToastMsg gives every toast element, whichever app showed it. */
const TOAST_NODE_PACKAGE = 'com.android.settings';

/** The server's toSafeString: characters XML 1.0 cannot hold become '?'. */
function safe(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    const ok =
      c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
    out += ok ? ch : '?';
  }
  return out;
}

/** toXmlNodeName: `$ @ # &` become dots, dots collapse, no leading or trailing dot. */
function nodeName(className: string): string {
  const fixed = className
    .replace(/[$@#&]/g, '.')
    .replace(/\.+/g, '.')
    .replace(/^\.|\.$/g, '')
    .replace(/[^A-Za-z0-9_.-]/g, '_');
  return fixed === '' || !/^[A-Za-z_]/.test(fixed) ? 'android.view.View' : fixed;
}

function attrs(pairs: Array<[string, string | number | boolean | undefined]>): string {
  return pairs
    .filter((p): p is [string, string | number | boolean] => p[1] !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(safe(String(value)))}"`)
    .join('');
}

function boundsText(b: Rect): string {
  return `[${b.left},${b.top}][${b.right},${b.bottom}]`;
}

interface Walk {
  pkg: string;
  display: Rect;
  windowId: number;
  maxDepth: number;
  out: string[];
}

function serialize(node: UiNode, index: number, depth: number, w: Walk): void {
  const visible = intersect(node.bounds, w.display);
  const b = visible ?? rect(0, 0, 0, 0);
  const editable = node.fieldId !== undefined;
  const textLength = [...node.text].length;
  const name = nodeName(node.className);
  const pad = `\r\n${'  '.repeat(depth)}`;
  w.out.push(
    `${pad}<${name}` +
      attrs([
        ['index', index],
        ['package', w.pkg],
        ['class', node.className],
        ['text', node.text],
        ['content-desc', node.contentDesc === '' ? undefined : node.contentDesc],
        ['resource-id', node.resourceId === '' ? undefined : node.resourceId],
        ['checkable', node.checkable],
        ['checked', node.checked],
        ['clickable', node.clickable],
        ['enabled', node.enabled],
        ['focusable', node.focusable],
        ['focused', node.focused],
        ['long-clickable', node.longClickable],
        ['password', node.password],
        ['scrollable', node.scrollable],
        ['selection-start', editable ? textLength : undefined],
        ['selection-end', editable ? textLength : undefined],
        ['selected', node.selected],
        ['bounds', boundsText(b)],
        ['displayed', visible !== undefined],
        ['a11y-important', true],
        ['screen-reader-focusable', false],
        ['input-type', editable ? (node.password ? 129 : node.multiline === true ? 131073 : 1) : undefined],
        ['drawing-order', index + 1],
        ['showing-hint', editable && node.paint?.labelIsHint === true],
        ['text-entry-key', false],
        ['dismissable', false],
        ['a11y-focused', false],
        ['heading', false],
        ['live-region', 0],
        ['context-clickable', false],
        ['content-invalid', false],
        ['window-id', w.windowId],
      ]),
  );
  const children = depth - 1 < w.maxDepth ? node.children : [];
  if (children.length === 0) {
    w.out.push(' />');
    return;
  }
  w.out.push('>');
  children.forEach((child, i) => serialize(child, i, depth + 1, w));
  w.out.push(`${pad}</${name}>`);
}

/** The page source document of one window (no trailing newline). */
export function pageSourceXml(window: ScreenWindow, options: SourceOptions): string {
  const out: string[] = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"];
  out.push(
    `\r\n<hierarchy index="0" class="hierarchy" rotation="${options.rotation}" width="${options.width}" height="${options.height}">`,
  );
  serialize(window.root, 0, 1, {
    pkg: window.pkg,
    display: rect(0, 0, options.width, options.height),
    windowId: options.windowId,
    maxDepth: options.maxDepth ?? Number.POSITIVE_INFINITY,
    out,
  });
  // addToastMsg: index is the count of the root's children so far (the one window root first).
  (options.toasts ?? []).forEach((text, i) => {
    out.push(
      `\r\n  <android.widget.Toast${attrs([
        ['index', i + 1],
        ['package', TOAST_NODE_PACKAGE],
        ['class', 'android.widget.Toast'],
        ['text', text],
        ['displayed', true],
      ])} />`,
    );
  });
  out.push('\r\n</hierarchy>');
  return out.join('');
}
