// The gallery: the whole catalog as a Pinterest-style waterfall (or a grid, or a list) in one
// scrolling view, whatever its size. Layouts come from /api/page (bands.js), the view maps
// scrolling onto content of any height (scroller.js), tiles show the items near the view
// (tiles.js); the viewer (viewer.js), zoom (zoom.js), the keys (keyboard.js), the toolbar
// (toolbar.js), live updates (live.js) and deep links (location.js) sit around it.
//
// Every change of layout (a resize, a zoom, another style or order, a new catalog generation,
// a deep link) goes through relayout(anchor): the anchor is an item and a point on the screen,
// and the new layout is scrolled so that the same point of that item is at the same place.

import { share, topAnchor } from './anchors.js';
import { api } from './api.js';
import { Bands } from './bands.js';
import { fragment, readFragment } from './location.js';
import { CarouselView } from './carousel.js';
import { Columns, itemScale, SPACING } from './columns.js';
import { Keyboard } from './keyboard.js';
import { LiveUpdates } from './live.js';
import { SectionLabels } from './sections.js';
import { currentSession, showSignIn, showSignOut } from './signin.js';
import { VirtualScroller } from './scroller.js';
import { StatusLine } from './status.js';
import { Tiles } from './tiles.js';
import { Toolbar } from './toolbar.js';
import { Viewer } from './viewer.js';
import { ImageRecovery } from './recovery.js';
import { ImagePolicy } from './policy.js';
import { installZoom, zoomGallery } from './zoom.js';

const configuration = JSON.parse(document.getElementById('catalog-configuration').textContent);
const NARROWEST = 64; // a window narrower than this is not laid out
const OVERSCAN = 0.5; // screens of tiles kept above and below the view
const IMAGE_MARGIN = 0.25; // screens beyond the view whose images are asked for
const MOST_TILES = 1200; // elements on the page at most, whatever the catalog and the view
const LINKED_IMAGE_GONE = 'The linked image is not in this catalog: it was removed, or the link is to another catalog.';

class Gallery {
  constructor() {
    this.element = document.getElementById('scroller');
    this.plane = document.getElementById('plane');
    this.status = new StatusLine(document.getElementById('status'));

    this.style = 'waterfall';
    this.sort = 'date';
    this.sections = 'none';
    this.columns = new Columns();
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
    window.addEventListener('popstate', () => { this.closingOverlay = this.viewer.isOpen || this.viewer.goingBack || this.carousel.ownsEntry; });

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
    this.tiles = new Tiles(this.plane, configuration.thumbnailSizes, (failed) => {
      if (failed) this.recovery.imageFailed();
      this.schedule();
    });
    this.recovery = new ImageRecovery(this);
    this.policy = new ImagePolicy(() => this.reloadHere());
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
      itemCount: () => this.itemCount ?? 0,
      onShow: (item, closed) => { this.focusIndex(item.index, closed); if (closed) this.scheduleFragment(); }, // the address without it
      fragment: (view) => fragment({ ...this.placeFragment(), view }),
      largestThumbnail: Math.max(...configuration.thumbnailSizes),
    });

    this.carousel = new CarouselView({
      onClose: (item) => {
        if (item) this.focusIndex(item.index);
        this.scheduleFragment(); // the gallery's place, without the carousel
      },
      onShow: () => {},
      onOpen: (item) => this.open(item.id),
      fragment: (id) => fragment({ ...this.placeFragment(), carousel: id }),
    });
    this.toolbar = new Toolbar(this, configuration.styles);
    installZoom({
      scroller: this.element,
      zoomIn: document.getElementById('zoom-in'),
      zoomOut: document.getElementById('zoom-out'),
      zoom: (step, point) => zoomGallery(this, step, point),
    });
    this.plane.addEventListener('click', (event) => {
      const tile = event.target.closest('.tile');
      if (tile) this.open(Number(tile.dataset.itemId));
    });
    this.keyboard = new Keyboard(this);
    this.element.addEventListener('keydown', (event) => this.keyboard.key(event));
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
        height = this.element.clientHeight; // laid out again for both (a later change of height alone is one too)
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
    this.live = new LiveUpdates(this);
    this.live.listen();
  }

  /** The parameters of /api/page for the configuration (columns.js). */
  layoutParameters() {
    return this.columns.parameters({ width: this.element.clientWidth, style: this.style, sort: this.sort, sections: this.sections });
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
    if (link.cols) this.columns.set(link.cols, this.element.clientWidth);
    if (link.rowHeight && this.style === 'justified') this.columns.setRowHeight(link.rowHeight, this.element.clientWidth);
    this.relayout(link.item !== null ? { id: link.item, fraction: 0, screenY: 0, linked: true } : first ? { top: 0 } : this.topAnchor())
      .then(async () => {
        const current = () => request === this.followRequest;
        if (!current()) return;
        if (link.view !== null) { // a shared link, a reload, or Forward into the viewer's entry
          if (!(await this.open(link.view, current)) && current()) this.status.notice(LINKED_IMAGE_GONE);
        } else if (carousel && configuration.styles.includes('carousel')) {
          const id = link.carousel ?? link.item ?? this.topAnchor().id ?? (await this.itemAt(0))?.id;
          const opened = id !== undefined && current() ? await this.carousel.open(id, this.sort) : 'open';
          if (opened === 'gone' && current()) this.status.notice(LINKED_IMAGE_GONE);
        }
      });
  }

  /** The layout for the current configuration, scrolled so that `anchor` stays in place. */
  async relayout(anchor) {
    const parameters = this.layoutParameters();
    if (!(parameters.width >= NARROWEST)) {
      this.status.show('The window is too narrow to show the gallery.', 'error');
      return;
    }
    const request = ++this.layoutRequest;
    this.relayoutPending = true;
    const height = Math.max(1, this.scroller.viewportHeight);
    const slow = setTimeout(() => this.status.show(`Laying out${this.itemCount ? ` ${this.itemCount.toLocaleString()} images` : ''}…`, 'loading'), 300);
    let page;
    let sections = null;
    try {
      // The sections of the layout (for the pinned header and the scrubber), asked for with it.
      const listing = parameters.sections ? api.sections(parameters) : Promise.resolve(null);
      if (anchor?.id !== undefined && anchor.id !== null) {
        try {
          // The server puts the item's top `anchor-y` below the viewport's top (clamped at the
          // ends): the same point of it as before, its new height guessed from the new column's.
          const grown = itemScale(this.parameters, parameters);
          const anchorY = anchor.screenY - anchor.fraction * (anchor.height ?? 0) * grown;
          page = await api.page({ ...parameters, item: anchor.id, 'anchor-y': Math.round(anchorY * 100) / 100, height });
        } catch (error) {
          if (error.status !== 404) throw error;
          if (anchor.linked) this.status.notice(LINKED_IMAGE_GONE); // a link, not a live change: say so
          anchor = { top: anchor.top ?? this.scroller.top, share: share(this.scroller) }; // the item is gone: keep the place
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
    this.keepTiles = sameConfiguration; // kept until the new bands cover the view: no blank frame, no fade
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
    this.placedItem = item ?? null; // the anchor until the new layout's tiles are drawn (topAnchor)
    this.labels.setList(sections, page.contentHeight, height);
    this.showConfiguration();
    this.answered();
    this.status.clear('loading');
    if (this.itemCount === 0) this.status.show('This catalog is empty: add images with `catalog scan FOLDER` or `catalog import FILE`.', 'empty');
    else this.status.clear('empty');
    this.render();
    if (sameConfiguration && newGeneration && focused !== null) this.live.followFocus(focused);
    if (newGeneration) {
      this.carousel.changed(page.generation); // the carousel's row and the viewer's next and previous are the new order's
      this.live.followViewer();
    }
  }

  showConfiguration() {
    this.toolbar.show();
    Object.assign(this.plane.dataset, {
      width: this.parameters.width, cols: this.parameters.cols ?? 1, style: this.style, sort: this.sort, sections: this.sections,
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
      keepOthers: this.keepTiles && !complete,
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
      this.keepTiles = false;
      if (this.tiles.live.size > 0) this.placedItem = null; // the new layout's tiles are here
      this.loadingSince = null;
      this.status.clear('loading');
    } else {
      this.loadingSince ??= performance.now();
      if (performance.now() - this.loadingSince > 250) this.status.show('Loading…', 'loading');
      else setTimeout(() => this.schedule(), 260);
    }
    if (this.pendingFocus !== null && !this.carousel.isOpen && this.tiles.setFocus(this.pendingFocus, true)) this.pendingFocus = null;
    if (this.focusAtTheTop && complete) {
      this.focusAtTheTop = false;
      // Not once the focus has gone elsewhere meanwhile (a click, Tab, a toolbar button).
      const active = document.activeElement;
      const item = active === document.body || this.element.contains(active) ? this.keyboard.itemAtTheTop() : null;
      if (item) this.focusIndex(item.index, true, false);
    }
  }

  /** The server answered: an error it had stopped answering with is over, and the images that
   *  failed meanwhile are asked for again. */
  answered() {
    if (this.status.kind === 'error') {
      this.tiles.retryFailed();
      this.schedule();
    }
    this.status.clear('error');
  }

  /** Loads the page again, at this place. */
  reloadHere() {
    const placed = this.parameters && !this.viewer.isOpen && !this.carousel.isOpen; // else the address says more than the place
    if (placed) history.replaceState(history.state, '', fragment(this.placeFragment())); // it lags the view by 300 ms
    location.reload();
  }

  fail(error) {
    // The session ended (expired, or its token revoked): sign in again, back at this place.
    if (error.status === 401) return this.reloadHere();
    this.status.clear('loading');
    this.status.show(error.status === 0 ? 'Cannot reach the catalog server; retrying…' : `Error: ${error.message}`, 'error');
  }

  /** The item at the top of the view and the point of it there (anchors.js). Until a new
   *  layout's tiles are drawn, the tiles are the old layout's (a new generation keeps them until
   *  its bands come): the anchor is then the item the layout was placed by, at its new frame. A
   *  second change in that time used to find no tile in view and keep only the share of the
   *  content scrolled, far from the place. */
  topAnchor(skipping = null) {
    const placed = this.placedItem;
    if (placed && !skipping?.has(placed.id)) {
      const { top, viewportHeight } = this.scroller;
      const frame = placed.frame;
      if (frame.y < top + viewportHeight && frame.y + frame.height > top) {
        const fraction = Math.min(1, Math.max(0, (top - frame.y) / frame.height));
        return { id: placed.id, fraction, height: frame.height, screenY: frame.y + fraction * frame.height - top, top, share: share(this.scroller) };
      }
    }
    return topAnchor(this, skipping);
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

  /** Opens the viewer on item `id`, unless `wanted()` says no once the item is found; false
   *  when there is no such item. */
  async open(id, wanted = () => true) {
    if (!(id >= 1)) return false; // ids start at 1: a link's 0 is not asked for
    const tile = this.tiles.tile(id);
    const item = tile?.item ?? await this.locate(id).catch(() => null);
    if (item && wanted()) this.viewer.open(item);
    return item !== null;
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

  focusedItem() {
    const id = this.tiles.focusedID;
    return id === null ? null : this.tiles.tile(id)?.item ?? null;
  }

  // MARK: The address and the catalog's changes

  placeFragment() {
    const anchor = this.topAnchor();
    return {
      // Before the gallery has tiles (a reload, a link, with the viewer or the carousel opening
      // over it), its place is the address's item still.
      item: anchor.id ?? readFragment().item, cols: this.style === 'list' ? null : this.parameters?.cols,
      rowHeight: this.parameters?.['row-height'], style: this.style, sort: this.sort,
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
