// The carousel: the whole catalog as one row scrolling sideways (/api/page with
// style=carousel), each image scaled and faded by its distance to the view's centre (the API's
// rule: t = min(1, d / falloff), scale = 1 − 0.2 t, alpha = 1 − 0.5 t, the nearest on top), and
// snapping when a scroll ends so that one image is centred (/api/snap). Opened at the current
// image from the viewer or the toolbar; Escape or the close button leave it, Enter opens the
// centred image in the viewer. A modal dialog: the page behind is inert while it is open, and
// each image centred is announced. Opening it adds a history entry (the address says the
// centred image), so the browser's Back closes it.

import { api, fileName, isWebAddress } from './api.js';
import { VirtualScroller } from './scroller.js';

const BAND = 2048; // points along x a page request covers
const MIN_SCALE = 0.8;
const MIN_ALPHA = 0.5;
const SNAP_MS = 220;

export class CarouselView {
  /**
   * @param onClose called with the centred item (or null) once it is closed
   * @param onShow called with each item centred
   * @param onOpen called with the centred item Enter opens (the viewer takes the carousel's entry)
   * @param fragment (id) => the address fragment with the carousel open at item id
   */
  constructor({ onClose, onShow, onOpen, fragment }) {
    this.fragment = fragment;
    this.root = document.getElementById('carousel');
    this.status = document.getElementById('carousel-status');
    this.background = [...document.querySelectorAll('body > header, body > .stage')];
    this.reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');
    this.onOpen = onOpen;
    this.element = document.getElementById('carousel-scroller');
    this.plane = document.getElementById('carousel-plane');
    this.onClose = onClose;
    this.onShow = onShow;
    this.tiles = new Map(); // item id -> element
    this.bands = new Map(); // band -> page or promise
    this.parameters = null;
    this.animation = 0;
    this.samples = [];
    this.scroller = new VirtualScroller(this.element, document.getElementById('carousel-sizer'), this.plane,
                                        () => this.schedule(), 'x');
    this.scroller.onWheel = () => this.scheduleSnap();
    this.element.addEventListener('scroll', () => {
      if (this.animating || performance.now() < this.quietUntil) return; // our own scrolling
      this.snapRequest += 1; // the person scrolls again: an answer still on its way is stale
      this.samples.push({ t: performance.now(), x: this.scroller.top });
      if (this.samples.length > 6) this.samples.shift();
    }, { passive: true });
    this.quietUntil = 0;
    this.snapRequest = 0;
    this.element.addEventListener('scrollend', () => this.scheduleSnap());
    this.element.addEventListener('pointerup', () => this.scheduleSnap());
    document.getElementById('carousel-close').addEventListener('click', () => this.close());
    // On the document: the keys work wherever the focus is while it is open (on the body, when
    // the viewer it was opened from still held the focus as it opened).
    document.addEventListener('keydown', (event) => {
      if (!this.isOpen) return;
      if (event.key === 'Escape') { event.preventDefault(); this.close(); }
      if (event.key === 'Enter' && event.target === this.element) {
        event.preventDefault();
        const item = this.centredItem();
        if (item) {
          this.#hide();
          this.onOpen(item);
        }
      }
      if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
        event.preventDefault();
        this.step(event.key === 'ArrowRight' ? 1 : -1);
      }
    });
    window.addEventListener('popstate', () => {
      if (this.isOpen && !history.state?.carousel) this.#hide();
    });
    this.plane.addEventListener('click', (event) => {
      const tile = event.target.closest('[data-item-id]');
      if (tile) this.centre(Number(tile.dataset.itemId));
    });
  }

  get isOpen() { return !this.root.hidden; }

  /** Whether the history entry at hand is the carousel's: its own, or the viewer's it was handed
   *  (Back then closes the carousel; before either, Back is the gallery's). */
  get ownsEntry() { return this.isOpen && (this.entered || this.handedOver); }

  /** The item height for this window: a few fixed sizes, so that the stored layouts are few. */
  itemHeight() {
    const height = this.element.clientHeight || window.innerHeight;
    return height >= 900 ? 480 : height >= 600 ? 360 : 240;
  }

  layoutParameters(sort) {
    return { style: 'carousel', 'item-height': this.itemHeight(), sort };
  }

  /** Opens at item `id`, centred; `from`, the viewer's item when it hands over (closed before
   *  anything is centred, the carousel leaves the focus there, not on what the viewer was opened from). */
  async open(id, sort, from = null) {
    this.from = from;
    this.handedOver = !this.isOpen && !!history.state?.viewer;
    this.entered = !this.isOpen && !!history.state?.carousel; // a reload, or Forward: its entry already
    this.closing = false;
    this.opener = document.activeElement;
    this.root.dataset.state = 'opening'; // its first page on its way
    this.root.hidden = false;
    for (const element of this.background) element.inert = true;
    this.announced = null;
    this.parameters = this.layoutParameters(sort);
    this.root.style.setProperty('--item-height', `${this.parameters['item-height']}px`);
    this.bands.clear();
    for (const tile of this.tiles.values()) tile.remove();
    this.tiles.clear();
    const width = this.element.clientWidth;
    const parameters = this.parameters;
    let page;
    try {
      page = await api.page({ ...parameters, width, item: id, height: parameters['item-height'] + 16 });
    } catch {
      if (this.parameters === parameters) this.close(); // the item is gone, or the server: nothing to show
      return;
    }
    if (!this.isOpen || this.parameters !== parameters) return;
    // Its own history entry once there is something to show, so that Back closes it; opened
    // from the viewer, it takes the viewer's (handed over); opened at a reload, it keeps its own.
    const state = { carousel: id };
    if (history.state?.carousel || history.state?.viewer) history.replaceState(state, '', this.fragment(id));
    else history.pushState(state, '', this.fragment(id));
    this.entered = true;
    this.itemCount = page.itemCount;
    this.bands.set('opened', { page }); // what is centred, before the first band arrives
    this.scroller.setContentHeight(page.contentWidth, page.viewport.x);
    const item = page.items.find((candidate) => candidate.id === id);
    // Scrolling there is ours: it is not a fling to snap after.
    this.quietUntil = performance.now() + 300;
    this.samples = [];
    if (item) this.scroller.scrollTo(item.frame.x + item.frame.width / 2 - width / 2);
    this.root.dataset.state = 'open';
    this.element.focus({ preventScroll: true });
    this.render();
    if (item) this.announce(item);
  }

  /** Closes: through history when the carousel added an entry, so Back and Escape agree. */
  close() {
    if (!this.isOpen || this.closing) return; // a second Escape before the first is done: not two steps back
    if (this.ownsEntry) {
      this.closing = true;
      history.back(); // popstate hides it
    } else this.#hide();
  }

  #hide() {
    this.entered = false;
    this.handedOver = false;
    this.closing = false;
    const centred = this.centredItem() ?? this.from; // before it is hidden: hidden, it has no width, and no centre
    this.root.hidden = true;
    for (const element of this.background) element.inert = false;
    cancelAnimationFrame(this.animation);
    this.animating = false;
    this.onClose(centred);
    if (!centred && this.opener?.isConnected) this.opener.focus({ preventScroll: true });
  }

  /** Says which image is centred, to a screen reader (once per image). */
  announce(item) {
    if (this.announced === item.id) return;
    this.announced = item.id;
    if (history.state?.carousel) history.replaceState({ carousel: item.id }, '', this.fragment(item.id));
    this.status.textContent = `${item.title || fileName(item.path)}, ${item.index + 1} of ${this.itemCount ?? '?'}`;
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  /** The items of the bands around the view, fetched as needed. */
  visibleItems() {
    const left = this.scroller.top - this.element.clientWidth / 2;
    const right = this.scroller.top + this.element.clientWidth * 1.5;
    const items = [];
    let complete = true;
    const seen = new Set();
    for (let band = Math.floor(Math.max(0, left) / BAND); band <= Math.floor(Math.max(0, right) / BAND); band += 1) {
      let entry = this.bands.get(band);
      if (!entry) {
        entry = { page: null };
        this.bands.set(band, entry);
        const parameters = this.parameters;
        api.page({ ...parameters, width: BAND, offset: band * BAND, height: parameters['item-height'] + 16 }).then((page) => {
          if (this.parameters !== parameters) return;
          entry.page = page;
          this.schedule();
        }).catch(() => this.bands.delete(band));
      }
      if (!entry.page) {
        complete = false;
        continue;
      }
      for (const item of entry.page.items) {
        if (item.frame.x < right && item.frame.x + item.frame.width > left && !seen.has(item.index)) {
          seen.add(item.index);
          items.push(item);
        }
      }
    }
    if (this.bands.size > 24) {
      for (const band of [...this.bands.keys()].slice(0, this.bands.size - 24)) this.bands.delete(band);
    }
    return { items, complete };
  }

  render() {
    this.frame = 0;
    if (!this.isOpen || !this.parameters) return;
    const { items, complete } = this.visibleItems();
    const width = this.element.clientWidth;
    const centre = this.scroller.top + width / 2;
    const falloff = width / 2;
    const origin = this.scroller.origin;
    const wanted = new Set();
    // The nearest on top: rank by distance, ties to the lower index.
    const order = items.map((item) => ({ item, d: Math.abs(item.frame.x + item.frame.width / 2 - centre) }))
      .sort((a, b) => a.d - b.d || a.item.index - b.item.index);
    order.forEach(({ item, d }, rank) => {
      wanted.add(item.id);
      let tile = this.tiles.get(item.id);
      if (!tile) {
        tile = this.makeTile(item);
        this.tiles.set(item.id, tile);
        this.plane.append(tile);
      }
      const t = Math.min(1, d / falloff);
      const scale = 1 - (1 - MIN_SCALE) * t;
      const alpha = 1 - (1 - MIN_ALPHA) * t;
      tile.style.transform = `translate(${item.frame.x - origin}px, ${item.frame.y}px) scale(${scale})`;
      tile.style.width = `${item.frame.width}px`;
      tile.style.height = `${item.frame.height}px`;
      tile.style.opacity = alpha;
      tile.style.zIndex = items.length - rank;
      Object.assign(tile.dataset, { index: item.index, x: item.frame.x, scale, alpha });
    });
    for (const [id, tile] of this.tiles) {
      if (!wanted.has(id)) {
        tile.remove();
        this.tiles.delete(id);
      }
    }
    this.root.dataset.state = complete ? 'complete' : 'loading';
    this.root.dataset.top = this.scroller.top;
    const centred = this.centredItem();
    if (centred) this.root.dataset.centred = centred.id;
  }

  makeTile(item) {
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

  /** The loaded item whose centre is nearest the view's. */
  centredItem() {
    const centre = this.scroller.top + this.element.clientWidth / 2;
    let best = null;
    for (const entry of this.bands.values()) {
      for (const item of entry.page?.items ?? []) {
        const d = Math.abs(item.frame.x + item.frame.width / 2 - centre);
        if (!best || d < best.d || (d === best.d && item.index < best.item.index)) best = { item, d };
      }
    }
    return best?.item ?? null;
  }

  /** Once scrolling stops, asks where to stop so an item is centred, and glides there. */
  scheduleSnap() {
    if (this.animating) return;
    clearTimeout(this.snapTimer);
    this.snapTimer = setTimeout(() => this.snap(), 90);
  }

  /** Asks the API where to stop; only the newest question's answer moves the view (an older
   *  one arriving late would otherwise undo a step or a newer scroll). */
  async snap(proposed = this.scroller.top, velocity = this.velocity(), fromKey = false) {
    if (!this.isOpen || (this.animating && !fromKey)) return;
    const request = ++this.snapRequest;
    let target;
    try {
      target = await api.snap({ ...this.parameters, width: this.element.clientWidth, proposed, velocity });
    } catch {
      return; // the view stays where it is; the next scroll asks again
    }
    if (request !== this.snapRequest || !this.isOpen) return;
    if (target.item && Math.abs(target.offset - this.scroller.top) >= 0.5) this.glide(target.offset);
  }

  /** Points per millisecond over the last scroll events (0 when they are old). */
  velocity() {
    const samples = this.samples.filter((sample) => performance.now() - sample.t < 150);
    if (samples.length < 2) return 0;
    const first = samples[0], last = samples[samples.length - 1];
    return last.t > first.t ? (last.x - first.x) / (last.t - first.t) : 0;
  }

  glide(offset) {
    cancelAnimationFrame(this.animation);
    const from = this.scroller.top;
    this.destination = offset;
    const start = performance.now();
    this.animating = true;
    const frame = (now) => {
      const t = Math.min(1, (now - start) / SNAP_MS);
      const eased = 1 - (1 - t) * (1 - t);
      this.scroller.scrollTo(from + (offset - from) * eased);
      if (t < 1) {
        this.animation = requestAnimationFrame(frame);
      } else {
        this.animating = false;
        this.samples = [];
        this.quietUntil = performance.now() + 200; // the scroll events of the glide's last frames
        this.render();
        const centred = this.centredItem();
        if (centred) {
          this.onShow(centred);
          this.announce(centred);
        }
      }
    };
    // With reduced motion, the glide is one step: its end at once.
    this.animation = requestAnimationFrame(this.reducedMotion.matches ? () => frame(start + SNAP_MS) : frame);
  }

  /** The next (1) or previous (−1) item to the centred one, centred. */
  step(direction) {
    clearTimeout(this.snapTimer);
    // From where a glide under way will stop, so that two quick presses move two images.
    const from = this.animating ? this.destination : this.scroller.top;
    this.snap(from + direction, direction, true);
  }

  async centre(id) {
    const tile = this.tiles.get(id);
    if (!tile) return;
    const x = Number(tile.dataset.x);
    const width = parseFloat(tile.style.width);
    this.glide(Math.min(Math.max(0, x + width / 2 - this.element.clientWidth / 2), this.scroller.maxTop));
  }
}
