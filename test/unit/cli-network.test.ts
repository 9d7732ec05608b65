/**
 * The network flags of serve/demo: a flag wins over its env variable, a TLS pair comes
 * from one place, and the refusals name the flag.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../main/cli-args';
import { networkFromCommandLine, type NetworkFlagReader } from '../../main/cli-network';

function flags(given: Record<string, string | string[]>): NetworkFlagReader {
  return {
    value: (name) => (typeof given[name] === 'string' ? given[name] : undefined),
    values: (name) => (Array.isArray(given[name]) ? given[name] : []),
  };
}

void describe('networkFromCommandLine', () => {
  void test('flags, env variables and their precedence', () => {
    assert.deepEqual(networkFromCommandLine(flags({}), {}), {});
    assert.deepEqual(
      networkFromCommandLine(
        flags({ tls: 'self-signed', 'allow-from': ['10.0.0.0/8', 'fd00::/8'], 'trust-proxy': ['127.0.0.1'] }),
        {},
      ),
      {
        tls: 'self-signed',
        allowFrom: ['10.0.0.0/8', 'fd00::/8'],
        trustProxy: ['127.0.0.1'],
      },
    );
    const env = {
      DEVICE_BRIDGE_TLS_CERT: '/env/cert.pem',
      DEVICE_BRIDGE_TLS_KEY: '/env/key.pem',
      DEVICE_BRIDGE_PUBLIC_URL: 'https://env.example/x',
    };
    assert.deepEqual(networkFromCommandLine(flags({}), env), {
      tls: { certFile: '/env/cert.pem', keyFile: '/env/key.pem' },
      publicUrl: 'https://env.example/x',
    });
    assert.deepEqual(
      networkFromCommandLine(
        flags({ 'tls-cert': '/f/cert.pem', 'tls-key': '/f/key.pem', 'public-url': 'https://flag.example' }),
        env,
      ),
      {
        tls: { certFile: '/f/cert.pem', keyFile: '/f/key.pem' },
        publicUrl: 'https://flag.example',
      },
    );
    assert.deepEqual(
      networkFromCommandLine(flags({ tls: 'self-signed' }), env).tls,
      'self-signed',
      '--tls self-signed wins over the env pair',
    );
  });

  void test('refusals name the flags', () => {
    const refused = (given: Record<string, string | string[]>, env: NodeJS.ProcessEnv, message: string): void => {
      assert.throws(
        () => networkFromCommandLine(flags(given), env),
        (e: unknown) => e instanceof UsageError && e.code === 'invalid_value' && e.message === message,
      );
    };
    refused({ 'tls-cert': '/c.pem' }, {}, '--tls-key is missing: --tls-cert and --tls-key go together');
    refused(
      { 'tls-key': '/k.pem' },
      { DEVICE_BRIDGE_TLS_CERT: '/env/c.pem' },
      '--tls-cert is missing: --tls-cert and --tls-key go together',
    );
    refused(
      {},
      { DEVICE_BRIDGE_TLS_KEY: '/env/k.pem' },
      'DEVICE_BRIDGE_TLS_CERT is missing: DEVICE_BRIDGE_TLS_CERT and DEVICE_BRIDGE_TLS_KEY go together',
    );
    refused(
      { tls: 'on' },
      {},
      '--tls takes only self-signed (got "on"); for your own certificate use --tls-cert FILE --tls-key FILE',
    );
    refused(
      { tls: 'self-signed', 'tls-cert': '/c.pem', 'tls-key': '/k.pem' },
      {},
      '--tls self-signed and --tls-cert/--tls-key exclude each other: choose one',
    );
  });
});
