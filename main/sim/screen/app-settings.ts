/**
 * com.android.settings (system): the top-level list, and sub pages (SubSettings) for
 * Network & internet (with an Airplane mode switch backed by `settings global`), Security &
 * privacy (Screen lock, Factory reset) and About phone. "Erase all data" is refused: the
 * simulated phone never wipes itself, but the request is recorded.
 */
import type { ActionContext, AppDef, BuildContext } from './app-types';
import { APP_BACKGROUND_RGB, ERROR_RGB, SETTINGS_HEADER_RGB } from './colors';
import { appPage, button, column, listRow, pageRow, textView } from './app-widgets';
import { rect, type UiNode } from './ui-node';

export const SETTINGS_PKG = 'com.android.settings';

interface RowSpec {
  title: string;
  summary?: string;
  action: string;
  toggle?: { checked: boolean };
}

const TOP_LEVEL = (ctx: BuildContext): RowSpec[] => [
  { title: 'Network & internet', summary: 'Mobile, Wi\u2011Fi, hotspot', action: 'page:network' },
  { title: 'Connected devices', summary: 'Bluetooth, pairing', action: 'page:connected' },
  { title: 'Apps', summary: 'Assistant, recent apps, default apps', action: 'page:apps' },
  { title: 'Battery', summary: `${ctx.env.batteryLevel()}%`, action: 'page:battery' },
  { title: 'Display', summary: 'Dark theme, font size, brightness', action: 'page:display' },
  { title: 'Security & privacy', summary: 'App security, device lock, permissions', action: 'page:security' },
  { title: 'About phone', summary: ctx.env.model, action: 'page:about' },
];

const PAGE_TITLES: Record<string, string> = {
  network: 'Network & internet',
  connected: 'Connected devices',
  apps: 'Apps',
  battery: 'Battery',
  display: 'Display',
  security: 'Security & privacy',
  about: 'About phone',
  factory_reset: 'Factory reset',
};

function pageRows(page: string, ctx: BuildContext): RowSpec[] {
  switch (page) {
    case 'network':
      return [
        { title: 'Internet', summary: 'AndroidWifi', action: 'none' },
        {
          title: 'Airplane mode',
          action: 'toggle_airplane',
          toggle: { checked: ctx.env.getGlobalSetting('airplane_mode_on') === '1' },
        },
      ];
    case 'security':
      return [
        { title: 'Screen lock', summary: 'None', action: 'none' },
        { title: 'Find My Device', summary: 'On', action: 'none' },
        { title: 'Factory reset', summary: 'Erase all data', action: 'page:factory_reset' },
      ];
    case 'about':
      return [
        { title: 'Device name', summary: ctx.env.model, action: 'none' },
        { title: 'Model', summary: ctx.env.model, action: 'none' },
        { title: 'Android version', summary: ctx.env.androidVersion, action: 'none' },
        { title: 'Build number', summary: ctx.env.buildId, action: 'none' },
      ];
    default:
      return [];
  }
}

function rows(ctx: BuildContext, specs: RowSpec[]): UiNode[] {
  const L = ctx.layout;
  const height = L.dp(72);
  return specs.map((spec, i) => {
    const top = L.body.top + i * height;
    return listRow(L, rect(0, top, L.width, top + height), spec.title, {
      action: spec.action,
      summary: spec.summary,
      toggle: spec.toggle,
    });
  });
}

function listFrame(ctx: BuildContext, rowNodes: UiNode[]): UiNode {
  return {
    ...column(rect(0, ctx.layout.body.top, ctx.layout.width, ctx.layout.body.bottom), rowNodes),
    className: 'androidx.recyclerview.widget.RecyclerView',
    resourceId: 'com.android.settings:id/recycler_view',
    focusable: true,
  };
}

function navigate(action: string, ctx: ActionContext): void {
  if (action.startsWith('page:')) ctx.open('sub', { page: action.slice('page:'.length) });
  if (action === 'toggle_airplane') {
    const on = ctx.env.getGlobalSetting('airplane_mode_on') === '1';
    ctx.env.putGlobalSetting('airplane_mode_on', on ? '0' : '1');
  }
}

export const settingsApp: AppDef = {
  pkg: SETTINGS_PKG,
  label: 'Settings',
  system: true,
  launchable: true,
  header: SETTINGS_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'main',
  screens: {
    main: {
      activity: 'com.android.settings.Settings',
      exported: true,
      build(ctx) {
        return appPage(ctx.layout, SETTINGS_PKG, 'Settings', SETTINGS_HEADER_RGB, [
          listFrame(ctx, rows(ctx, TOP_LEVEL(ctx))),
        ]);
      },
      onAction: navigate,
    },
    sub: {
      activity: 'com.android.settings.SubSettings',
      build(ctx) {
        const L = ctx.layout;
        const page = ctx.entry.params.page ?? '';
        const body: UiNode[] = [];
        if (page === 'factory_reset') {
          body.push(
            textView(
              L,
              SETTINGS_PKG,
              pageRow(L, 0, 72),
              "This will erase all data from your phone's internal storage",
              {
                id: 'erase_warning',
                multiline: true,
              },
            ),
            button(L, SETTINGS_PKG, pageRow(L, 88, 136), 'Erase all data', {
              id: 'erase_button',
              action: 'erase',
              color: ERROR_RGB,
            }),
          );
          const message = ctx.entry.state.str('message');
          if (message)
            body.push(
              textView(L, SETTINGS_PKG, pageRow(L, 152, 184), message, {
                id: 'erase_message',
              }),
            );
        } else {
          const specs = pageRows(page, ctx);
          if (specs.length > 0) body.push(listFrame(ctx, rows(ctx, specs)));
          else
            body.push(
              textView(L, SETTINGS_PKG, pageRow(L, 0, 32), 'Nothing to change here.', {
                id: 'empty_text',
              }),
            );
        }
        return appPage(L, SETTINGS_PKG, PAGE_TITLES[page] ?? 'Settings', SETTINGS_HEADER_RGB, body);
      },
      onAction(action, ctx) {
        if (action === 'erase') {
          ctx.data.set('factory_reset_requests', ctx.data.num('factory_reset_requests') + 1);
          ctx.entry.state.set('message', 'Factory reset is not available on this phone.');
          return;
        }
        navigate(action, ctx);
      },
    },
  },
};
