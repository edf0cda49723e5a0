// The elements that show items: one per item near the view, reused as the view moves.
//
// A tile is an element with `data-item-id` at the item's frame (as /api/page gives it, less
// the view's origin), its box reserved before the image arrives, on a neutral placeholder.
// Its image is asked for only once the tile meets the viewport: a thumbnail in the size the
// tile needs (srcset, for high-density screens), an imported item's http(s) address, or, for
// an imported item without one, its title on the placeholder.

import { api, fileName, isWebAddress } from './api.js';

const SPARE = 32; // detached tiles kept for reuse

export class Tiles {
  /** `onImage(failed)` is called when an image arrives or fails. */
  constructor(plane, thumbnailSizes, onImage) {
    this.plane = plane;
    this.onImage = onImage;
    this.sizes = thumbnailSizes.filter((size) => size >= 128);
    this.live = new Map(); // item id -> tile
    this.spare = [];
    this.focusedID = null;
    this.pendingImages = 0;
  }

  /** The tile of item `id`, if it is on the page. */
  tile(id) {
    return this.live.get(id) ?? null;
  }

  /**
   * Shows `items` (each with index, id, frame...) and nothing else, except the focused tile,
   * and with `keepOthers` the tiles shown in view (a new generation's bands not all there yet).
   * `view` is the viewport's range in content points; `origin` the plane's origin.
   */
  render(items, { origin, viewTop, viewBottom, itemCount, repositionAll, keepOthers = false }) {
    const wanted = new Set();
    for (const item of items) {
      wanted.add(item.id);
      let tile = this.live.get(item.id);
      const fresh = !tile || tile.item.index !== item.index || !sameFrame(tile.item.frame, item.frame);
      if (!tile) {
        tile = this.#take(item);
        this.live.set(item.id, tile);
      } else {
        this.#renew(tile, item); // kept through a new generation (keepOthers) that may have changed what it shows
      }
      if (fresh || repositionAll || tile.origin !== origin) this.#place(tile, origin, itemCount);
      const visible = item.frame.y < viewBottom && item.frame.y + item.frame.height > viewTop;
      if (visible && !tile.imageAsked) this.#ask(tile);
    }
    for (const [id, tile] of this.live) {
      if (wanted.has(id)) continue;
      // Kept while a new generation's bands are on their way, if in view (at their old frames).
      if (keepOthers && tile.item.frame.y < viewBottom && tile.item.frame.y + tile.item.frame.height > viewTop) continue;
      if (id === this.focusedID && tile.element === document.activeElement) continue; // keep focus where it is
      this.live.delete(id);
      this.#release(tile);
    }
    this.pendingImages = 0;
    for (const tile of this.live.values()) {
      const frame = tile.item.frame;
      if (tile.imageAsked && !tile.imageDone && frame.y < viewBottom && frame.y + frame.height > viewTop) this.pendingImages += 1;
    }
  }

  /** Makes item `id` the one Tab reaches (roving tabindex) and, with `focus`, focuses it. */
  setFocus(id, focus) {
    const previous = this.focusedID !== null ? this.live.get(this.focusedID) : null;
    if (previous) previous.element.tabIndex = -1;
    this.focusedID = id;
    const tile = this.live.get(id);
    if (!tile) return false;
    tile.element.tabIndex = 0;
    if (focus) tile.element.focus({ preventScroll: true });
    return true;
  }

  /** Item `item`'s tile, if it is on the page, at the item's frame and index now. */
  update(item, origin, itemCount) {
    const tile = this.live.get(item.id);
    if (!tile) return;
    this.#renew(tile, item);
    this.#place(tile, origin, itemCount);
  }

  /** Takes item `id`'s tile off the page (its item is gone); the focus is no longer its. */
  forget(id) {
    const tile = this.live.get(id);
    if (tile) {
      this.live.delete(id);
      this.#release(tile);
    }
    if (this.focusedID === id) this.focusedID = null;
  }

  /** Asks again, as the tiles come into view, for the images that failed: the server answers
   *  again after it did not, and what failed meanwhile may well load now. `once`: only those
   *  not asked for again since they were placed (an image that fails again stays failed). */
  retryFailed(once = false) {
    for (const tile of this.live.values()) {
      if (!tile.failed || (once && tile.retried)) continue;
      if (once) tile.retried = true;
      tile.failed = false;
      tile.imageAsked = false;
      tile.imageDone = false;
      tile.image.removeAttribute('srcset');
      tile.image.removeAttribute('src');
      tile.image.hidden = false;
      tile.label.hidden = true;
    }
  }

  clear() {
    for (const tile of this.live.values()) this.#release(tile);
    this.live.clear();
  }

  #take(item) {
    const tile = this.spare.pop() ?? this.#make();
    this.#empty(tile, item);
    tile.element.tabIndex = item.id === this.focusedID ? 0 : -1;
    this.plane.append(tile.element);
    return tile;
  }

  /** Gives the tile `item`; one whose content changed is emptied: placed and asked for anew. */
  #renew(tile, item) {
    if (sameContent(tile.item, item)) tile.item = item;
    else this.#empty(tile, item);
  }

  /** The tile made ready for `item`: no image asked for yet, no label. */
  #empty(tile, item) {
    tile.item = item;
    tile.imageAsked = false;
    tile.imageDone = false;
    tile.failed = false;
    tile.retried = false;
    tile.origin = null;
    tile.image.removeAttribute('srcset');
    tile.image.removeAttribute('src');
    tile.image.classList.remove('loaded');
    tile.image.hidden = false;
    tile.label.hidden = true;
    tile.label.textContent = '';
  }

  #make() {
    const element = document.createElement('div');
    element.className = 'tile';
    element.setAttribute('role', 'listitem');
    const image = document.createElement('img');
    image.decoding = 'async';
    image.draggable = false;
    const label = document.createElement('span');
    label.className = 'label';
    label.setAttribute('aria-hidden', 'true');
    element.append(image, label);
    const tile = { element, image, label, item: null };
    image.addEventListener('load', () => {
      tile.imageDone = true;
      image.classList.add('loaded');
      this.onImage(false);
    });
    image.addEventListener('error', () => {
      if (!image.getAttribute('src')) return;
      tile.imageDone = true;
      tile.failed = true;
      image.hidden = true;
      label.textContent = tile.item.title || fileName(tile.item.path);
      label.hidden = false;
      this.onImage(true);
    });
    return tile;
  }

  #release(tile) {
    tile.element.remove();
    tile.image.removeAttribute('srcset');
    tile.image.removeAttribute('src');
    if (this.spare.length < SPARE) this.spare.push(tile);
  }

  #place(tile, origin, itemCount) {
    const { item, element } = tile;
    const frame = item.frame;
    tile.origin = origin;
    element.style.transform = `translate(${frame.x}px, ${frame.y - origin}px)`;
    element.style.width = `${frame.width}px`;
    element.style.height = `${frame.height}px`;
    element.dataset.itemId = item.id;
    element.dataset.index = item.index;
    element.setAttribute('aria-posinset', item.index + 1);
    if (itemCount) element.setAttribute('aria-setsize', itemCount);
    const name = item.title || fileName(item.path);
    element.setAttribute('aria-label', name);
    tile.image.alt = name;
  }

  /** Asks for the tile's image: the thumbnail of a scanned item, the address of an imported one. */
  #ask(tile) {
    const { item, image, label } = tile;
    tile.imageAsked = true;
    if (item.version) {
      const frame = item.frame;
      // A thumbnail fits a box of `size` on its longer side; the srcset widths say how wide
      // each one is, so the browser picks the smallest that covers the tile at its density.
      const landscape = frame.width >= frame.height;
      image.sizes = `${Math.ceil(frame.width)}px`;
      image.srcset = this.sizes
        .map((size) => `${api.thumbnailURL(item.id, size, item.version)} ${landscape ? size : Math.max(1, Math.round(size * frame.width / frame.height))}w`)
        .join(', ');
      image.src = api.thumbnailURL(item.id, 256, item.version);
    } else if (isWebAddress(item.url)) {
      image.referrerPolicy = 'no-referrer';
      image.src = item.url;
    } else {
      tile.imageDone = true;
      image.hidden = true;
      label.textContent = item.title || fileName(item.path);
      label.hidden = false;
    }
  }
}

function sameContent(a, b) {
  return a.version === b.version && a.url === b.url && a.title === b.title && a.path === b.path;
}

function sameFrame(a, b) {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}
