/**
 * com.google.android.apps.nexuslauncher (system): the home screen (a grid of labelled app
 * icons on the wallpaper) and the recents overview (one card per recent task, and
 * "Clear all"). Both are the same activity, as on a Pixel.
 */
import type { AppDef } from './app-types';
import { LAUNCHER_WALLPAPER_RGB, RECENTS_BACKGROUND_RGB, hex } from './colors';
import { button } from './app-widgets';
import { rect, uiNode, type UiNode } from './ui-node';

export const LAUNCHER_PKG = 'com.google.android.apps.nexuslauncher';
export const LAUNCHER_ACTIVITY = 'com.google.android.apps.nexuslauncher.NexusLauncherActivity';
const COLUMNS = 4;

export const launcherApp: AppDef = {
  pkg: LAUNCHER_PKG,
  label: 'Pixel Launcher',
  system: true,
  launchable: false,
  header: LAUNCHER_WALLPAPER_RGB,
  background: LAUNCHER_WALLPAPER_RGB,
  launchScreen: 'home',
  screens: {
    home: {
      activity: LAUNCHER_ACTIVITY,
      exported: true,
      build(ctx) {
        const L = ctx.layout;
        const cellWidth = Math.floor(L.width / COLUMNS);
        const cellHeight = L.dp(104);
        const top = L.content.top + L.dp(96);
        const icons: UiNode[] = ctx.env.launcherApps().map((app, i) => {
          const col = i % COLUMNS;
          const row = Math.floor(i / COLUMNS);
          const y = top + row * cellHeight;
          return uiNode({
            className: 'android.widget.TextView',
            text: app.label,
            contentDesc: app.label,
            bounds: rect(col * cellWidth, y, (col + 1) * cellWidth, y + cellHeight),
            clickable: true,
            focusable: true,
            longClickable: true,
            action: `launch:${app.pkg}`,
            paint: { icon: hex(app.color), textColor: '#ffffff', fontSize: L.dp(13), align: 'center' },
          });
        });
        const workspace = uiNode({
          className: 'android.widget.ScrollView',
          resourceId: 'com.google.android.apps.nexuslauncher:id/workspace',
          bounds: L.content,
          children: icons,
        });
        return [
          uiNode({
            className: 'android.widget.FrameLayout',
            resourceId: 'com.google.android.apps.nexuslauncher:id/launcher',
            bounds: L.content,
            children: [workspace],
          }),
        ];
      },
      onAction(action, ctx) {
        if (action.startsWith('launch:')) ctx.launchPackage(action.slice('launch:'.length));
      },
    },
    recents: {
      activity: LAUNCHER_ACTIVITY,
      build(ctx) {
        const L = ctx.layout;
        const m = L.margin;
        const cardHeight = L.dp(120);
        const tasks = ctx.env.recentTasks();
        const cards: UiNode[] = tasks.slice(0, 5).map((task, i) => {
          const y = L.content.top + m + i * (cardHeight + m);
          return uiNode({
            className: 'android.widget.FrameLayout',
            resourceId: 'com.google.android.apps.nexuslauncher:id/snapshot',
            contentDesc: task.label,
            bounds: rect(m * 2, y, L.width - m * 2, y + cardHeight),
            clickable: true,
            focusable: true,
            action: `task:${task.taskId}`,
            paint: {
              fill: hex(task.color),
              radius: L.dp(16),
              label: task.label,
              textColor: '#ffffff',
              fontSize: L.dp(18),
              align: 'center',
            },
          });
        });
        const children: UiNode[] = [...cards];
        if (tasks.length > 0) {
          const y = L.content.bottom - L.dp(72);
          children.push(
            button(
              L,
              'com.google.android.apps.nexuslauncher',
              rect(L.width / 2 - L.dp(72), y, L.width / 2 + L.dp(72), y + L.dp(48)),
              'Clear all',
              {
                id: 'clear_all',
                action: 'clear_all',
                color: [0x44, 0x44, 0x44],
              },
            ),
          );
        } else {
          const y = Math.round((L.content.top + L.content.bottom) / 2);
          children.push(
            uiNode({
              className: 'android.widget.TextView',
              text: 'No recent items',
              bounds: rect(0, y - L.dp(20), L.width, y + L.dp(20)),
              paint: { textColor: '#ffffff', fontSize: L.dp(16), align: 'center' },
            }),
          );
        }
        return [
          uiNode({
            className: 'android.widget.FrameLayout',
            resourceId: 'com.google.android.apps.nexuslauncher:id/overview_panel',
            bounds: L.content,
            paint: { fill: hex(RECENTS_BACKGROUND_RGB) },
            children,
          }),
        ];
      },
      onAction(action, ctx) {
        if (action.startsWith('task:')) ctx.openTask(Number(action.slice('task:'.length)));
        if (action === 'clear_all') ctx.clearRecents();
      },
    },
  },
};
