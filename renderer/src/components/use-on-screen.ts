/**
 * Whether an element is on screen (or within a margin of it), so work done for what the person
 * sees (a phone's live thumbnail) stops for what is scrolled away: with a lab's hundreds of
 * cards, only the dozen in view fetch pictures. Without IntersectionObserver, always true.
 */
import { useEffect, useState, type RefObject } from 'react';

export function useOnScreen(ref: RefObject<Element | null>, margin = '200px'): boolean {
  const [onScreen, setOnScreen] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) setOnScreen(entry.isIntersecting);
      },
      { rootMargin: margin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, margin]);
  return onScreen;
}
