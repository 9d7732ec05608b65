/**
 * Sends the person's input to the phone they hold, one request at a time and in the order it
 * was made (a tap, then typing, then Enter must reach the phone in that order, and a second
 * tap must not be dropped while the first is on its way). Typing is gathered for a moment so
 * a word is one request, not one per key; any other input sends what was typed first. The
 * last refusal (off the screen, a language the phone cannot type) stays shown until an input
 * goes through.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminPersonInput } from '../../../../main/contract/admin-api';
import { toApiError, type ApiError } from '../../api/bridge-api';
import { useApi } from '../../api/api-context';

/** Keys typed within this long of each other go in one request. */
const TYPING_GATHER_MS = 120;
/** The bridge takes at most this many UTF-16 units a request (person-input.ts); a long paste goes in parts. */
const MAX_TEXT_PER_REQUEST = 1_000;

/** Splits text into parts of at most `max` UTF-16 units, never inside a character. */
export function textParts(text: string, max = MAX_TEXT_PER_REQUEST): string[] {
  const parts: string[] = [];
  let part = '';
  for (const ch of text) {
    if (part.length + ch.length > max) {
      parts.push(part);
      part = '';
    }
    part += ch;
  }
  if (part !== '') parts.push(part);
  return parts;
}

export interface PersonInputSender {
  send: (input: Exclude<AdminPersonInput, { kind: 'text' }>) => void;
  type: (text: string) => void;
  error: ApiError | null;
  /** Inputs sent and answered since the view opened (tests wait on it). */
  done: number;
}

export function usePersonInput(deviceId: string): PersonInputSender {
  const api = useApi();
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(0);
  const chain = useRef<Promise<void>>(Promise.resolve());
  const typed = useRef('');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // One session per phone shown: an answer that comes back after the view closed or moved to
  // another phone is not this view's to show.
  const session = useRef({ open: true });

  useEffect(() => {
    const mine = { open: true };
    session.current = mine;
    return () => {
      mine.open = false;
      // What was typed for this phone is never sent to the next one.
      clearTimeout(timer.current);
      typed.current = '';
    };
  }, [api, deviceId]);

  const enqueue = useCallback(
    (input: AdminPersonInput) => {
      const mine = session.current;
      chain.current = chain.current.then(async () => {
        try {
          await api.sendDeviceInput({ device_id: deviceId, ...input });
          if (!mine.open) return;
          setError(null);
          setDone((n) => n + 1);
        } catch (failure) {
          if (!mine.open) return;
          setError(toApiError(failure));
          setDone((n) => n + 1);
        }
      });
    },
    [api, deviceId],
  );

  const flushTyping = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const text = typed.current;
    typed.current = '';
    for (const part of textParts(text)) enqueue({ kind: 'text', text: part });
  }, [enqueue]);

  const send = useCallback(
    (input: Exclude<AdminPersonInput, { kind: 'text' }>) => {
      flushTyping();
      enqueue(input);
    },
    [enqueue, flushTyping],
  );

  const type = useCallback(
    (text: string) => {
      if (text === '') return;
      typed.current += text;
      clearTimeout(timer.current);
      timer.current = setTimeout(flushTyping, TYPING_GATHER_MS);
    },
    [flushTyping],
  );

  return { send, type, error, done };
}
