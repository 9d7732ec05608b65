/**
 * Incremental parser for a text/event-stream body (the admin API's `GET events`), fed with
 * decoded text chunks that may split lines anywhere. Follows the SSE rules the bridge
 * relies on: `data:` lines accumulate, a blank line dispatches, `:` lines are comments
 * (keep-alives). DOM-free so it runs in Node tests.
 */
import { ADMIN_EVENT_TYPES } from '../../../main/contract/admin-api';
import type { AdminEvent } from './bridge-api';

export interface SseMessage {
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private eventName = '';
  /** A chunk ended in '\r': a following '\n' belongs to the same line break. */
  private pendingCr = false;

  /** Feeds one chunk; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone '\r' at the very end may be the first half of '\r\n'.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) {
        this.pendingCr = true;
      }
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.eventName = '';
        return undefined;
      }
      const message = { event: this.eventName || 'message', data: this.data.join('\n') };
      this.data = [];
      this.eventName = '';
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
    return undefined;
  }
}

/**
 * Reads one message's data as an admin event. Unknown or malformed payloads still mean
 * "something changed", so they become a `state` event rather than being dropped.
 */
export function toAdminEvent(message: SseMessage): AdminEvent {
  try {
    const parsed = JSON.parse(message.data) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const type = (parsed as { type?: unknown }).type;
      if (typeof type === 'string' && (ADMIN_EVENT_TYPES as readonly string[]).includes(type)) {
        return parsed as AdminEvent;
      }
      return { ...(parsed as Record<string, unknown>), type: 'state' };
    }
  } catch {
    // fall through: still a change notification
  }
  return { type: 'state' };
}
