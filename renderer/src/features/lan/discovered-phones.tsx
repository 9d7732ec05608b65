/**
 * Phones with wireless debugging that adb's mDNS browser sees on the network, per ADB
 * server: a connectable phone is added with one click; a phone showing its pairing code
 * prefills the pairing form. Asked when the view opens and on Refresh (the bridge caches
 * the answer for a few seconds), never polled.
 */
import type { AdminLanDiscovered, AdminState } from '../../../../main/contract/admin-api';
import { useBridgeQuery } from '../../api/use-bridge-query';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

type Service = AdminLanDiscovered['servers'][number]['services'][number];

export function DiscoveredPhones(props: {
  state: AdminState;
  onChanged: () => void;
  onPair: (address: string) => void;
}): React.JSX.Element {
  const { state } = props;
  const { t } = useT();
  const { data: found, error, loading, refetch: refresh } = useBridgeQuery((client) => client.getLanDiscovered(), []);

  const known = new Set([...state.lan_devices.map((l) => l.address), ...state.devices.map((d) => d.serial)]);
  const services =
    found?.servers.flatMap((s) =>
      s.services.filter((svc) => svc.kind !== 'other').map((svc) => ({ ...svc, server: s.adb_server })),
    ) ?? [];
  const notes = found?.servers.filter((s) => s.note) ?? [];
  // Looking again cannot help when no ADB server can browse mDNS at all.
  const canLook = !found || found.servers.some((s) => s.supported);

  return (
    <section className="discovered" aria-labelledby="lan-discovered-heading" data-testid="lan-discovered">
      <div className="section-title-row">
        <h3 id="lan-discovered-heading" className="section-title">
          {t('lan.found.title')}
        </h3>
        {canLook ? (
          <button
            type="button"
            className="btn btn-small"
            onClick={refresh}
            disabled={loading}
            data-testid="lan-discovered-refresh"
          >
            {loading ? t('lan.found.looking') : t('lan.found.again')}
          </button>
        ) : null}
      </div>
      <ErrorText error={error} testId="lan-discovered-error" />
      {notes.map((s) => (
        <p key={s.adb_server} className="hint" data-testid={`lan-discovered-note-${s.adb_server}`}>
          {t('lan.found.server')} <span className="mono">{s.adb_server}</span>: {s.note}
        </p>
      ))}
      {found && services.length === 0 && notes.length < found.servers.length ? (
        <p className="hint" data-testid="lan-discovered-empty">
          <Rich text={t('lan.found.empty')} />
        </p>
      ) : null}
      {services.length > 0 ? (
        <ul className="row-list" data-testid="lan-discovered-list">
          {services.map((svc) => (
            <DiscoveredRow
              key={`${svc.server}|${svc.service_type}|${svc.address}`}
              service={svc}
              known={known.has(svc.address)}
              onChanged={props.onChanged}
              onPair={props.onPair}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function DiscoveredRow(props: {
  service: Service;
  known: boolean;
  onChanged: () => void;
  onPair: (address: string) => void;
}): React.JSX.Element {
  const api = useApi();
  const { service } = props;
  const { t } = useT();
  const add = useAction(() => api.addLanDevice({ address: service.address }), props.onChanged);
  const pairing = service.kind === 'pairing';
  return (
    <li className="row" data-testid={`lan-discovered-${service.address}`}>
      <div className="row-main">
        <div className="card-title-row">
          <span className="strong">{service.name}</span>
          <span className="mono muted">{service.address}</span>
        </div>
        <p className="muted small">{pairing ? t('lan.found.pairing') : t('lan.found.ready')}</p>
        <ErrorText error={add.error} testId={`lan-discovered-error-${service.address}`} />
      </div>
      {pairing ? (
        <button
          type="button"
          className="btn"
          onClick={() => props.onPair(service.address)}
          data-testid={`lan-discovered-pair-${service.address}`}
        >
          {t('lan.found.pair')}
        </button>
      ) : props.known ? (
        <span className="muted small">{t('lan.found.added')}</span>
      ) : (
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => add.run()}
          disabled={add.pending}
          data-testid={`lan-discovered-add-${service.address}`}
        >
          {add.pending ? t('lan.add.pending') : t('lan.add.button')}
        </button>
      )}
    </li>
  );
}
