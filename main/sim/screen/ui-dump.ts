/**
 * `uiautomator dump` output for a window, attribute for attribute as Android 14's
 * AccessibilityNodeInfoDumper writes it through KXmlSerializer: the XML declaration, one
 * <hierarchy rotation> and nested <node>s with no whitespace between them, a NAF="true"
 * mark on clickable nodes with no text anywhere, bounds clipped to the display.
 */
import type { ScreenWindow } from './screen-machine';
import { intersect, rect, type UiNode } from './ui-node';

const NAF_EXCLUDED = [
  'android.widget.GridView',
  'android.widget.GridLayout',
  'android.widget.ListView',
  'android.widget.TableLayout',
];

/** The dumper replaces characters XML cannot hold with '.' (per UTF-16 unit, like the original). */
function stripInvalidXmlChars(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const invalid =
      (c >= 0x1 && c <= 0x8) ||
      (c >= 0xb && c <= 0xc) ||
      (c >= 0xe && c <= 0x1f) ||
      (c >= 0x7f && c <= 0x84) ||
      (c >= 0x86 && c <= 0x9f) ||
      (c >= 0xfdd0 && c <= 0xfddf);
    out += invalid ? '.' : text.charAt(i);
  }
  return out;
}

/** KXmlSerializer attribute escaping (double-quoted): surrogate pairs become &#N; references. */
export function escapeXmlAttribute(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ch = text.charAt(i);
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += `&#${c};`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      out += `&#${text.codePointAt(i) ?? c};`;
      i++;
    } else if ((c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd)) out += ch;
    else out += '.'; // KXmlSerializer would throw; the dumper never feeds it such characters
  }
  return out;
}

function hasTextBelow(node: UiNode): boolean {
  return node.children.some((child) => child.text !== '' || child.contentDesc !== '' || hasTextBelow(child));
}

function isNaf(node: UiNode): boolean {
  if (NAF_EXCLUDED.some((cls) => node.className.endsWith(cls))) return false;
  const naf = node.clickable && node.enabled && node.contentDesc === '' && node.text === '';
  return naf && !hasTextBelow(node);
}

function attr(name: string, value: string): string {
  return ` ${name}="${escapeXmlAttribute(stripInvalidXmlChars(value))}"`;
}

function dumpNode(node: UiNode, index: number, pkg: string, display: ReturnType<typeof rect>, out: string[]): void {
  const b = intersect(node.bounds, display) ?? rect(0, 0, 0, 0);
  out.push(
    '<node' +
      (isNaf(node) ? ' NAF="true"' : '') +
      ` index="${index}"` +
      attr('text', node.text) +
      attr('resource-id', node.resourceId) +
      attr('class', node.className) +
      attr('package', pkg) +
      attr('content-desc', node.contentDesc) +
      ` checkable="${node.checkable}" checked="${node.checked}" clickable="${node.clickable}" enabled="${node.enabled}"` +
      ` focusable="${node.focusable}" focused="${node.focused}" scrollable="${node.scrollable}" long-clickable="${node.longClickable}"` +
      ` password="${node.password}" selected="${node.selected}" bounds="[${b.left},${b.top}][${b.right},${b.bottom}]">`,
  );
  node.children.forEach((child, i) => dumpNode(child, i, pkg, display, out));
  out.push('</node>');
}

/**
 * dumpWindowToFile with a node other than the window's root (the UI reader's `focus`): that
 * node is `<node index="0">` under the <hierarchy>, its subtree as the full dump has it.
 */
export function dumpSubtreeXml(node: UiNode, pkg: string, width: number, height: number, rotation: number): string {
  const out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", `<hierarchy rotation="${rotation}">`];
  dumpNode(node, 0, pkg, rect(0, 0, width, height), out);
  out.push('</hierarchy>');
  return out.join('');
}

/** The dump document (no trailing newline, like the real file). */
export function dumpWindowXml(window: ScreenWindow, width: number, height: number, rotation = 0): string {
  const out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", `<hierarchy rotation="${rotation}">`];
  dumpNode(window.root, 0, window.pkg, rect(0, 0, width, height), out);
  out.push('</hierarchy>');
  return out.join('');
}
