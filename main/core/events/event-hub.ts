/**
 * EventHub: "something changed" notifications for the UI (admin SSE stream, Electron IPC).
 * Bursts are coalesced per type so a flapping phone cannot flood the UI.
 */
import { EventEmitter } from 'node:events';
import type { AdminEventType } from '../../contract/admin-api';

export interface HubEvent {
  type: AdminEventType;
  at: number;
  [key: string]: unknown;
}

export class EventHub extends EventEmitter<{ event: [HubEvent] }> {
  private readonly pending = new Map<AdminEventType, HubEvent>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly coalesceMs = 50) {
    super();
    this.setMaxListeners(100);
  }

  publish(type: AdminEventType, extra: Record<string, unknown> = {}): void {
    this.pending.set(type, { ...extra, type, at: Date.now() });
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const events = [...this.pending.values()];
      this.pending.clear();
      for (const event of events) this.emit('event', event);
    }, this.coalesceMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.removeAllListeners();
  }
}
