/**
 * Paints a window's view tree as SVG (for sharp/librsvg to rasterise): each node's
 * background, border, label, icon or switch inside exactly its bounds, scrolling lists
 * clipped to their viewport, then the SystemUI overlay (clock and battery in the status
 * bar, the gesture handle in the navigation bar).
 */
import type { Layout } from './layout';
import type { ScreenWindow } from './screen-machine';
import { darker, hex, isLight } from './colors';
import type { Rect, UiNode } from './ui-node';

const FONT = 'DejaVu Sans, Liberation Sans, sans-serif';

/** Text as SVG character data: XML-escaped, without characters XML 1.0 forbids. */
export function svgText(text: string): string {
  return [...text]
    .filter((ch) => {
      const c = ch.codePointAt(0) ?? 0;
      const loneSurrogate = c >= 0xd800 && c <= 0xdfff;
      return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c !== 0xfffe && c !== 0xffff && !loneSurrogate);
    })
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function width(r: Rect): number {
  return r.right - r.left;
}
function height(r: Rect): number {
  return r.bottom - r.top;
}

/** Opens a clip region: nested <svg> clips to its viewport while keeping absolute coordinates. */
function clipOpen(r: Rect): string {
  return `<svg x="${r.left}" y="${r.top}" width="${width(r)}" height="${height(r)}" viewBox="${r.left} ${r.top} ${width(r)} ${height(r)}" overflow="hidden">`;
}

/** Splits text into lines that fit `maxChars` (a rough average glyph width). */
function wrapLines(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const chars = [...raw];
    if (chars.length === 0) lines.push('');
    for (let i = 0; i < chars.length; i += maxChars) lines.push(chars.slice(i, i + maxChars).join(''));
  }
  return lines;
}

function paintText(node: UiNode, layout: Layout, out: string[]): void {
  const p = node.paint ?? {};
  const label = p.label ?? node.text;
  if (label === '' && !p.caret) return;
  const size = p.fontSize ?? layout.dp(16);
  const color = p.textColor ?? '#202124';
  const weight = p.bold ? ' font-weight="bold"' : '';
  const b = p.icon ? { ...node.bounds, top: node.bounds.top + layout.dp(64) } : node.bounds;
  const pad = p.fill === '#ffffff' || p.stroke ? (p.align === 'center' ? 0 : layout.dp(12)) : 0;
  const center = p.align === 'center';
  const x = center ? Math.round((b.left + b.right) / 2) : b.left + pad;
  const anchor = center ? ' text-anchor="middle"' : '';
  const charWidth = size * 0.6;
  out.push(clipOpen(node.bounds));
  let caretX = x;
  let caretY = 0;
  if (p.multiline) {
    const maxChars = Math.max(1, Math.floor((width(b) - 2 * pad) / charWidth));
    const lineHeight = Math.round(size * 1.3);
    const lines = wrapLines(label, maxChars);
    lines.forEach((line, i) => {
      const y = b.top + pad + Math.round(size * 1.05) + i * lineHeight;
      if (line)
        out.push(
          `<text x="${x}" y="${y}" font-family="${FONT}" font-size="${size}" fill="${color}"${weight}${anchor}>${svgText(line)}</text>`,
        );
      caretX = x + Math.round([...line].length * charWidth);
      caretY = y;
    });
  } else {
    const y = Math.round(b.top + height(b) / 2 + size * 0.35);
    if (label)
      out.push(
        `<text x="${x}" y="${y}" font-family="${FONT}" font-size="${size}" fill="${color}"${weight}${anchor}>${svgText(label)}</text>`,
      );
    caretX = x + Math.round([...label].length * charWidth);
    caretY = y;
  }
  if (p.caret) {
    const cx = p.labelIsHint ? x : caretX;
    out.push(
      `<rect x="${cx + 2}" y="${caretY - size}" width="${layout.dp(2)}" height="${Math.round(size * 1.2)}" fill="#1a73e8"/>`,
    );
  }
  out.push('</svg>');
}

function paintNode(node: UiNode, layout: Layout, out: string[]): void {
  const p = node.paint;
  const b = node.bounds;
  if (p?.fill && !p.toggle) {
    out.push(
      `<rect x="${b.left}" y="${b.top}" width="${width(b)}" height="${height(b)}"${p.radius ? ` rx="${p.radius}"` : ''} fill="${p.fill}"/>`,
    );
  }
  if (p?.stroke) {
    const sw = p.strokeWidth ?? 1;
    const half = sw / 2;
    out.push(
      `<rect x="${b.left + half}" y="${b.top + half}" width="${width(b) - sw}" height="${height(b) - sw}"${p.radius ? ` rx="${p.radius}"` : ''} fill="none" stroke="${p.stroke}" stroke-width="${sw}"/>`,
    );
  }
  if (p?.icon) {
    const cx = Math.round((b.left + b.right) / 2);
    const r = layout.dp(26);
    out.push(`<circle cx="${cx}" cy="${b.top + layout.dp(8) + r}" r="${r}" fill="${p.icon}"/>`);
  }
  if (p?.toggle) {
    const trackH = layout.dp(20);
    const trackW = layout.dp(36);
    const cy = Math.round((b.top + b.bottom) / 2);
    const x0 = b.right - trackW;
    out.push(
      `<rect x="${x0}" y="${cy - trackH / 2}" width="${trackW}" height="${trackH}" rx="${trackH / 2}" fill="${p.fill ?? '#9aa0a6'}"/>`,
    );
    const knobX = node.checked ? b.right - trackH / 2 : x0 + trackH / 2;
    out.push(`<circle cx="${knobX}" cy="${cy}" r="${Math.round(trackH * 0.45)}" fill="#ffffff"/>`);
  }
  if (p && !p.toggle) paintText(node, layout, out);
  if (node.clip && node.children.length > 0) out.push(clipOpen(b));
  for (const child of node.children) paintNode(child, layout, out);
  if (node.clip && node.children.length > 0) out.push('</svg>');
}

/** SystemUI on top of the app: status bar clock and battery, navigation handle. */
function paintSystemUi(window: ScreenWindow, layout: Layout, clock: string, battery: number, out: string[]): void {
  const sb = layout.statusBarHeight;
  const size = Math.round(sb * 0.5);
  const baseline = Math.round(sb / 2 + size * 0.35);
  const barColor = darker(window.header);
  const ink = isLight(barColor) ? '#202124' : '#ffffff';
  out.push(
    `<text x="${layout.dp(16)}" y="${baseline}" font-family="${FONT}" font-size="${size}" fill="${ink}">${svgText(clock)}</text>`,
  );
  out.push(
    `<text x="${layout.width - layout.dp(40)}" y="${baseline}" font-family="${FONT}" font-size="${size}" fill="${ink}" text-anchor="end">${battery}%</text>`,
  );
  const bw = layout.dp(12);
  const bh = layout.dp(20);
  const bx = layout.width - layout.dp(30);
  const by = Math.round((sb - bh) / 2);
  out.push(
    `<rect x="${bx}" y="${by}" width="${bw}" height="${bh}" rx="2" fill="none" stroke="${ink}" stroke-width="2"/>`,
  );
  const fillH = Math.round(((bh - 4) * Math.max(0, Math.min(100, battery))) / 100);
  out.push(`<rect x="${bx + 2}" y="${by + bh - 2 - fillH}" width="${bw - 4}" height="${fillH}" fill="${ink}"/>`);
  const handleW = layout.dp(108);
  const handleH = Math.max(2, layout.dp(4));
  const hy = layout.height - Math.round(layout.navBarHeight / 2) - Math.round(handleH / 2);
  const handleColor = isLight(window.background) ? '#202124' : '#ffffff';
  out.push(
    `<rect x="${Math.round((layout.width - handleW) / 2)}" y="${hy}" width="${handleW}" height="${handleH}" rx="${handleH / 2}" fill="${handleColor}"/>`,
  );
}

/** The complete frame as an SVG document of exactly the screen size. */
export function windowSvg(window: ScreenWindow, layout: Layout, clock: string, battery: number): string {
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}">`,
    `<rect x="0" y="0" width="${layout.width}" height="${layout.height}" fill="${hex(window.background)}"/>`,
  ];
  paintNode(window.root, layout, out);
  paintSystemUi(window, layout, clock, battery, out);
  out.push('</svg>');
  return out.join('');
}
