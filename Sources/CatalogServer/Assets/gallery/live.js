// Live: /api/events says when the catalog's generation moves (a scan, an import, the server's
// watcher), and the gallery lays the new generation out around the item at the top of the view.
// While the stream is down (a proxy that buffers it, a restart) it looks now and then instead.
// After a change, the focused tile and the viewer's item follow their items to the new order.

import { api } from './api.js';
import { BAND } from './bands.js';

const POLL_INTERVAL = 3000; // ms between two looks at the catalog's generation

export class LiveUpdates {
  constructor(gallery) {
    this.gallery = gallery;
    this.polling = false;
    this.lastChanges = null; // the last change set, for scripts and tests
  }

  /** Opens the event stream. A hidden tab, or a page left for the browser's back/forward
   *  cache, closes it: a browser keeps six connections to a server, and each open stream holds
   *  one (the sixth gallery open or left stayed on "Loading…"). */
  listen() {
    let events = null;
    const open = () => {
      if (events || document.hidden || typeof EventSource === 'undefined') return;
      events = new EventSource('/api/events');
      // The stream connects again (a restart): with an error shown, a look at the catalog says
      // whether it is over, and asks again for the images that failed meanwhile, though the
      // generation did not move (the looks now and then stop while the stream is open).
      events.addEventListener('open', () => { if (this.gallery.status.kind === 'error') this.poll(); });
      events.addEventListener('generation', (event) => this.changed(Number(event.data)));
    };
    const close = () => {
      events?.close();
      events = null;
    };
    const back = () => {
      if (document.hidden) return;
      open();
      this.poll(); // what changed while the stream was closed
    };
    document.addEventListener('visibilitychange', () => (document.hidden ? close() : back()));
    window.addEventListener('pagehide', close);
    window.addEventListener('pageshow', (event) => { if (event.persisted) back(); });
    open();
    this.pollTimer = setInterval(() => { if (!events || events.readyState !== EventSource.OPEN) this.poll(); }, POLL_INTERVAL);
  }

  /** A new generation: the change set since the one shown says whether the item at the top of
   *  the view is still there; the new layout is shown with it (or, if it went, the next item
   *  of the view that stayed) where it was on the screen. */
  async changed(generation) {
    const gallery = this.gallery;
    if (gallery.generation === null || !gallery.parameters || generation === gallery.generation) return;
    if (gallery.relayoutPending) { // a layout is on its way: look again once it is shown, not never
      clearTimeout(this.changedRetry);
      this.changedRetry = setTimeout(() => this.changed(generation), 250);
      return;
    }
    let anchor = gallery.topAnchor();
    try {
      const changes = await api.changes({ since: gallery.generation, sort: gallery.parameters.sort });
      this.lastChanges = changes;
      if (!changes.reload && anchor.id !== undefined) {
        const inserted = new Set(changes.inserts.map((change) => change.id));
        const gone = new Set(changes.deletes.map((change) => change.id).filter((id) => !inserted.has(id)));
        if (gone.has(anchor.id)) anchor = gallery.topAnchor(gone);
      }
    } catch (error) {
      // No change set (an older server, a network error): lay out around the same anchor.
    }
    await gallery.relayout(anchor);
  }

  /** Looks at the catalog's generation; a new one (a scan finished) is laid out around the
   *  item at the top of the view. The band at the top is asked for again: the server answers
   *  it from memory (a 304 while the generation is the same), where /api/stats would count
   *  every item. */
  async poll() {
    const gallery = this.gallery;
    if (document.hidden || gallery.generation === null || !gallery.parameters || gallery.relayoutPending || this.polling) return;
    this.polling = true; // one look at a time (a page shown again from the back/forward cache asks twice)
    try {
      await this.look();
    } finally {
      this.polling = false;
    }
  }

  async look() {
    const gallery = this.gallery;
    // A change of configuration that never got laid out (its request failed): again.
    if (JSON.stringify(gallery.layoutParameters()) !== JSON.stringify(gallery.parameters)) {
      await gallery.relayout(gallery.topAnchor());
      return;
    }
    try {
      const offset = Math.floor(gallery.scroller.top / BAND) * BAND;
      const page = await api.page({ ...gallery.parameters, offset, height: BAND });
      gallery.answered();
      if (page.generation !== gallery.generation) await gallery.relayout(gallery.topAnchor());
    } catch (error) {
      gallery.fail(error);
    }
  }

  /** After the catalog changed: the viewer's item where the new order has it (its index moved
   *  with the items added or removed before it). */
  async followViewer() {
    const gallery = this.gallery;
    const shown = gallery.viewer.item;
    if (!shown) return;
    let item = null;
    try {
      item = await gallery.locate(shown.id);
    } catch (error) {
      if (error.status === 404 && gallery.viewer.item?.id === shown.id) gallery.viewer.gone(); // removed: its neighbours are the arrows'
      return;
    }
    if (item && gallery.viewer.item?.id === shown.id) gallery.viewer.moved(item);
  }

  /** After the catalog changed: the focused tile, which stays where it was while off the view,
   *  goes to its item's new place; if its item is gone, the focus goes to the item now at its
   *  index (a tile of a removed item would stay, focused, over the item that took its place). */
  async followFocus(id) {
    const gallery = this.gallery;
    const tile = gallery.tiles.tile(id);
    if (!tile) return;
    const parameters = gallery.parameters;
    const request = gallery.focusRequest;
    let item = null;
    try {
      const page = await api.page({ ...parameters, item: id, height: gallery.scroller.viewportHeight });
      // At a newer generation than the one shown: its relayout follows the focus again.
      if (page.generation !== gallery.generation) return;
      item = page.items.find((candidate) => candidate.kind === 'cell' && candidate.id === id);
    } catch (error) {
      if (error.status !== 404) return; // not known: it stays as it is
      item = 'gone';
    }
    // Overtaken: a new layout, or a key that moved the focus meanwhile.
    if (parameters !== gallery.parameters || request !== gallery.focusRequest || gallery.tiles.focusedID !== id || gallery.tiles.tile(id) !== tile || !item) return;
    if (item !== 'gone') {
      gallery.tiles.update(item, gallery.scroller.origin, gallery.itemCount);
      return;
    }
    const index = tile.item.index;
    const hadFocus = document.activeElement === tile.element;
    if (hadFocus) gallery.element.focus({ preventScroll: true });
    gallery.tiles.forget(id);
    if (gallery.itemCount > 0) gallery.focusIndex(Math.min(index, gallery.itemCount - 1), hadFocus, false);
  }
}
