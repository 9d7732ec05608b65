/**
 * How the bridge faces the network, read-only (set at start by flags, env or the desktop
 * settings file; README "For labs"): https with which certificate — its SHA-256
 * fingerprint to pin or compare on the xAgent host — the public URL behind a proxy, and
 * the address rules.
 */
import type { AdminSettings } from '../../../../main/contract/admin-api';
import { CopyButton } from '../../components/copy-button';

export function NetworkFacts(props: { settings: AdminSettings }): React.JSX.Element {
  const { tls, public_url: publicUrl, allow_from: allowFrom, trust_proxy: trustProxy } = props.settings;
  return (
    <dl className="facts facts-wide" data-testid="settings-network">
      <dt>TLS</dt>
      <dd data-testid="settings-tls">
        {tls ? (
          <>
            https/wss, {tls.source === 'self-signed' ? 'self-signed certificate' : 'certificate from --tls-cert'}, valid until{' '}
            {new Date(tls.valid_to).toISOString().slice(0, 10)}
          </>
        ) : publicUrl?.startsWith('https://') ? (
          'off in the bridge; your proxy terminates TLS'
        ) : (
          'off (plain http)'
        )}
      </dd>
      {tls ? (
        <>
          <dt>Fingerprint</dt>
          <dd className="with-actions">
            <code data-testid="settings-tls-fingerprint">SHA-256 {tls.fingerprint_sha256}</code>
            <CopyButton getText={() => tls.fingerprint_sha256} testId="settings-tls-fingerprint-copy" />
          </dd>
          <dt>Certificate</dt>
          <dd className="mono" data-testid="settings-tls-cert">
            {tls.cert_file}
          </dd>
          <dt>Key</dt>
          <dd className="mono">{tls.key_file}</dd>
          <dt>Names</dt>
          <dd className="mono small">{tls.subject_alt_names.join(', ')}</dd>
        </>
      ) : null}
      {publicUrl ? (
        <>
          <dt>Public URL</dt>
          <dd className="mono" data-testid="settings-public-url">
            {publicUrl}
          </dd>
        </>
      ) : null}
      <dt>Who may connect</dt>
      <dd data-testid="settings-allow-from">{allowFrom.length ? <code>{allowFrom.join(', ')}</code> : 'anyone who can reach the port'}</dd>
      {trustProxy.length ? (
        <>
          <dt>Trusted proxies</dt>
          <dd>
            <code>{trustProxy.join(', ')}</code>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
