/**
 * Pictures of a phone's screen fetched one after another and shown through object URLs (a
 * blob, so the admin token rides in a header): the devices' thumbnails and the phone view's
 * live screen. One ask at a time; none while the page is hidden (the next starts when it is
 * shown again); the ask in flight is aborted and the timer cleared when the loop stops
 * (disabled, `key` changed, view closed). At most two object URLs live at a time: the one on
 * screen and the one before it, released only once a newer one has been rendered, so an
 * <img> never points at a released URL; both are released when the loop stops.
 */
import { useEffect, useRef } from 'react';

/** The two object URLs a loop owns. */
export interface FrameUrls {
  /** A URL for `blob`, to show now; the URL shown two pictures ago is released. */
  show(blob: Blob): string;
}

export interface FrameLoopSteps<T> {
  /** The loop (re)started: what to show before the first answer. */
  begin?: (urls: FrameUrls) => void;
  /** One ask; aborted when the loop stops. */
  fetch: (signal: AbortSignal) => Promise<T>;
  /** An answer while the loop still runs; returns how long to wait before the next ask. */
  present: (answer: T, urls: FrameUrls, askedAt: number) => number;
  /** An ask failed while the loop still runs; returns how long to wait before the next ask. */
  failed: () => number;
  /** The page is hidden: the loop waits until it is shown again. */
  hidden?: () => void;
  /** The loop stopped and released its URLs: nothing may show them any more. */
  ended: () => void;
}

export function useFrameLoop<T>(enabled: boolean, key: readonly unknown[], steps: FrameLoopSteps<T>): void {
  // The caller's latest steps, read at each ask: its inline functions are new on every render
  // and must not restart the loop; `enabled` and `key` say when it restarts.
  const latest = useRef(steps);
  useEffect(() => {
    latest.current = steps;
  });
  const keyText = JSON.stringify(key);

  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let running = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | undefined;
    let shown: string | null = null;
    let previous: string | null = null;
    const urls: FrameUrls = {
      show(blob) {
        if (previous) URL.revokeObjectURL(previous);
        previous = shown;
        shown = URL.createObjectURL(blob);
        return shown;
      },
    };
    const visible = (): boolean => document.visibilityState === 'visible';

    const tick = async (): Promise<void> => {
      timer = undefined;
      if (stopped || running) return;
      if (!visible()) {
        latest.current.hidden?.();
        return;
      }
      running = true;
      controller = new AbortController();
      const askedAt = performance.now();
      let pause: number;
      try {
        const answer = await latest.current.fetch(controller.signal);
        if (stopped) return;
        pause = latest.current.present(answer, urls, askedAt);
      } catch {
        if (stopped) return;
        pause = latest.current.failed();
      } finally {
        running = false;
      }
      timer = setTimeout(() => void tick(), pause);
    };

    const onVisibility = (): void => {
      if (visible() && timer === undefined && !running) void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    latest.current.begin?.(urls);
    void tick();

    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
      for (const url of [shown, previous]) if (url) URL.revokeObjectURL(url);
      latest.current.ended();
    };
  }, [enabled, keyText]);
}
