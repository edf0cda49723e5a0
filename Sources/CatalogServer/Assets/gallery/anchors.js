// Anchors: where the view is, as an item and a point of it on the screen, so that a new layout
// (another width, zoom, style, generation) can be scrolled to show the same point at the same
// place. `view` is the gallery: its scroller, its tiles and its scrolling element.

/** The place as a share of the content (for an anchor whose item is gone). */
export function share(scroller) {
  return scroller.maxTop > 0 ? scroller.top / scroller.maxTop : 0;
}

/** The item at the top of the view: the first whose top is in view (the highest, then the
 *  leftmost), else one that covers the whole view; and which part of it is at the very top. */
export function topAnchor({ scroller, tiles }, skipping = null) {
  const top = scroller.top;
  const bottom = top + scroller.viewportHeight;
  let best = null;
  for (const { item } of tiles.live.values()) {
    if (skipping?.has(item.id)) continue;
    const frame = item.frame;
    if (frame.y + frame.height <= top || frame.y >= bottom) continue;
    const key = frame.y >= top - 0.5 ? frame.y : bottom + (top - frame.y); // cut by the top edge: only if nothing starts in view
    if (!best || key < best.key || (key === best.key && frame.x < best.item.frame.x)) best = { item, key };
  }
  if (!best) return { top, share: share(scroller) };
  const frame = best.item.frame;
  const fraction = Math.min(1, Math.max(0, (top - frame.y) / frame.height));
  return { id: best.item.id, fraction, height: frame.height, screenY: frame.y + fraction * frame.height - top, top, share: share(scroller) };
}

/** The item under a point of the screen (or the nearest one), and the point's place in it. */
export function pointAnchor(view, point) {
  const { scroller, tiles, element } = view;
  const rect = element.getBoundingClientRect();
  const x = point ? point.x - rect.left : element.clientWidth / 2;
  const screenY = point ? point.y - rect.top : scroller.viewportHeight / 2;
  const y = scroller.top + screenY;
  let best = null;
  for (const { item } of tiles.live.values()) {
    const f = item.frame;
    const dx = Math.max(f.x - x, 0, x - (f.x + f.width));
    const dy = Math.max(f.y - y, 0, y - (f.y + f.height));
    const distance = Math.hypot(dx, dy);
    if (!best || distance < best.distance) best = { item, distance };
  }
  if (!best) return view.topAnchor(); // the gallery's: a layout's anchor until its tiles are drawn
  const f = best.item.frame;
  const fraction = Math.min(1, Math.max(0, (y - f.y) / f.height));
  return { id: best.item.id, fraction, height: f.height, screenY, top: scroller.top, share: share(scroller) };
}
