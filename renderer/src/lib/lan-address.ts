/**
 * Checks a LAN phone address typed by a person (HOST[:PORT]) before it is sent, so obvious
 * typos get an immediate, specific message (in the UI's language: pass its `t`); the bridge
 * validates again.
 */
import { translator, type Translate } from '../../../main/contract/i18n';

export interface AddressCheck {
  ok: boolean;
  message?: string;
}

const HOST_RE = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)$/;
const ENGLISH = translator('en');

export function checkLanAddress(input: string, requirePort = false, t: Translate = ENGLISH): AddressCheck {
  const value = input.trim();
  if (value === '') return { ok: false, message: t('lan.check.empty') };
  let host = value;
  let port: string | undefined;
  const bracketed = /^(\[[^\]]+\])(?::(.*))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1] ?? '';
    port = bracketed[2];
  } else if ((value.match(/:/g) ?? []).length === 1) {
    [host, port] = value.split(':') as [string, string];
  }
  if (!HOST_RE.test(host)) return { ok: false, message: t('lan.check.host', { host }) };
  if (port === undefined) {
    return requirePort ? { ok: false, message: t('lan.check.needPort') } : { ok: true };
  }
  const n = Number(port);
  if (!/^\d+$/.test(port) || n < 1 || n > 65535) return { ok: false, message: t('lan.check.port', { port }) };
  return { ok: true };
}

/** Wireless-debugging pairing codes are six digits. */
export function checkPairingCode(input: string, t: Translate = ENGLISH): AddressCheck {
  return /^\d{6}$/.test(input.trim()) ? { ok: true } : { ok: false, message: t('lan.check.code') };
}
