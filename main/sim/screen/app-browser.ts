/**
 * com.android.chrome (system): an address bar (com.android.chrome:id/url_bar) and a page
 * area. `am start -a android.intent.action.VIEW -d URL` opens the URL; typing in the
 * address bar and pressing ENTER navigates (bare words become a search).
 */
import type { ActionContext, AppDef } from './app-types';
import { BROWSER_HEADER_RGB, HINT_RGB, hex } from './colors';
import { column, editText, textView } from './app-widgets';
import { rect, uiNode } from './ui-node';

export const BROWSER_PKG = 'com.android.chrome';
export const BROWSER_ACTIVITY = 'com.google.android.apps.chrome.Main';
export const NEW_TAB_URL = 'chrome://newtab/';

/** What Chrome does with omnibox input: URLs stay, host-like words get https://, the rest is a search. */
export function omniboxToUrl(input: string): string {
  const text = input.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) return text;
  if (/^[^\s/]+\.[^\s/]+(\/.*)?$/.test(text)) return `https://${text}`;
  return `https://www.google.com/search?q=${encodeURIComponent(text).replace(/%20/g, '+')}`;
}

function pageTitle(url: string): string {
  if (url === NEW_TAB_URL) return 'New tab';
  try {
    const host = new URL(url).host;
    if (host === 'example.com' || host === 'www.example.com') return 'Example Domain';
    return host || url;
  } catch {
    return url;
  }
}

function navigate(url: string, ctx: ActionContext): void {
  ctx.entry.state.set('url', url);
  ctx.setField('url_bar', url === NEW_TAB_URL ? '' : url);
}

export const browserApp: AppDef = {
  pkg: BROWSER_PKG,
  label: 'Chrome',
  system: true,
  launchable: true,
  header: BROWSER_HEADER_RGB,
  background: [0xff, 0xff, 0xff],
  launchScreen: 'main',
  screens: {
    main: {
      activity: BROWSER_ACTIVITY,
      exported: true,
      onCreate(ctx) {
        navigate(ctx.entry.params.url ?? NEW_TAB_URL, ctx);
      },
      onNewIntent(params, ctx) {
        if (params.url) navigate(params.url, ctx);
      },
      build(ctx) {
        const L = ctx.layout;
        const m = L.margin;
        const barTop = L.content.top;
        const url = ctx.entry.state.str('url', NEW_TAB_URL);
        const toolbarNode = uiNode({
          className: 'android.widget.FrameLayout',
          resourceId: 'com.android.chrome:id/toolbar',
          bounds: rect(0, barTop, L.width, barTop + L.toolbarHeight),
          paint: { fill: hex(BROWSER_HEADER_RGB) },
          children: [
            editText(ctx, rect(m, barTop + L.dp(8), Math.round(L.width * 0.7), barTop + L.toolbarHeight - L.dp(8)), {
              id: 'url_bar',
              hint: 'Search or type URL',
              resourceId: 'com.android.chrome:id/url_bar',
            }),
          ],
        });
        const pageTop = L.body.top + m;
        const page = uiNode({
          className: 'android.webkit.WebView',
          text: pageTitle(url),
          bounds: rect(0, L.body.top, L.width, L.body.bottom),
          focusable: true,
          scrollable: false,
          children: [
            textView(L, BROWSER_PKG, rect(m, pageTop, L.width - m, pageTop + L.dp(48)), pageTitle(url), {
              size: L.dp(28),
              bold: true,
            }),
            textView(L, BROWSER_PKG, rect(m, pageTop + L.dp(56), L.width - m, pageTop + L.dp(88)), url, {
              color: HINT_RGB,
            }),
          ],
        });
        return [column(L.content, [toolbarNode, page], '#ffffff')];
      },
      onSubmit(fieldId, ctx) {
        if (fieldId !== 'url_bar') return false;
        navigate(omniboxToUrl(ctx.field('url_bar').text), ctx);
        ctx.focus(undefined);
        return true;
      },
    },
  },
};
