/**
 * Scrolls a row that scrolls sideways (the sections' bar and Settings' parts on a phone) so
 * that one of its items is in view, without moving the page up or down as scrollIntoView may.
 */
export function revealSideways(row: HTMLElement | null, item: HTMLElement | null, margin = 8): void {
  if (!row || !item) return;
  const box = item.getBoundingClientRect();
  const view = row.getBoundingClientRect();
  if (box.left < view.left) row.scrollLeft -= view.left - box.left + margin;
  else if (box.right > view.right) row.scrollLeft += box.right - view.right + margin;
}
