// The carousel's row: its tiles (an image, or its name when it has none or it fails), scaled
// and faded by their distance to the view's centre by the API's rule (t = min(1, d / falloff),
// scale = 1 − 0.2 t, alpha = 1 − 0.5 t), and the speed of a scroll along it.

import { api, fileName, isWebAddress } from './api.js';

const MIN_SCALE = 0.8;
const MIN_ALPHA = 0.5;

/** The scale and opacity of a tile whose centre is `distance` from the view's. */
export function emphasis(distance, falloff) {
  const t = Math.min(1, distance / falloff);
  return { scale: 1 - (1 - MIN_SCALE) * t, alpha: 1 - (1 - MIN_ALPHA) * t };
}

/** The element of `item`'s tile, not yet placed. */
export function carouselTile(item) {
  const tile = document.createElement('div');
  tile.className = 'carousel-tile';
  tile.dataset.itemId = item.id;
  tile.setAttribute('role', 'img');
  const name = item.title || fileName(item.path);
  tile.setAttribute('aria-label', name);
  const label = document.createElement('span');
  label.className = 'label';
  label.textContent = name;
  const source = item.version ? api.thumbnailURL(item.id, 512, item.version) : isWebAddress(item.url) ? item.url : null;
  if (source) {
    const image = document.createElement('img');
    image.alt = name;
    image.decoding = 'async';
    image.referrerPolicy = 'no-referrer';
    // An image that fails shows its name, as a gallery tile does, not the browser's broken icon.
    image.addEventListener('error', () => image.replaceWith(label));
    image.src = source;
    tile.append(image);
  } else {
    tile.append(label);
  }
  return tile;
}

/** Points per millisecond over the scroll `samples` ({t, x}) of the last 150 ms before `now`
 *  (0 with fewer than two). */
export function speed(samples, now) {
  const recent = samples.filter((sample) => now - sample.t < 150);
  if (recent.length < 2) return 0;
  const first = recent[0], last = recent[recent.length - 1];
  return last.t > first.t ? (last.x - first.x) / (last.t - first.t) : 0;
}
