/**
 * The stand-in app for packages installed with `pm install`: a toolbar with the package
 * name and one line of text, launchable from the home screen as `<pkg>/.MainActivity`.
 */
import type { AppDef } from './app-types';
import { APP_BACKGROUND_RGB, GENERIC_HEADER_RGB } from './colors';
import { appPage, pageRow, textView } from './app-widgets';

export function createGenericApp(pkg: string): AppDef {
  const label = pkg.split('.').pop() ?? pkg;
  return {
    pkg,
    label,
    system: false,
    launchable: true,
    header: GENERIC_HEADER_RGB,
    background: APP_BACKGROUND_RGB,
    launchScreen: 'main',
    screens: {
      main: {
        activity: `${pkg}.MainActivity`,
        exported: true,
        build(ctx) {
          const L = ctx.layout;
          return appPage(L, pkg, label, GENERIC_HEADER_RGB, [
            textView(L, pkg, pageRow(L, 0, 32), `Installed package ${pkg}`, { id: 'message' }),
          ]);
        },
      },
    },
  };
}
