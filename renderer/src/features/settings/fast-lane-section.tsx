/**
 * Settings → Fast lane: the lab-wide defaults for the resident helper (docs/REFERENCE.md "Fast lane").
 * `ask`: a person enables it on each phone's card; `on`: every phone uses it unless turned off
 * on its card. And whether phones with a network address may run it (its ports are then
 * reachable there): off, each phone's person accepts it on its card. Saved in the bridge's settings.
 */
import type { AdminFastLane } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';

export function FastLaneSection(props: {
  api: BridgeApi;
  fastLane: AdminFastLane | undefined;
  onChanged: () => void;
}): React.JSX.Element | null {
  const { t } = useT();
  const save = useAction(
    (change: { default?: AdminFastLane['default']; network_default?: boolean }) => props.api.putFastLane(change),
    props.onChanged,
  );
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
          onChange={(event) => save.run({ default: event.target.value === 'on' ? 'on' : 'ask' })}
          data-testid="settings-fast-lane-default"
        >
          <option value="ask">{t('helper.settings.ask')}</option>
          <option value="on">{t('helper.settings.on')}</option>
        </select>
      </div>
      <div className="field field-check">
        <label>
          <input
            type="checkbox"
            checked={props.fastLane.network_default}
            disabled={save.pending || !props.fastLane.available}
            onChange={(event) => save.run({ network_default: event.target.checked })}
            data-testid="settings-fast-lane-network"
          />{' '}
          {t('helper.settings.network')}
        </label>
        <p className="hint">{t('helper.settings.networkExplain')}</p>
      </div>
      {props.fastLane.available ? null : <p className="hint hint-warn">{t('helper.unavailable')}</p>}
      <ErrorText error={save.error} testId="settings-fast-lane-error" />
    </section>
  );
}
