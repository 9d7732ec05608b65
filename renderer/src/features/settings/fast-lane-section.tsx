/**
 * Settings → Fast lane: the lab-wide default for the resident helper (README "Fast lane").
 * `ask`: a person enables it on each phone's card; `on`: every phone uses it unless turned off
 * on its card. Saved in the bridge's settings.
 */
import type { AdminFastLane } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';

export function FastLaneSection(props: { api: BridgeApi; fastLane: AdminFastLane | undefined; onChanged: () => void }): React.JSX.Element | null {
  const { t } = useT();
  const save = useAction((mode: AdminFastLane['default']) => props.api.putFastLane(mode), props.onChanged);
  if (!props.fastLane) return null;
  return (
    <section className="settings-section" aria-labelledby="fast-lane-heading" data-testid="settings-fast-lane">
      <h3 id="fast-lane-heading">{t('helper.settings.title')}</h3>
      <p className="hint">{t('helper.settings.explain')}</p>
      <div className="field">
        <label htmlFor="settings-fast-lane">{t('helper.settings.default')}</label>
        <select
          id="settings-fast-lane"
          value={props.fastLane.default}
          disabled={save.pending || !props.fastLane.available}
          onChange={(event) => save.run(event.target.value === 'on' ? 'on' : 'ask')}
          data-testid="settings-fast-lane-default"
        >
          <option value="ask">{t('helper.settings.ask')}</option>
          <option value="on">{t('helper.settings.on')}</option>
        </select>
      </div>
      {props.fastLane.available ? null : <p className="hint hint-warn">{t('helper.unavailable')}</p>}
      <ErrorText error={save.error} testId="settings-fast-lane-error" />
    </section>
  );
}
