/**
 * Pairing requests: xAgent users binding a phone through desktop approval. The person
 * compares the code shown in xAgent with the big code here, picks the phone, and approves.
 */
import { useState } from 'react';
import type { AdminDevice, AdminPairing, AdminState } from '../../../../main/contract/admin-api';
import type { BridgeApi, PairingDecision } from '../../api/bridge-api';
import { Countdown } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { shortId } from '../../lib/time-format';

export function PairingsView(props: { api: BridgeApi; state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { pairings, devices } = props.state;
  return (
    <section aria-labelledby="pairings-heading">
      <header className="view-header">
        <h2 id="pairings-heading">Pairing requests</h2>
        <p className="view-sub">Approve only when the code matches the one shown in xAgent.</p>
      </header>
      {pairings.length === 0 ? (
        <EmptyState title="No pairing request waiting" testId="pairings-empty">
          <p>When someone binds this connector in xAgent, a code appears there and here at the same time.</p>
          <p className="hint">
            Check that the codes match, pick the phone, and approve. To let lab users claim phones by name without a request, set an
            access code under <b>Settings → Lab access codes</b>.
          </p>
        </EmptyState>
      ) : (
        <ul className="card-grid card-grid-wide" data-testid="pairing-list">
          {pairings.map((pairing) => (
            <PairingCard key={pairing.auth_session_id} api={props.api} pairing={pairing} devices={devices} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

function PairingCard(props: { api: BridgeApi; pairing: AdminPairing; devices: AdminDevice[]; onChanged: () => void }): React.JSX.Element {
  const { pairing } = props;
  const id = pairing.auth_session_id;
  // Online phones, plus the one the request names (a device claim) even if it just dropped.
  const phones = props.devices.filter((d) => d.state === 'device' || d.device_id === pairing.device_id);
  // Preselect the phone the request names; otherwise the only phone, if nobody holds it.
  const free = phones.filter((p) => p.state === 'device' && !p.lease);
  const preselected =
    pairing.device_id && phones.some((p) => p.device_id === pairing.device_id)
      ? pairing.device_id
      : phones.length === 1 && free.length === 1
        ? (free[0]?.device_id ?? '')
        : '';
  const [deviceId, setDeviceId] = useState(preselected);
  const decide = useAction((decision: PairingDecision) => props.api.decidePairing(id, decision), props.onChanged);
  const chosen = phones.some((p) => p.device_id === deviceId) ? deviceId : '';

  return (
    <li className="card pairing-card" data-testid={`pairing-${id}`}>
      <div className="pairing-code" data-testid={`pairing-code-${id}`} aria-label={`Pairing code ${pairing.code.split('').join(' ')}`}>
        {pairing.code}
      </div>
      <p className="muted small">
        Channel <span className="mono">{shortId(pairing.connector_channel_id)}</span> · expires in{' '}
        <Countdown to={pairing.expires_at} testId={`pairing-expires-${id}`} />
      </p>
      {pairing.message ? (
        <p className="hint" title="What xAgent shows the person who asked">
          xAgent says: “{pairing.message}”
        </p>
      ) : null}
      <label htmlFor={`pairing-device-${id}`}>Phone to bind</label>
      {phones.length === 0 ? (
        <p className="hint hint-warn">No phone is online. Connect one (see Devices) to approve this request.</p>
      ) : (
        <select id={`pairing-device-${id}`} value={chosen} onChange={(event) => setDeviceId(event.target.value)} data-testid={`pairing-device-${id}`}>
          <option value="">Choose a phone…</option>
          {phones.map((phone) => (
            <option key={phone.device_id} value={phone.device_id}>
              {phone.display_name}
              {phone.state !== 'device' ? ` (${phone.state})` : phone.lease ? ' (in use)' : ''}
            </option>
          ))}
        </select>
      )}
      <div className="actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={decide.pending || chosen === ''}
          onClick={() => decide.run({ action: 'approve', device_id: chosen })}
          data-testid={`pairing-approve-${id}`}
        >
          Approve
        </button>
        <button type="button" className="btn" disabled={decide.pending} onClick={() => decide.run({ action: 'deny' })} data-testid={`pairing-deny-${id}`}>
          Deny
        </button>
      </div>
      <ErrorText error={decide.error} testId={`pairing-error-${id}`} />
    </li>
  );
}
