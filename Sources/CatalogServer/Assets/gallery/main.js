// The gallery: the whole catalog as a Pinterest-style waterfall (or a grid, or a list) in one
// scrolling view, whatever its size. Layouts come from /api/page (bands.js), the view maps
// scrolling onto content of any height (scroller.js), tiles show the items near the view
// (tiles.js); the viewer (viewer.js), zoom (zoom.js) and deep links (location.js) sit around it.
//
// Every change of layout (a resize, a zoom, another style or order, a new catalog generation,
// a deep link) goes through relayout(anchor): the anchor is an item and a point on the screen,
// and the new layout is scrolled so that the same point of that item is at the same place.

import { api } from './api.js';
import { BAND, Bands } from './bands.js';
import { fragment, readFragment } from './location.js';
import { CarouselView } from './carousel.js';
import { SectionLabels } from './sections.js';
import { currentSession, showSignIn, showSignOut } from './signin.js';
import { VirtualScroller } from './scroller.js';
import { Tiles } from './tiles.js';
import { Viewer } from './viewer.js';
import { installZoom } from './zoom.js';

const configuration = JSON.parse(document.getElementById('catalog-configuration').textContent);
const COLUMN_WIDTH = 236; // Pinterest's
const SPACING = 8;
const INSET = 8;
const SMALLEST_COLUMN = 96; // zoomed out as far as it goes
const NARROWEST = 64; // a window narrower than this is not laid out
const POLL_INTERVAL = 3000; // ms between two looks at the catalog's generation
const OVERSCAN = 0.5; // screens of tiles kept above and below the view
const IMAGE_MARGIN = 0.25; // screens beyond the view whose images are asked for
const MOST_TILES = 1200; // elements on the page at most, whatever the catalog and the view

class Gallery {
  constructor() {
    this.element = document.getElementById('scroller');
    this.plane = document.getElementById('plane');
    this.statusLine = document.getElementById('status');
    this.countLine = document.getElementById('count');
    this.columnsOutput = document.getElementById('columns');
    this.styleSelect = document.getElementById('style');
    this.sortSelect = document.getElementById('sort');
    this.sectionsSelect = document.getElementById('sections');

    this.style = 'waterfall';
    this.sort = 'date';
    this.sections = 'none';
    this.columnWidth = COLUMN_WIDTH;
    this.zoomed = false;
    this.generation = null;
    this.itemCount = null;
    this.parameters = null; // of the layout on screen
    this.layoutRequest = 0;
    this.frameRequest = 0;
    this.originMoved = false;
    this.pendingFocus = null;
    this.focusRequest = 0;
    this.focusAtTheTop = false;
    this.followRequest = 0;
    this.relayoutPending = false;
    this.fragmentTimer = 0;
    this.fragmentWaitsForTiles = false; // the address waits for the first tiles (scheduleFragment)
    this.loadingSince = null;

    // Before the viewer's and the carousel's own listeners (which close them): whether this
    // history move closes one.
    this.closingOverlay = false;
    window.addEventListener('popstate', () => { this.closingOverlay = this.viewer.isOpen || this.carousel.ownsEntry; });

    this.bands = new Bands({
      onLoad: () => {
        this.answered();
        this.schedule();
      },
      // A band of a newer generation: lay out again (once; the bands stop loading meanwhile).
      onGeneration: () => { if (!this.relayoutPending) this.relayout(this.topAnchor()); },
      onError: (error) => {
        this.fail(error);
        setTimeout(() => this.schedule(), 2100); // the band is asked for again after its back-off
      },
    });
    this.scroller = new VirtualScroller(this.element, document.getElementById('sizer'), this.plane, (originMoved) => {
      this.originMoved ||= originMoved;
      this.schedule();
      this.scheduleFragment();
    });
    this.tiles = new Tiles(this.plane, configuration.thumbnailSizes, () => this.schedule());
    this.labels = new SectionLabels({
      plane: this.plane,
      pinned: document.getElementById('pinned'),
      scrubber: document.getElementById('scrubber'),
      jump: (y) => {
        this.scroller.scrollTo(y);
        this.render();
      },
    });
    this.viewer = new Viewer({
      itemAt: (index) => this.itemAt(index),
      onShow: (item, closed) => this.focusIndex(item.index, closed),
      fragment: (view) => fragment({ ...this.placeFragment(), view }),
      largestThumbnail: Math.max(...configuration.thumbnailSizes),
    });

    // The carousel is its own view, sideways, not a style of the gallery: a button opens it (an
    // option of the switcher would open it as the arrow keys pass over it).
    for (const style of configuration.styles) {
      if (style !== 'carousel') this.styleSelect.add(new Option(style[0].toUpperCase() + style.slice(1), style));
    }
    this.carousel = new CarouselView({
      onClose: (item) => {
        if (item) this.focusIndex(item.index);
        this.scheduleFragment(); // the gallery's place, without the carousel
      },
      onShow: () => {},
      onOpen: (item) => this.open(item.id),
      fragment: (id) => fragment({ ...this.placeFragment(), carousel: id }),
    });
    const carouselButton = document.getElementById('open-carousel');
    carouselButton.hidden = !configuration.styles.includes('carousel');
    carouselButton.addEventListener('click', () => {
      // At the focused image, else the image at the top of the gallery.
      const id = this.focusedItem()?.id ?? this.topAnchor().id;
      if (id !== undefined) this.carousel.open(id, this.sort);
    });
    this.styleSelect.addEventListener('change', () => {
      this.style = this.styleSelect.value;
      this.relayout(this.topAnchor());
    });
    document.getElementById('viewer-carousel').addEventListener('click', () => {
      const item = this.viewer.item;
      if (!item) return;
      this.viewer.handOver(); // the carousel takes its history entry
      this.carousel.open(item.id, this.sort, item);
    });
    this.sortSelect.addEventListener('change', () => {
      this.sort = this.sortSelect.value;
      this.relayout(this.topAnchor());
    });
    this.sectionsSelect.addEventListener('change', () => {
      this.sections = this.sectionsSelect.value;
      this.relayout(this.topAnchor());
    });
    installZoom({
      scroller: this.element,
      zoomIn: document.getElementById('zoom-in'),
      zoomOut: document.getElementById('zoom-out'),
      zoom: (step, point) => this.zoom(step, point),
    });
    this.plane.addEventListener('click', (event) => {
      const tile = event.target.closest('.tile');
      if (tile) this.open(Number(tile.dataset.itemId));
    });
    this.element.addEventListener('keydown', (event) => this.key(event));
    this.element.addEventListener('focusin', (event) => {
      const tile = event.target.closest?.('.tile');
      if (tile) this.tiles.setFocus(Number(tile.dataset.itemId), false);
    });
    let width = this.element.clientWidth;
    let height = this.element.clientHeight;
    let resizeTimer = 0;
    new ResizeObserver(() => {
      if (this.element.clientWidth !== width) {
        width = this.element.clientWidth;
        const anchor = this.topAnchor(); // where the view is now, before the old layout goes
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => this.relayout(anchor), 120);
      } else if (this.element.clientHeight !== height) {
        height = this.element.clientHeight;
        this.scroller.setContentHeight(this.scroller.contentHeight);
        this.labels.drawScrubber(this.scroller.contentHeight, height);
      }
    }).observe(this.element);
    window.addEventListener('hashchange', () => {
      // Back out of the viewer or the carousel restores an older fragment: the view stays where it is.
      if (this.closingOverlay || this.viewer.isOpen || this.carousel.isOpen) {
        this.closingOverlay = false;
        this.scheduleFragment();
        return;
      }
      this.follow(readFragment());
    });
    this.listen();
  }

  /** Live: /api/events says when the catalog's generation moves (a scan, an import, the
   *  server's watcher); while the stream is down (a proxy that buffers it, a restart) the
   *  gallery looks now and then instead. A hidden tab, or a page left for the browser's
   *  back/forward cache, closes its stream: a browser keeps six connections to a server, and
   *  each open stream holds one (the sixth gallery open or left stayed on "Loading…"). */
  listen() {
    let events = null;
    const open = () => {
      if (events || document.hidden || typeof EventSource === 'undefined') return;
      events = new EventSource('/api/events');
      // The stream connects again (a restart): with an error shown, a look at the catalog says
      // whether it is over, and asks again for the images that failed meanwhile, though the
      // generation did not move (the looks now and then stop while the stream is open).
      events.addEventListener('open', () => { if (this.statusLine.dataset.kind === 'error' && this.statusLine.textContent) this.poll(); });
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
    if (this.generation === null || !this.parameters || generation === this.generation) return;
    if (this.relayoutPending) { // a layout is on its way: look again once it is shown, not never
      clearTimeout(this.changedRetry);
      this.changedRetry = setTimeout(() => this.changed(generation), 250);
      return;
    }
    let anchor = this.topAnchor();
    try {
      const changes = await api.changes({ since: this.generation, sort: this.parameters.sort });
      this.lastChanges = changes; // for scripts and tests
      if (!changes.reload && anchor.id !== undefined) {
        const inserted = new Set(changes.inserts.map((change) => change.id));
        const gone = new Set(changes.deletes.map((change) => change.id).filter((id) => !inserted.has(id)));
        if (gone.has(anchor.id)) anchor = this.topAnchor(gone);
      }
    } catch (error) {
      // No change set (an older server, a network error): lay out around the same anchor.
    }
    await this.relayout(anchor);
  }

  /** The number of columns for the view's width: about COLUMN_WIDTH each (or the zoom's), two at least unless zoomed in. */
  columns(width = this.element.clientWidth) {
    const fitting = Math.floor((width - 2 * INSET + SPACING) / (this.columnWidth + SPACING));
    return Math.max(1, Math.min(this.mostColumns(width), Math.max(this.zoomed ? 1 : 2, fitting)));
  }

  layoutParameters() {
    const width = this.element.clientWidth;
    const cols = this.style === 'list' || this.style === 'justified' ? undefined : this.columns(width);
    return {
      width, cols, style: this.style, sort: this.sort,
      // Justified rows zoom by their height, as columns zoom by their width.
      'row-height': this.style === 'justified' ? Math.round(this.columnWidth * 0.8) : undefined,
      sections: this.sections === 'none' ? undefined : this.sections,
      // The mixed grid spans one item after every full row, however many columns the window has.
      'span-every': this.style === 'mixed' ? cols + 1 : undefined,
    };
  }

  /** Starts from the address's fragment (or the top of the catalog). */
  start() {
    this.follow(readFragment(), true);
  }

  /** Applies a deep link: its configuration, then its item at the top (and its viewer). */
  follow(link, first = false) {
    // The carousel is a view over the gallery, not a style of it: a link to it opens it.
    const carousel = link.style === 'carousel' || link.carousel !== null;
    const request = ++this.followRequest; // a later link (Back soon after Forward) opens what it says, not this one
    if (link.style && link.style !== 'carousel' && configuration.styles.includes(link.style)) this.style = link.style;
    if (link.sort === 'date' || link.sort === 'path') this.sort = link.sort;
    if (['none', 'year', 'month', 'folder'].includes(link.sections)) this.sections = link.sections;
    if (link.cols) this.setColumns(link.cols);
    this.relayout(link.item !== null ? { id: link.item, fraction: 0, screenY: 0 } : first ? { top: 0 } : this.topAnchor())
      .then(async () => {
        const current = () => request === this.followRequest;
        if (!current()) return;
        if (link.view !== null) this.open(link.view, current); // a shared link, a reload, or Forward into the viewer's entry
        else if (carousel && configuration.styles.includes('carousel')) {
          const id = link.carousel ?? link.item ?? this.topAnchor().id ?? (await this.itemAt(0))?.id;
          if (id !== undefined && current()) this.carousel.open(id, this.sort);
        }
      });
  }

  /** Zooms to `columns` columns (the automatic count when it is that). */
  setColumns(columns) {
    this.zoomed = false;
    this.columnWidth = COLUMN_WIDTH;
    const wanted = Math.max(1, Math.min(this.mostColumns(), columns));
    if (wanted === this.columns()) return;
    const available = this.element.clientWidth - 2 * INSET;
    this.zoomed = true;
    this.columnWidth = Math.max(SMALLEST_COLUMN, (available + SPACING) / (wanted + 0.5) - SPACING);
  }

  mostColumns(width = this.element.clientWidth) {
    return Math.max(1, Math.min(1000, Math.floor((width - 2 * INSET + SPACING) / (SMALLEST_COLUMN + SPACING))));
  }

  /** The layout for the current configuration, scrolled so that `anchor` stays in place. */
  async relayout(anchor) {
    const parameters = this.layoutParameters();
    if (!(parameters.width >= NARROWEST)) {
      this.setStatus('The window is too narrow to show the gallery.', 'error');
      return;
    }
    const request = ++this.layoutRequest;
    this.relayoutPending = true;
    const height = Math.max(1, this.scroller.viewportHeight);
    const slow = setTimeout(() => this.setStatus(`Laying out${this.itemCount ? ` ${this.itemCount.toLocaleString()} images` : ''}…`, 'loading'), 300);
    let page;
    let sections = null;
    try {
      // The sections of the layout (for the pinned header and the scrubber), asked for with it.
      const listing = parameters.sections ? api.sections(parameters) : Promise.resolve(null);
      if (anchor?.id !== undefined && anchor.id !== null) {
        try {
          // The server puts the item's top `anchor-y` below the viewport's top (clamped at the
          // ends): the same point of it as before, its new height guessed from the new column's.
          const grown = this.itemScale(this.parameters, parameters);
          const anchorY = anchor.screenY - anchor.fraction * (anchor.height ?? 0) * grown;
          page = await api.page({ ...parameters, item: anchor.id, 'anchor-y': Math.round(anchorY * 100) / 100, height });
        } catch (error) {
          if (error.status !== 404) throw error;
          anchor = { top: anchor.top ?? this.scroller.top, share: this.share() }; // the item is gone: keep the place
        }
      }
      page ??= await api.page({ ...parameters, offset: 0, height });
      sections = await listing;
    } catch (error) {
      if (request === this.layoutRequest) {
        this.relayoutPending = false;
        this.fail(error);
        clearTimeout(this.layoutRetryTimer);
        this.layoutRetryTimer = setTimeout(() => this.relayout(anchor), 3000);
      }
      return;
    } finally {
      clearTimeout(slow);
    }
    if (request !== this.layoutRequest) return; // a later change won
    clearTimeout(this.layoutRetryTimer);
    this.relayoutPending = false;
    // The same configuration at a new generation keeps its tiles (they move to their new
    // frames as the bands arrive): no blank flash while a scan writes.
    const sameConfiguration = JSON.stringify(parameters) === JSON.stringify(this.parameters);
    this.parameters = parameters;
    const newGeneration = this.generation !== null && this.generation !== page.generation;
    this.generation = page.generation;
    this.itemCount = page.itemCount;
    this.bands.reset(parameters, page.generation);
    const focused = this.tiles.focusedID;
    if (!sameConfiguration) {
      if (document.activeElement?.closest?.('.tile')) {
        this.pendingFocus = focused; // focused again once its tile is back
        this.element.focus({ preventScroll: true });
      }
      this.tiles.clear();
    }
    if (sections && sections.generation !== page.generation) {
      sections = null; // from another generation than the page: asked for again below
      setTimeout(() => this.relayout(this.topAnchor()), 0);
    }
    let top = page.viewport.y;
    const item = anchor?.id !== undefined ? page.items.find((candidate) => candidate.kind === 'cell' && candidate.id === anchor.id) : null;
    if (item) {
      // The anchor's own point of the item, now that its height is known.
      top = item.frame.y + anchor.fraction * item.frame.height - anchor.screenY;
    } else if (anchor?.id !== undefined && anchor.id !== null) {
      top = page.viewport.y; // off this page at its anchor: where the server put the view
    } else if (anchor?.share !== undefined) {
      top = anchor.share * Math.max(0, page.contentHeight - height);
    } else if (anchor?.top !== undefined) {
      top = anchor.top;
    }
    this.scroller.setContentHeight(page.contentHeight, top);
    this.labels.setList(sections, page.contentHeight, height);
    this.showConfiguration();
    this.answered();
    this.clearStatus('loading');
    if (this.itemCount === 0) this.setStatus('This catalog is empty: add images with `catalog scan FOLDER` or `catalog import FILE`.', 'empty');
    else this.clearStatus('empty');
    this.render();
    if (sameConfiguration && newGeneration && focused !== null) this.followFocus(focused);
  }

  /** After the catalog changed: the focused tile, which stays where it was while off the view,
   *  goes to its item's new place; if its item is gone, the focus goes to the item now at its
   *  index (a tile of a removed item would stay, focused, over the item that took its place). */
  async followFocus(id) {
    const tile = this.tiles.tile(id);
    if (!tile) return;
    const parameters = this.parameters;
    const request = this.focusRequest;
    let item = null;
    try {
      const page = await api.page({ ...parameters, item: id, height: this.scroller.viewportHeight });
      // At a newer generation than the one shown: its relayout follows the focus again.
      if (page.generation !== this.generation) return;
      item = page.items.find((candidate) => candidate.kind === 'cell' && candidate.id === id);
    } catch (error) {
      if (error.status !== 404) return; // not known: it stays as it is
      item = 'gone';
    }
    // Overtaken: a new layout, or a key that moved the focus meanwhile.
    if (parameters !== this.parameters || request !== this.focusRequest || this.tiles.focusedID !== id || this.tiles.tile(id) !== tile || !item) return;
    if (item !== 'gone') {
      this.tiles.update(item, this.scroller.origin, this.itemCount);
      return;
    }
    const index = tile.item.index;
    const hadFocus = document.activeElement === tile.element;
    if (hadFocus) this.element.focus({ preventScroll: true });
    this.tiles.forget(id);
    if (this.itemCount > 0) this.focusIndex(Math.min(index, this.itemCount - 1), hadFocus, false);
  }

  /** How much taller an item gets from layout parameters `from` to `to`: the ratio of their
   *  column widths (of their row heights for justified rows); 1 when either is unknown. */
  itemScale(from, to) {
    const size = (p) => {
      if (!p) return null;
      if (p.style === 'justified') return p['row-height'];
      const cols = p.cols ?? 1;
      return (p.width - 2 * INSET - (cols - 1) * SPACING) / cols;
    };
    const before = size(from), after = size(to);
    return before > 0 && after > 0 ? after / before : 1;
  }

  /** The place as a share of the content (for an anchor whose item is gone). */
  share() {
    return this.scroller.maxTop > 0 ? this.scroller.top / this.scroller.maxTop : 0;
  }

  showConfiguration() {
    const columns = this.parameters?.cols ?? 1;
    const rowHeight = this.parameters?.['row-height'];
    // Justified rows zoom by their height: the control says that rather than a column count.
    this.columnsOutput.value = rowHeight ? `${Math.round(rowHeight)} px rows` : `${columns} col${columns === 1 ? '' : 's'}`;
    this.styleSelect.value = this.style;
    this.sortSelect.value = this.sort;
    this.sectionsSelect.value = this.sections;
    if (this.itemCount !== null) this.countLine.textContent = `${this.itemCount.toLocaleString()} image${this.itemCount === 1 ? '' : 's'}`;
    Object.assign(this.plane.dataset, {
      width: this.parameters.width, cols: columns, style: this.style, sort: this.sort, sections: this.sections,
      rowHeight: this.parameters['row-height'] ?? '',
      contentHeight: this.scroller.contentHeight, generation: this.generation, itemCount: this.itemCount,
    });
  }

  schedule() {
    if (!this.frameRequest) this.frameRequest = requestAnimationFrame(() => this.render());
  }

  /** Shows the items near the view from the bands loaded, asking for the missing ones. */
  render() {
    cancelAnimationFrame(this.frameRequest);
    this.frameRequest = 0;
    if (!this.parameters) return;
    const top = this.scroller.top;
    const height = this.scroller.viewportHeight;
    let { items, complete } = this.bands.items(top - OVERSCAN * height, top + (1 + OVERSCAN) * height);
    if (items.length > MOST_TILES) {
      // Tiny items (panoramas in many columns): the nearest to the view win.
      const distance = (item) => Math.max(0, item.frame.y - (top + height), top - (item.frame.y + item.frame.height));
      items = items.sort((a, b) => distance(a) - distance(b)).slice(0, MOST_TILES);
    }
    const cells = items.filter((item) => item.kind === 'cell');
    this.labels.render(items.filter((item) => item.kind !== 'cell'), { origin: this.scroller.origin, top });
    this.tiles.render(cells, {
      origin: this.scroller.origin,
      viewTop: top - IMAGE_MARGIN * height,
      viewBottom: top + (1 + IMAGE_MARGIN) * height,
      itemCount: this.itemCount,
      repositionAll: this.originMoved,
    });
    this.originMoved = false;
    if (this.fragmentWaitsForTiles && this.tiles.live.size > 0) {
      this.fragmentWaitsForTiles = false; // once: later renders do not put the address off again
      this.scheduleFragment();
    }
    this.plane.dataset.state = complete ? 'complete' : 'loading';
    this.plane.dataset.top = top;
    this.plane.dataset.pendingImages = this.tiles.pendingImages;
    if (complete) {
      this.loadingSince = null;
      this.clearStatus('loading');
    } else {
      this.loadingSince ??= performance.now();
      if (performance.now() - this.loadingSince > 250) this.setStatus('Loading…', 'loading');
      else setTimeout(() => this.schedule(), 260);
    }
    if (this.pendingFocus !== null && !this.carousel.isOpen && this.tiles.setFocus(this.pendingFocus, true)) this.pendingFocus = null;
    if (this.focusAtTheTop && complete) {
      this.focusAtTheTop = false;
      // Not once the focus has gone elsewhere meanwhile (a click, Tab, a toolbar button).
      const active = document.activeElement;
      const item = active === document.body || this.element.contains(active) ? this.itemAtTheTop() : null;
      if (item) this.focusIndex(item.index, true, false);
    }
  }

  /** Shows a status line; an error outranks the empty-catalog hint, which outranks "Loading…". */
  setStatus(text, kind) {
    const rank = { error: 3, empty: 2, loading: 1 };
    const current = this.statusLine.textContent ? this.statusLine.dataset.kind : '';
    if (current && current !== kind && (rank[current] ?? 0) > (rank[kind] ?? 0)) return;
    if (this.statusLine.textContent !== text) this.statusLine.textContent = text; // unchanged text is not read out again
    this.statusLine.dataset.kind = kind;
  }

  /** The server answered: an error it had stopped answering with is over, and the images that
   *  failed meanwhile are asked for again. */
  answered() {
    if (this.statusLine.dataset.kind === 'error' && this.statusLine.textContent) {
      this.tiles.retryFailed();
      this.schedule();
    }
    this.clearStatus('error');
  }

  /** Clears the status line if it shows `kind`. */
  clearStatus(kind) {
    if (this.statusLine.dataset.kind === kind && this.statusLine.textContent) this.statusLine.textContent = '';
  }

  fail(error) {
    if (error.status === 401) { location.reload(); return; } // the session ended (expired, or its token revoked): sign in again
    this.clearStatus('loading');
    this.setStatus(error.status === 0 ? 'Cannot reach the catalog server; retrying…' : `Error: ${error.message}`, 'error');
  }

  /** The item at the top of the view: the first whose top is in view (the highest, then the
   *  leftmost), else one that covers the whole view; and which part of it is at the very top. */
  topAnchor(skipping = null) {
    const top = this.scroller.top;
    const bottom = top + this.scroller.viewportHeight;
    let best = null;
    for (const { item } of this.tiles.live.values()) {
      if (skipping?.has(item.id)) continue;
      const frame = item.frame;
      if (frame.y + frame.height <= top || frame.y >= bottom) continue;
      const key = frame.y >= top - 0.5 ? frame.y : bottom + (top - frame.y); // cut by the top edge: only if nothing starts in view
      if (!best || key < best.key || (key === best.key && frame.x < best.item.frame.x)) best = { item, key };
    }
    if (!best) return { top, share: this.share() };
    const frame = best.item.frame;
    const fraction = Math.min(1, Math.max(0, (top - frame.y) / frame.height));
    return { id: best.item.id, fraction, height: frame.height, screenY: frame.y + fraction * frame.height - top, top, share: this.share() };
  }

  /** The item under a point of the screen (or the nearest one), and the point's place in it. */
  pointAnchor(point) {
    const rect = this.element.getBoundingClientRect();
    const x = point ? point.x - rect.left : this.element.clientWidth / 2;
    const screenY = point ? point.y - rect.top : this.scroller.viewportHeight / 2;
    const y = this.scroller.top + screenY;
    let best = null;
    for (const { item } of this.tiles.live.values()) {
      const f = item.frame;
      const dx = Math.max(f.x - x, 0, x - (f.x + f.width));
      const dy = Math.max(f.y - y, 0, y - (f.y + f.height));
      const distance = Math.hypot(dx, dy);
      if (!best || distance < best.distance) best = { item, distance };
    }
    if (!best) return this.topAnchor();
    const f = best.item.frame;
    const fraction = Math.min(1, Math.max(0, (y - f.y) / f.height));
    return { id: best.item.id, fraction, height: f.height, screenY, top: this.scroller.top, share: this.share() };
  }

  zoom(step, point) {
    const current = this.columns();
    const next = Math.max(1, Math.min(this.mostColumns(), current + step));
    if (next === current || this.style === 'list') return;
    const anchor = this.pointAnchor(point);
    this.setColumns(next);
    this.relayout(anchor);
  }

  // MARK: Items, focus and the viewer

  /** The page item at `index` of the order: from a loaded band, else asked for. */
  async itemAt(index) {
    if (this.itemCount === null || index < 0 || index >= this.itemCount) return null;
    const loaded = this.bands.find(index);
    if (loaded) return loaded;
    const row = await api.itemAt(index, this.sort);
    if (!row) return null;
    return this.locate(row.id);
  }

  /** Item `id` as the current layout places it. */
  async locate(id) {
    const parameters = this.parameters;
    const page = await api.page({ ...parameters, item: id, height: this.scroller.viewportHeight });
    if (parameters !== this.parameters) return null; // laid out again meanwhile: its frames are stale
    return page.items.find((item) => item.kind === 'cell' && item.id === id) ?? null;
  }

  /** Opens the viewer on item `id`, unless `wanted()` says no once the item is found. */
  async open(id, wanted = () => true) {
    const tile = this.tiles.tile(id);
    const item = tile?.item ?? await this.locate(id).catch(() => null);
    if (item && wanted()) this.viewer.open(item);
  }

  /** Scrolls just enough for `frame` to be in view. */
  reveal(frame) {
    const top = this.scroller.top;
    const height = this.scroller.viewportHeight;
    // With sections, the pinned header covers the top of the view.
    const pinned = this.labels.pinned;
    const covered = this.sections !== 'none' && !pinned.hidden ? parseFloat(pinned.style.height) || 0 : 0;
    if (frame.y < top + covered) this.scroller.scrollTo(frame.y - covered - SPACING);
    else if (frame.y + frame.height > top + height) this.scroller.scrollTo(Math.min(frame.y - SPACING, frame.y + frame.height - height + SPACING));
  }

  /** Moves the keyboard focus to the item at `index`, scrolling it into view unless `reveal`
   *  is false (a page key has already put the view where it should be). */
  async focusIndex(index, focus = true, reveal = true) {
    if (this.itemCount === null || this.itemCount === 0) return;
    const request = ++this.focusRequest;
    this.focusAtTheTop = false; // a later key press wins over a page key's focus still to come
    const parameters = this.parameters;
    const item = await this.itemAt(Math.max(0, Math.min(this.itemCount - 1, index)));
    // A later key press, or a new layout, makes this answer stale.
    if (!item || request !== this.focusRequest || parameters !== this.parameters) return;
    if (reveal) this.reveal(item.frame);
    this.render();
    // Behind the viewer or the carousel the item is kept in view, but the keys stay with them.
    const take = focus && !this.viewer.isOpen && !this.carousel.isOpen;
    if (this.tiles.setFocus(item.id, take)) this.pendingFocus = null;
    else if (take) this.pendingFocus = item.id;
  }

  /** Where a page key leaves the focus: the highest item in view (then the leftmost) that shows
   *  at least half of what the view can show of it. An image taller than the view, cut by the
   *  top edge, keeps it while it fills most of the view; a sliver at the bottom does not take it. */
  itemAtTheTop() {
    const top = this.scroller.top;
    const height = this.scroller.viewportHeight;
    let best = null;
    for (const { item } of this.tiles.live.values()) {
      const f = item.frame;
      const shown = Math.min(top + height, f.y + f.height) - Math.max(top, f.y);
      if (shown < Math.min(f.height, height) / 2) continue;
      const y = Math.max(top, f.y);
      if (!best || y < best.y || (y === best.y && f.x < best.item.frame.x)) best = { item, y };
    }
    return best?.item ?? null;
  }

  focusedItem() {
    const id = this.tiles.focusedID;
    return id === null ? null : this.tiles.tile(id)?.item ?? null;
  }

  /** The nearest loaded item above or below `item`, overlapping its middle horizontally. */
  neighbour(item, direction) {
    const middle = item.frame.x + item.frame.width / 2;
    let best = null;
    for (const candidate of this.bands.loaded()) {
      const f = candidate.frame;
      if (middle < f.x || middle > f.x + f.width || candidate.index === item.index) continue;
      const gap = direction > 0 ? f.y - (item.frame.y + item.frame.height) : item.frame.y - (f.y + f.height);
      if (gap < -0.5) continue;
      if (!best || gap < best.gap) best = { item: candidate, gap };
    }
    return best?.item ?? null;
  }

  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || this.itemCount === null) return;
    const height = this.scroller.viewportHeight;
    const focused = this.focusedItem();
    const move = (handler) => {
      event.preventDefault();
      handler();
    };
    const firstVisible = () => {
      const anchor = this.topAnchor();
      return anchor.id !== undefined ? this.tiles.tile(anchor.id)?.item : null;
    };
    switch (event.key) {
      case 'ArrowRight':
      case 'ArrowLeft': {
        const start = focused ?? firstVisible();
        if (!start) return;
        const step = event.key === 'ArrowRight' ? 1 : -1;
        move(() => this.focusIndex(focused ? start.index + step : start.index));
        break;
      }
      case 'ArrowDown':
      case 'ArrowUp': {
        const start = focused ?? firstVisible();
        if (!start) return;
        const direction = event.key === 'ArrowDown' ? 1 : -1;
        move(() => {
          if (!focused) return this.focusIndex(start.index);
          const next = this.neighbour(start, direction);
          return this.focusIndex(next ? next.index : start.index + direction * (this.parameters.cols ?? 1));
        });
        break;
      }
      case 'PageDown':
      case 'PageUp':
        move(() => {
          this.scroller.scrollBy((event.key === 'PageDown' ? 1 : -1) * height * 0.9);
          // The focus follows to the item at the top, where the page key put the view (without
          // scrolling: an item taller than the view would scroll it back), once its band is here.
          this.focusAtTheTop = focused !== null;
          this.render();
        });
        break;
      case 'Home':
        move(() => {
          this.scroller.scrollTo(0);
          this.focusIndex(0);
        });
        break;
      case 'End':
        move(() => {
          this.scroller.scrollTo(this.scroller.maxTop);
          this.focusIndex(this.itemCount - 1);
        });
        break;
      case 'Enter':
      case ' ':
        if (focused && document.activeElement === this.tiles.tile(focused.id)?.element) move(() => this.viewer.open(focused));
        break;
      default:
    }
  }

  // MARK: The address and the catalog's changes

  placeFragment() {
    const anchor = this.topAnchor();
    return {
      // Before the gallery has tiles (a reload, a link, with the viewer or the carousel opening
      // over it), its place is the address's item still.
      item: anchor.id ?? readFragment().item, cols: this.style === 'list' ? null : this.parameters?.cols, style: this.style, sort: this.sort,
      sections: this.sections,
    };
  }

  /** Writes the place into the address once scrolling pauses (replacing, not adding, history).
   *  Before the first tiles are drawn (their band still on its way) there is no item to name:
   *  it is written once they are (render). */
  scheduleFragment() {
    clearTimeout(this.fragmentTimer);
    this.fragmentTimer = setTimeout(() => {
      this.fragmentWaitsForTiles = false;
      if (this.viewer.isOpen || this.carousel.isOpen || !this.parameters) return;
      if (this.itemCount > 0 && this.tiles.live.size === 0) {
        this.fragmentWaitsForTiles = true;
        return;
      }
      const text = fragment(this.placeFragment());
      if (text !== location.hash) history.replaceState(null, '', text);
    }, 300);
  }

  /** Looks at the catalog's generation; a new one (a scan finished) is laid out around the
   *  item at the top of the view. The band at the top is asked for again: the server answers
   *  it from memory (a 304 while the generation is the same), where /api/stats would count
   *  every item. */
  async poll() {
    if (document.hidden || this.generation === null || !this.parameters || this.relayoutPending || this.polling) return;
    this.polling = true; // one look at a time (a page shown again from the back/forward cache asks twice)
    try {
      await this.look();
    } finally {
      this.polling = false;
    }
  }

  async look() {
    // A change of configuration that never got laid out (its request failed): again.
    if (JSON.stringify(this.layoutParameters()) !== JSON.stringify(this.parameters)) {
      await this.relayout(this.topAnchor());
      return;
    }
    try {
      const offset = Math.floor(this.scroller.top / BAND) * BAND;
      const page = await api.page({ ...this.parameters, offset, height: BAND });
      this.answered();
      if (page.generation !== this.generation) await this.relayout(this.topAnchor());
    } catch (error) {
      this.fail(error);
    }
  }
}

// With access control on, nothing is asked of the API before the browser has a session.
const session = await currentSession().catch(() => ({ accessControl: false, signedIn: true })); // unreachable: the gallery says so and retries
if (session.signedIn) {
  const gallery = new Gallery();
  window.catalogGallery = gallery; // for scripts and tests: state, scroller, relayout
  gallery.start();
  if (session.accessControl) showSignOut();
} else {
  showSignIn();
}
