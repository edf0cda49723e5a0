// The layout, fetched from /api/page a band at a time: band k is the page at offset k × BAND,
// BAND tall (the height of the server's pagination windows, so a band reads one or two).
// Bands are kept while near the view (at most KEPT); a band no longer needed before it
// arrived is cancelled. All bands shown come from one catalog generation: a band of another
// one reports the change instead of mixing two states on screen.

import { api } from './api.js';

export const BAND = 2048;
const KEPT = 48;

export class Bands {
  /**
   * @param onLoad called when a band arrives (the view can now show more)
   * @param onGeneration called with a page of another generation than the bands kept
   * @param onError called with an error a band met
   */
  constructor({ onLoad, onGeneration, onError }) {
    this.onLoad = onLoad;
    this.onGeneration = onGeneration;
    this.onError = onError;
    this.entries = new Map();
    this.parameters = null;
    this.generation = null;
    this.clock = 0;
  }

  /** Forgets every band (a new configuration or generation); cancels what is under way. */
  reset(parameters, generation = null) {
    for (const entry of this.entries.values()) entry.controller?.abort();
    this.entries.clear();
    this.parameters = parameters;
    this.generation = generation;
    this.stale = false;
  }

  /**
   * The items of loaded bands whose frames meet top ..< bottom, each once; requests the bands
   * that are missing. `complete` says whether every band of the range is there.
   */
  items(top, bottom) {
    const first = Math.floor(Math.max(0, top) / BAND);
    const last = Math.max(first, Math.floor(Math.max(0, bottom - 1e-9) / BAND));
    const seen = new Set();
    const items = [];
    let complete = true;
    this.clock += 1;
    const now = performance.now();
    for (let band = first; band <= last; band += 1) {
      let entry = this.entries.get(band);
      // A band that failed is asked for again after a second or two, not on every frame; none
      // is asked for once the catalog is known to have moved on (a relayout is coming).
      if (!entry || (entry.failedAt !== undefined && now - entry.failedAt > 2000)) entry = this.stale ? null : this.#load(band);
      if (!entry) {
        complete = false;
        continue;
      }
      entry.used = this.clock;
      if (!entry.page) {
        complete = false;
        continue;
      }
      for (const item of entry.page.items) {
        const frame = item.frame;
        const key = item.kind === 'cell' ? item.index : `${item.kind}${item.index}`; // a header's index is its section's
        if (frame.y < bottom && frame.y + frame.height > top && !seen.has(key)) {
          seen.add(key);
          items.push(item);
        }
      }
    }
    this.#trim(first, last);
    return { items, complete };
  }

  /** The loaded item at `index`, if a kept band has it. */
  find(index) {
    for (const entry of this.entries.values()) {
      const item = entry.page?.items.find((candidate) => candidate.kind === 'cell' && candidate.index === index);
      if (item) return item;
    }
    return null;
  }

  /** Every loaded item (for keyboard moves between neighbours). */
  *loaded() {
    for (const entry of this.entries.values()) {
      if (entry.page) for (const item of entry.page.items) if (item.kind === 'cell') yield item;
    }
  }

  #load(band) {
    const controller = new AbortController();
    const entry = { page: null, controller, used: this.clock, band };
    this.entries.set(band, entry);
    const parameters = this.parameters;
    api.page({ ...parameters, offset: band * BAND, height: BAND }, controller.signal).then((page) => {
      if (this.entries.get(band) !== entry || this.parameters !== parameters) return; // reset meanwhile
      entry.controller = null;
      if (this.generation !== null && page.generation !== this.generation) {
        this.entries.delete(band);
        if (!this.stale) {
          this.stale = true;
          this.onGeneration(page.generation);
        }
        return;
      }
      this.generation = page.generation;
      entry.page = page;
      this.onLoad(page);
    }).catch((error) => {
      if (error.name === 'AbortError') {
        if (this.entries.get(band) === entry) this.entries.delete(band);
        return;
      }
      entry.controller = null;
      entry.failedAt = performance.now();
      this.onError(error);
    });
    return entry;
  }

  /** Cancels bands far from the view that have not arrived; drops the least recently used
   *  loaded ones past KEPT. */
  #trim(first, last) {
    for (const [band, entry] of this.entries) {
      if (!entry.page && (band < first - 1 || band > last + 1)) {
        entry.controller?.abort();
        this.entries.delete(band);
      }
    }
    if (this.entries.size <= KEPT) return;
    const old = [...this.entries.values()].filter((entry) => entry.page).sort((a, b) => a.used - b.used);
    for (const entry of old.slice(0, this.entries.size - KEPT)) this.entries.delete(entry.band);
  }
}
