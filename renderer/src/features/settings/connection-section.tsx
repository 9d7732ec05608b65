/**
 * Settings → Connection: the base URL xAgent is given and how the bridge faces the network
 * (TLS, public URL, who may connect). What to paste where in xAgent, the API key and the live
 * status are on the Connect xAgent page (features/connect/), linked from here.
 */
import type { AdminSettings } from '../../../../main/contract/admin-api';
import { routeHash } from '../../../../main/contract/console-route';
import { CopyButton } from '../../components/copy-button';
import { useT } from '../../i18n/i18n-context';
import { NetworkFacts } from './network-facts';

export function ConnectionSection(props: { settings: AdminSettings }): React.JSX.Element {
  const { settings } = props;
  const { t } = useT();
  return (
    <section className="settings-section" aria-labelledby="connection-heading">
      <h3 id="connection-heading">{t('settings.connection.title')}</h3>
      <p>
        {t('settings.connection.guide')}{' '}
        <a href={routeHash({ section: 'connect' })} data-testid="settings-connect-link">
          {t('settings.connection.openGuide')}
        </a>
      </p>
      <dl className="facts facts-wide">
        <dt>{t('settings.connection.baseUrl')}</dt>
        <dd className="with-actions">
          <code data-testid="settings-base-url">{settings.base_url}</code>
          <CopyButton getText={() => settings.base_url} testId="settings-base-url-copy" />
        </dd>
      </dl>
      <NetworkFacts settings={settings} />
    </section>
  );
}
