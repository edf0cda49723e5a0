// Zoom: fewer, larger columns or more, smaller ones, from the toolbar's buttons, Ctrl (or ⌘)
// with the wheel (a trackpad's pinch arrives that way too), and a two-finger pinch on touch.
// Each gesture calls zoom(step, point): step −1 zooms in (one column fewer), +1 out; point is
// where the pointer or the fingers are, in client coordinates (null: the view's centre), so the
// gallery can keep the item under it in place.

import { pointAnchor } from './anchors.js';

const WHEEL_STEP = 60; // wheel delta, in pixels, for one column
const PINCH_STEP = 1.25; // finger distance ratio for one column
const INTERVAL = 180; // ms between two steps of one gesture

export function installZoom({ scroller, zoomIn, zoomOut, zoom }) {
  zoomIn.addEventListener('click', () => zoom(-1, null));
  zoomOut.addEventListener('click', () => zoom(1, null));

  let wheel = 0;
  let last = 0;
  scroller.addEventListener('wheel', (event) => {
    if (!event.ctrlKey && !event.metaKey) return;
    event.preventDefault(); // not the browser's page zoom
    wheel += event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
    const now = performance.now();
    if (Math.abs(wheel) < WHEEL_STEP || now - last < INTERVAL) return;
    last = now;
    const step = wheel < 0 ? -1 : 1;
    wheel = 0;
    zoom(step, { x: event.clientX, y: event.clientY });
  }, { passive: false });

  // Two fingers: the ratio of their distance to the distance when the step began.
  const touches = new Map();
  let startDistance = 0;
  const distance = () => {
    const [a, b] = [...touches.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  };
  scroller.addEventListener('pointerdown', (event) => {
    if (event.pointerType !== 'touch') return;
    touches.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (touches.size === 2) startDistance = distance();
  });
  scroller.addEventListener('pointermove', (event) => {
    if (!touches.has(event.pointerId)) return;
    touches.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (touches.size !== 2 || startDistance === 0) return;
    const ratio = distance() / startDistance;
    if (ratio > 1 / PINCH_STEP && ratio < PINCH_STEP) return;
    const [a, b] = [...touches.values()];
    zoom(ratio > 1 ? -1 : 1, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
    startDistance = distance();
  });
  const lift = (event) => {
    touches.delete(event.pointerId);
    if (touches.size < 2) startDistance = 0;
  };
  scroller.addEventListener('pointerup', lift);
  scroller.addEventListener('pointercancel', lift);
}

/** One step of zoom in the gallery, the item under `point` kept in place: a column fewer or
 *  more, or justified rows a quarter taller or shorter (by column counts, a narrow view had one
 *  step). */
export function zoomGallery(gallery, step, point) {
  const width = gallery.element.clientWidth;
  if (gallery.style === 'justified') {
    const anchor = pointAnchor(gallery, point);
    if (gallery.columns.zoomRows(step < 0 ? 1.25 : 0.8, width)) gallery.relayout(anchor);
    return;
  }
  if (!gallery.columns.canZoom(step, gallery.style, width)) return;
  const anchor = pointAnchor(gallery, point);
  gallery.columns.set(gallery.columns.count(width) + step, width);
  gallery.relayout(anchor);
}
