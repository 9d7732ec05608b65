/**
 * Finding one phone among hundreds: the Devices view's search and filters, as plain functions.
 * The one rule: every word typed must be found in one of the phone's names (label, model,
 * maker, serial, device id, host) or its holder's (the claimant's name, the phone as they named
 * it, the channel), case and the label's "···" forgiven; the filters then narrow by host,
 * state and lease.
 */
import type { AdminChannel, AdminDevice, AdminState, DeviceStateName } from '../../../../main/contract/admin-api';

export type StateFilter = 'all' | DeviceStateName | 'problem';
export type LeaseFilter = 'all' | 'leased' | 'free';

export interface DeviceFilters {
  query: string;
  /** An ADB host's address, or 'all'. */
  host: string;
  state: StateFilter;
  lease: LeaseFilter;
}

export const NO_FILTERS: DeviceFilters = { query: '', host: 'all', state: 'all', lease: 'all' };

function normalize(text: string): string {
  return text.toLowerCase().replace(/···|…/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The words that name who holds a phone: the claimant, the phone as they named it, the channel. */
export function holderWords(device: AdminDevice, channels: readonly AdminChannel[]): string {
  if (!device.lease) return '';
  const channel = channels.find((c) => c.connector_channel_id === device.lease?.connector_channel_id);
  return [device.lease.connector_channel_id, channel?.holder?.requester, channel?.holder?.claimed_as]
    .filter((w): w is string => typeof w === 'string' && w.length > 0)
    .join(' ');
}

/** A phone that needs the person: not online, or its check found something to fix. */
export function hasProblem(device: AdminDevice): boolean {
  return (
    device.state !== 'device' ||
    device.reason !== null ||
    (device.check?.checks.some((c) => c.status === 'problem') ?? false)
  );
}

function searchable(device: AdminDevice, holder: string): string {
  return normalize(
    [
      device.display_name,
      device.model,
      device.manufacturer,
      device.serial,
      device.hardware_serial,
      device.device_id,
      device.adb_server,
      holder,
    ]
      .filter(Boolean)
      .join(' '),
  );
}

/** The phones that match, in the admin state's order. */
export function filterDevices(state: Pick<AdminState, 'devices' | 'channels'>, filters: DeviceFilters): AdminDevice[] {
  const words = normalize(filters.query)
    .split(' ')
    .filter((w) => w.length > 0);
  return state.devices.filter((device) => {
    if (filters.host !== 'all' && device.adb_server !== filters.host) return false;
    if (filters.state === 'problem' ? !hasProblem(device) : filters.state !== 'all' && device.state !== filters.state)
      return false;
    if (filters.lease === 'leased' && device.lease === null) return false;
    if (filters.lease === 'free' && device.lease !== null) return false;
    if (words.length === 0) return true;
    const text = searchable(device, holderWords(device, state.channels));
    return words.every((w) => text.includes(w));
  });
}
