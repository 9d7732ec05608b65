/**
 * Settings → appium-uiautomator2-server (docs/REFERENCE.md "Fast lane"): there is nothing to
 * set lab-wide any more. It is a per-phone opt-in, off on every phone, turned on from a
 * phone's card beside the words that say what it exposes; this section says so, and whether
 * this build carries it.
 */
import type { AdminFastLane } from '../../../../main/contract/admin-api';
import { useT } from '../../i18n/i18n-context';

export function FastLaneSection(props: { fastLane: AdminFastLane | undefined }): React.JSX.Element | null {
  const { t } = useT();
  if (!props.fastLane) return null;
  return (
    <section className="settings-section" aria-labelledby="fast-lane-heading" data-testid="settings-fast-lane">
      <h3 id="fast-lane-heading">{t('helper.settings.title')}</h3>
      <p className="hint">{t('helper.settings.explain')}</p>
      {props.fastLane.available ? null : <p className="hint hint-warn">{t('helper.unavailable')}</p>}
    </section>
  );
}
