// The viewer: one item's original, large, with its title, size and date. Arrow keys (and the
// side buttons) go to the previous and next item of the order; Escape, the close button and
// the browser's back button close it (opening it adds a history entry, so Back closes it
// rather than leaving the gallery).

import { api, fileName, isWebAddress } from './api.js';

export class Viewer {
  /**
   * @param itemAt async (index) => page item at that index, or null
   * @param onShow called with each item shown (the gallery keeps it in view behind)
   * @param fragment (viewID) => the address fragment with the viewer open on viewID, or closed
   */
  constructor({ itemAt, itemCount, onShow, fragment, largestThumbnail }) {
    this.dialog = document.getElementById('viewer');
    this.image = document.getElementById('viewer-image');
    this.placeholder = document.getElementById('viewer-placeholder');
    this.title = document.getElementById('viewer-title');
    this.details = document.getElementById('viewer-details');
    this.itemAt = itemAt;
    this.itemCount = itemCount;
    this.onShow = onShow;
    this.fragment = fragment;
    this.largestThumbnail = largestThumbnail;
    this.item = null;
    this.heading = null; // the index quick presses are going to (step)
    this.between = false; // the image shown was removed: its index is the next one's now (gone)
    this.closing = false; // gone back through history, the popstate still to come
    this.goingBack = false; // the same, until the popstate, even if hidden meanwhile (read by main.js)
    this.request = 0;
    document.getElementById('viewer-previous').addEventListener('click', () => this.step(-1));
    document.getElementById('viewer-next').addEventListener('click', () => this.step(1));
    document.getElementById('viewer-close').addEventListener('click', () => this.close());
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault(); // Escape: close through history, like the close button
      this.close();
    });
    this.dialog.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft') { event.preventDefault(); this.step(-1); }
      if (event.key === 'ArrowRight') { event.preventDefault(); this.step(1); }
    });
    window.addEventListener('popstate', () => {
      this.goingBack = false;
      if (this.isOpen && !history.state?.viewer) this.#hide();
    });
    // Closed without us (Escape where the browser does not let the page cancel it): the same
    // clean-up, and the history entry the viewer added goes too.
    // (A close event comes a task later: one that finds it open again, or already hidden, is stale.)
    this.dialog.addEventListener('close', () => {
      if (!this.item || this.dialog.open) return;
      const back = !this.closing && history.state?.viewer;
      this.#hide();
      if (back) this.#back();
    });
    this.image.addEventListener('load', () => { this.retried = null; }); // a later outage is retried again
    this.image.addEventListener('error', () => {
      if (!this.image.getAttribute('src')) return;
      // An original the browser cannot decode (HEIC, in most): the largest thumbnail instead.
      if (this.item?.version && this.image.getAttribute('src') === api.originalURL(this.item.id)) {
        this.#showThumbnail(this.item);
        return;
      }
      this.image.hidden = true;
      this.placeholder.hidden = false;
      this.placeholder.textContent = `${this.title.textContent}: the image cannot be shown`;
      this.#failed();
    });
  }

  get isOpen() {
    return this.dialog.open;
  }

  /** Opens on `item` (a page item: id, index, path, title, url, version). */
  open(item) {
    const opening = !this.isOpen;
    this.heading = null;
    if (opening) {
      this.closing = false;
      // Opened from the carousel, it takes the carousel's entry: Back goes to the gallery. At a
      // reload, or Forward, the entry is its own already.
      if (history.state?.carousel || history.state?.viewer) history.replaceState({ viewer: item.id }, '', this.fragment(item.id));
      else history.pushState({ viewer: item.id }, '', this.fragment(item.id));
      this.dialog.showModal();
    }
    this.#show(item);
  }

  /** Closes: through history when the viewer added an entry, so Back and Escape agree. */
  close() {
    if (!this.isOpen || this.closing) return; // a second Escape before the first is done: not two steps back
    if (history.state?.viewer) {
      this.closing = true;
      this.#back(); // popstate hides it
    } else this.#hide();
  }

  /** Back out of the viewer's history entry. Escape without a click or key press before it
   *  cannot be cancelled: the browser closes the dialog before the popstate, and the gallery
   *  must still take that popstate for the viewer's (it followed the older fragment, which
   *  opened the viewer again at a shared link's entry). */
  #back() {
    this.goingBack = true;
    history.back();
  }

  /** Closes, leaving its history entry to the carousel opened from it. */
  handOver() {
    if (this.isOpen) this.#hide();
  }

  /** The next (1) or previous (-1) item. Quick presses add up: each goes on from where the
   *  one before is going, not from the item shown (on a slow network most were lost). */
  async step(delta) {
    if (!this.item) return;
    // Within the catalog: presses past an end stop there (and do not drop the ones before).
    // The image shown removed, → goes to the image that took its index, ← to the one before.
    const from = this.heading ?? (this.between && delta > 0 ? this.item.index - 1 : this.item.index);
    const index = Math.max(0, Math.min(this.itemCount() - 1, from + delta));
    if (index === from) return;
    this.heading = index;
    const request = ++this.request;
    let next = null;
    try {
      next = await this.itemAt(index);
    } catch {
      // Not reached (the network, the server): the next press starts from the image shown.
    }
    if (request !== this.request || !this.isOpen) return;
    this.heading = null;
    if (next) this.#show(next);
  }

  /** The item shown, where a new generation of the catalog has it: the same image, at its new index. */
  moved(item) {
    if (item.id !== this.item?.id) return;
    this.item = item;
    this.heading = null;
    this.between = false;
    this.dialog.dataset.index = item.index;
    this.#markEnds(item);
  }

  /** The item shown was removed from the catalog (a scan meanwhile): it stays on screen, and
   *  the arrows go to its neighbours in the new order. */
  gone() {
    if (!this.item) return;
    this.between = true;
    this.heading = null;
    // Its place in the new order: at most the count (the images after it may have gone too).
    this.item = { ...this.item, index: Math.min(this.item.index, this.itemCount()) };
    this.#markEnds(this.item);
  }

  /** ‹ at the first image and › at the last say they lead nowhere. */
  #markEnds(item) {
    const last = this.itemCount() - (this.between ? 0 : 1);
    document.getElementById('viewer-previous').setAttribute('aria-disabled', String(item.index <= 0));
    document.getElementById('viewer-next').setAttribute('aria-disabled', String(item.index >= last));
  }

  #hide() {
    const item = this.item;
    this.item = null;
    this.closing = false;
    if (this.dialog.open) this.dialog.close();
    this.image.removeAttribute('src');
    if (item) this.onShow(item, true);
  }

  async #show(item) {
    this.item = item;
    this.between = false;
    const request = ++this.request;
    if (history.state?.viewer) history.replaceState({ viewer: item.id }, '', this.fragment(item.id));
    const name = item.title || fileName(item.path);
    this.title.textContent = name;
    this.details.textContent = '';
    this.dialog.dataset.itemId = item.id;
    this.dialog.dataset.index = item.index;
    this.#markEnds(item);
    const source = item.version ? api.originalURL(item.id) : isWebAddress(item.url) ? item.url : null;
    this.image.hidden = !source;
    this.placeholder.hidden = !!source;
    this.placeholder.textContent = source ? '' : name;
    this.image.alt = name;
    if (source) this.image.src = source;
    else this.image.removeAttribute('src');
    this.onShow(item, false);
    try {
      const details = await api.item(item.id);
      if (request !== this.request) return;
      if (item.version && !Viewer.browserShowsUpright(details)) this.#showThumbnail(item);
      const parts = [`${details.width} × ${details.height}`];
      if (details.date) parts.push(details.date.replace('T', ' '));
      if (details.format) parts.push(details.format.toUpperCase());
      parts.push(details.path);
      this.details.textContent = parts.join(' · ');
    } catch (error) {
      if (request !== this.request) return;
      this.details.textContent = error.message;
      this.#failed();
    }
  }

  /** The image or the details failed: the gallery's recovery looks at the server (recovery.js),
   *  and once it answers asks this again (`retryFailed`), once: an image that fails with the
   *  server answering stays failed. A failure while the server was away stayed until a key was
   *  pressed. */
  #failed() {
    if (this.retried === this.item) return;
    this.failedItem = this.item;
    window.dispatchEvent(new Event('catalog-image-failed'));
  }

  /** The server answers again: the item whose image or details failed is shown anew. */
  retryFailed() {
    const item = this.failedItem;
    this.failedItem = null;
    if (!item || !this.isOpen || this.item !== item) return;
    this.retried = item;
    this.#show(item);
  }

  /** Shows the largest thumbnail of scanned `item`, which the server turns upright. */
  #showThumbnail(item) {
    const source = api.thumbnailURL(item.id, this.largestThumbnail, item.version);
    if (this.image.getAttribute('src') !== source) this.image.src = source;
  }

  /** Whether a browser shows the original of item `details` as the catalog does: HEIC is not
   *  decoded outside Safari, and a WebP's EXIF orientation is not applied (JPEG's, PNG's eXIf
   *  and AVIF's irot/imir are). */
  static browserShowsUpright(details) {
    if (details.format === 'heic') return false;
    return details.format !== 'webp' || details.orientation === 1;
  }
}
