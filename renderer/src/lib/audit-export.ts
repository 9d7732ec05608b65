/**
 * Activity view logic: client-side filters over the audit trail and the JSON-lines export.
 */
import type { AuditEntry } from '../../../main/contract/admin-api';

export interface AuditFilter {
  /** '' = every phone. */
  deviceId: string;
  /** '' = every channel. */
  channelId: string;
}

export function filterAudit(entries: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  return entries.filter(
    (entry) =>
      (filter.deviceId === '' || entry.device_id === filter.deviceId) &&
      (filter.channelId === '' || entry.connector_channel_id === filter.channelId),
  );
}

/** Newest first, the order people read an activity log in. */
export function newestFirst(entries: readonly AuditEntry[]): AuditEntry[] {
  return [...entries].sort((a, b) => b.time - a.time);
}

/** One JSON object per line, newline-terminated; empty string for no entries. */
export function toJsonLines(entries: readonly AuditEntry[]): string {
  return entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

/** Distinct non-null values of one field, sorted, for the filter pickers. */
export function distinctValues(entries: readonly AuditEntry[], field: 'device_id' | 'connector_channel_id'): string[] {
  const values = new Set<string>();
  for (const entry of entries) {
    const value = entry[field];
    if (value) values.add(value);
  }
  return [...values].sort();
}

export function exportFileName(nowMs: number): string {
  const iso = new Date(nowMs).toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
  return `device-bridge-activity-${iso}.jsonl`;
}
