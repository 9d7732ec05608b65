/**
 * How the bridge faces the network, read-only (set at start by flags, env or the desktop
 * settings file; docs/REFERENCE.md "For labs"): https with which certificate — its SHA-256
 * fingerprint to pin or compare on the xAgent host — the public URL behind a proxy, and
 * the address rules.
 */
import type { AdminSettings } from '../../../../main/contract/admin-api';
import { CopyButton } from '../../components/copy-button';
import { useT } from '../../i18n/i18n-context';

export function NetworkFacts(props: { settings: AdminSettings }): React.JSX.Element {
  const { tls, public_url: publicUrl, allow_from: allowFrom, trust_proxy: trustProxy } = props.settings;
  const { t } = useT();
  return (
    <dl className="facts facts-wide" data-testid="settings-network">
      <dt>{t('settings.network.tls')}</dt>
      <dd data-testid="settings-tls">
        {tls
          ? t('settings.network.tlsOn', {
              source: tls.source === 'self-signed' ? t('settings.network.selfSigned') : t('settings.network.certFile'),
              date: new Date(tls.valid_to).toISOString().slice(0, 10),
            })
          : publicUrl?.startsWith('https://')
            ? t('settings.network.proxyTls')
            : t('settings.network.tlsOff')}
      </dd>
      {tls ? (
        <>
          <dt>{t('settings.network.fingerprint')}</dt>
          <dd className="with-actions">
            <code data-testid="settings-tls-fingerprint">SHA-256 {tls.fingerprint_sha256}</code>
            <CopyButton getText={() => tls.fingerprint_sha256} testId="settings-tls-fingerprint-copy" />
          </dd>
          <dt>{t('settings.network.certificate')}</dt>
          <dd className="mono" data-testid="settings-tls-cert">
            {tls.cert_file}
          </dd>
          <dt>{t('settings.network.key')}</dt>
          <dd className="mono">{tls.key_file}</dd>
          <dt>{t('settings.network.names')}</dt>
          <dd className="mono small">{tls.subject_alt_names.join(', ')}</dd>
        </>
      ) : null}
      {publicUrl ? (
        <>
          <dt>{t('settings.network.publicUrl')}</dt>
          <dd className="mono" data-testid="settings-public-url">
            {publicUrl}
          </dd>
        </>
      ) : null}
      <dt>{t('settings.network.whoMayConnect')}</dt>
      <dd data-testid="settings-allow-from">
        {allowFrom.length ? <code>{allowFrom.join(', ')}</code> : t('settings.network.anyone')}
      </dd>
      {trustProxy.length ? (
        <>
          <dt>{t('settings.network.trustedProxies')}</dt>
          <dd>
            <code>{trustProxy.join(', ')}</code>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
