/**
 * What the web console shows without a usable admin token: how to get the right link.
 */

export const TOKEN_HELP = 'Open the console link printed by `device-bridge serve` (it carries the admin token).';

export function TokenScreen(props: { reason: 'missing' | 'invalid' }): React.JSX.Element {
  return (
    <main className="token-screen" data-testid="token-screen">
      <div className="token-card">
        <h1>xAgent Device Bridge</h1>
        {props.reason === 'invalid' ? (
          <p className="error-text" role="alert" data-testid="token-invalid">
            The admin token was not accepted. It may come from an earlier run of the bridge, or the link was cut short.
          </p>
        ) : null}
        <p className="lead">
          Open the console link printed by <code>device-bridge serve</code> (it carries the admin token).
        </p>
        <p className="hint">
          It looks like <code>http://127.0.0.1:8765/console/#token=…</code>. To choose the token yourself, start the bridge with{' '}
          <code>DEVICE_BRIDGE_ADMIN_TOKEN</code> set.
        </p>
        <p className="hint">
          Lost the link? <code>device-bridge admin-token</code> prints the token (add <code>--data-dir</code> if the bridge uses another
          folder).
        </p>
      </div>
    </main>
  );
}
