// The carousel: the whole catalog as one row scrolling sideways (/api/page with
// style=carousel), each image scaled and faded by its distance to the view's centre (the API's
// rule: t = min(1, d / falloff), scale = 1 − 0.2 t, alpha = 1 − 0.5 t, the nearest on top), and
// snapping when a scroll ends so that one image is centred (/api/snap). Opened at the current
// image from the viewer or the toolbar; Escape or the close button leave it, Enter opens the
// centred image in the viewer. A modal dialog: the page behind is inert while it is open, and
// each image centred is announced. Opening it adds a history entry (the address says the
// centred image), so the browser's Back closes it.
//
// The row has half a view of room before its first image and after its last, so that every
// image can be centred: the scroller's offset (`scroller.top`) is the row's point at the view's
// centre, from 0 to the row's length (the layout's offset at the view's left is that less half
// the view, which may be below 0). A new window size lays it out again around the same image.

import { api, fileName } from './api.js';
import { carouselTile, emphasis, speed } from './carousel-row.js';
import { VirtualScroller } from './scroller.js';

const BAND = 2048; // points along x a page request covers
const SNAP_MS = 220;
const STEP_WAIT = 2000; // ms a step waits for the server's answer before a press asks anew

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
    this.pad = 0; // half the view: the room at each end of the row
    this.layoutRequest = 0; // the newest layout asked for (#layOut)
    this.layingOut = false; // whether it is still on its way
    this.animation = 0;
    this.samples = [];
    this.scroller = new VirtualScroller(this.element, document.getElementById('carousel-sizer'), this.plane,
                                        () => this.schedule(), 'x');
    this.wheelTravel = 0; // how far the wheel moved the row since the last snap (or glide)
    this.scroller.onWheel = (delta) => {
      this.wheelTravel += delta;
      if (!this.animating) this.snapRequest += 1; // an answer on its way is for where the row was (not a step's, during its glide)
      this.scheduleSnap();
    };
    this.element.addEventListener('scroll', () => {
      if (this.animating || performance.now() < this.quietUntil) return; // our own scrolling
      // The person scrolls again: an answer on its way is stale. The wheel's own moves (taken over)
      // are not: their event, a frame late on a busy machine, dropped the snap they asked for.
      if (!this.scroller.ownScroll) this.snapRequest += 1;
      this.samples.push({ t: performance.now(), x: this.scroller.top });
      if (this.samples.length > 6) this.samples.shift();
    }, { passive: true });
    this.quietUntil = 0;
    this.snapRequest = 0;
    this.stepping = false; // a step's snap is asked for (since stepSince)
    this.stepSince = 0;
    this.queuedSteps = 0; // presses made meanwhile, each to start where the one before stops
    this.stepSession = 0; // moved by #stopSnapping: a step's answer for a row closed or laid out again queues nothing
    this.element.addEventListener('scrollend', () => this.scheduleSnap());
    new ResizeObserver(() => this.resized()).observe(this.element);
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

  /** Opens at item `id`, centred: 'open', else 'gone' (no such item) or 'failed'; `from`, the viewer's item when it hands over (closed before
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
    this.parameters = null; // nothing of a row shown before is drawn or asked for meanwhile
    this.#clear();
    const laid = await this.#layOut(id, sort, true);
    if (!laid) return this.layoutError?.status === 404 ? 'gone' : 'failed'; // not opened
    this.from = null; // from now on something is centred
    // Its own history entry once there is something to show, so that Back closes it; opened
    // from the viewer, it takes the viewer's (handed over); opened at a reload, it keeps its own.
    const state = { carousel: id };
    if (history.state?.carousel || history.state?.viewer) history.replaceState(state, '', this.fragment(id));
    else history.pushState(state, '', this.fragment(id));
    this.entered = true;
    this.root.dataset.state = 'open';
    this.element.focus({ preventScroll: true });
    this.#shown(laid);
    return 'open';
  }

  #clear() {
    this.bands.clear();
    for (const tile of this.tiles.values()) tile.remove();
    this.tiles.clear();
  }

  /** Stops a snap asked for or on its way, and a glide: they belong to the row as it was. */
  #stopSnapping() {
    clearTimeout(this.snapTimer);
    clearTimeout(this.snapRetry);
    this.snapRequest += 1;
    this.stepSession += 1;
    this.stepping = false;
    this.queuedSteps = 0;
    cancelAnimationFrame(this.animation);
    this.animating = false;
    this.wheelTravel = 0;
  }

  /** Lays the row out for the window as it is, at item `id`, centred: its first page, its
   *  length and place. The row shown stays until the page is here. Null when there is nothing
   *  to show (`opening`: then it closes; else the row stays), or a newer layout began meanwhile. */
  async #layOut(id, sort, opening = false) {
    this.#stopSnapping();
    const request = ++this.layoutRequest;
    this.layingOut = true;
    const parameters = this.layoutParameters(sort);
    let page;
    try {
      page = await api.page({ ...parameters, width: this.element.clientWidth, item: id, height: parameters['item-height'] + 16 });
    } catch (error) {
      if (request !== this.layoutRequest) return null;
      this.layingOut = false;
      this.layoutError = error; // changed() tells a removed item (404) from a server away
      if (opening) this.close(); // the item is gone, or the server: nothing to show
      return null;
    }
    if (request !== this.layoutRequest) return null; // a newer layout began meanwhile
    this.layingOut = false;
    if (!this.isOpen) return null;
    this.#stopSnapping();
    this.parameters = parameters;
    this.root.style.setProperty('--item-height', `${parameters['item-height']}px`);
    this.#clear();
    this.itemCount = page.itemCount;
    this.generation = page.generation;
    this.bands.set('opened', { page }); // what is centred, before the first band arrives
    this.contentWidth = page.contentWidth;
    const item = page.items.find((candidate) => candidate.id === id) ?? null;
    // Scrolling there is ours: it is not a fling to snap after.
    this.quietUntil = performance.now() + 300;
    this.samples = [];
    this.#fit(item ? item.frame.x + item.frame.width / 2 : page.viewport.x + this.element.clientWidth / 2);
    return { item };
  }

  /** Half the view of room at each end of the row, for the window as it is, with `centre` (a
   *  point of the row) at the view's centre. */
  #fit(centre) {
    this.pad = this.element.clientWidth / 2;
    this.scroller.setContentHeight(this.contentWidth + 2 * this.pad, centre);
  }

  /** A layout shown: drawn, its image said, and a resize that came meanwhile caught up with. */
  #shown(laid) {
    this.render();
    if (laid.item) this.announce(laid.item);
    this.resized();
  }

  /** The window resized (a phone turned): the same image centred, the row laid out again
   *  when its images' height changes with the window's. */
  resized() {
    const width = this.element.clientWidth;
    if (!this.isOpen || !width || this.layingOut || this.root.dataset.state === 'opening' || !this.parameters) return;
    if (this.itemHeight() !== this.parameters['item-height']) {
      const centred = this.centredItem();
      if (!centred) return;
      this.layoutError = null;
      this.#layOut(centred.id, this.parameters.sort).then((laid) => {
        if (laid) {
          this.#shown(laid);
        } else if (this.layoutError && this.isOpen) { // the server did not answer: the row stays as it was, so again later
          clearTimeout(this.resizeRetry);
          this.resizeRetry = setTimeout(() => this.resized(), 1000);
        }
      });
    } else if (width / 2 !== this.pad) {
      this.#fit(this.scroller.top); // the row's point at the centre stays there
      this.render();
    }
  }

  /** The catalog changed (the gallery saw it, or a band came from its newer generation): the
   *  row laid out again around the centred image, as a resize does. Bands of two generations
   *  used to be drawn side by side: images overlapping, steps into the new items, the old count. */
  async changed(generation) {
    if (!this.isOpen || this.layingOut || this.root.dataset.state === 'opening' || !this.parameters) return;
    if (generation !== undefined && generation === this.generation) return; // shown already: a glide or steps under way go on
    // The centred image (where a glide under way stops), else (removed) the nearest loaded one still in the catalog.
    const centre = this.animating ? this.destination : this.scroller.top;
    const distance = (item) => Math.abs(item.frame.x + item.frame.width / 2 - centre);
    const loaded = [...this.bands.values()].flatMap((entry) => entry.page?.items ?? []).sort((a, b) => distance(a) - distance(b));
    this.announced = null; // said again, with its new place and count
    // Presses still to be carried out (the step on its way, those queued): made again on the new row.
    const steps = this.queuedSteps + (this.stepping ? this.stepDirection : 0);
    for (const item of loaded.slice(0, 8)) {
      const request = this.layoutRequest + 1;
      this.layoutError = null;
      const laid = await this.#layOut(item.id, this.parameters.sort);
      if (laid) {
        this.#shown(laid);
        for (let n = 0; n < Math.abs(steps); n += 1) this.step(Math.sign(steps));
      }
      if (laid || request !== this.layoutRequest || !this.isOpen) return; // shown, or a newer layout began
      if (this.layoutError?.status !== 404) { // the server, not the item: the same row, asked again later
        clearTimeout(this.changedRetry);
        this.changedRetry = setTimeout(() => this.changed(), 2000);
        return;
      }
    }
    this.generation = null; // none of them left: the row stays, and takes bands of any generation
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
    this.#stopSnapping();
    this.layoutRequest += 1; // a layout still on its way is for the row closed
    this.layingOut = false;
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
    // Half a view beyond each edge.
    const left = this.scroller.top - this.element.clientWidth;
    const right = this.scroller.top + this.element.clientWidth;
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
          if (this.generation !== null && page.generation !== this.generation) { // the catalog changed: its order is not the row's
            this.bands.delete(band);
            this.changed();
            return;
          }
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
    const centre = this.scroller.top;
    const falloff = width / 2;
    const origin = this.scroller.origin - this.pad; // a tile at the row's x sits at x + pad in the scroller
    const wanted = new Set();
    // The nearest on top: rank by distance, ties to the lower index.
    const order = items.map((item) => ({ item, d: Math.abs(item.frame.x + item.frame.width / 2 - centre) }))
      .sort((a, b) => a.d - b.d || a.item.index - b.item.index);
    order.forEach(({ item, d }, rank) => {
      wanted.add(item.id);
      let tile = this.tiles.get(item.id);
      if (!tile) {
        tile = carouselTile(item);
        this.tiles.set(item.id, tile);
        this.plane.append(tile);
      }
      const { scale, alpha } = emphasis(d, falloff);
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
    this.root.dataset.top = this.scroller.top - this.pad; // the layout's offset at the view's left
    const centred = this.centredItem();
    if (centred) this.root.dataset.centred = centred.id;
  }

  /** The loaded item whose centre is nearest the view's. */
  centredItem() {
    const centre = this.scroller.top;
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
    const wheeled = this.wheelTravel;
    this.wheelTravel = 0;
    // A notch or two of a wheel, a scroll event or two: no speed to measure, and the nearest
    // image was the one it started from; it goes the wheel's way, one image, as a key does.
    if (!fromKey && velocity === 0 && wheeled !== 0 && Math.abs(wheeled) < this.element.clientWidth / 2) velocity = Math.sign(wheeled);
    const request = ++this.snapRequest;
    let target;
    try {
      // The API's offsets are the layout's, at the view's left; it answers with the item to centre.
      target = await api.snap({ ...this.parameters, width: this.element.clientWidth, proposed: proposed - this.pad, velocity });
    } catch (error) {
      // The server away (or failing): asked again until it answers (the row stayed half scrolled after it was back).
      if ((error.status === 0 || error.status >= 500) && request === this.snapRequest && this.isOpen) this.snapRetry = setTimeout(() => this.scheduleSnap(), 2000);
      return;
    }
    if (request !== this.snapRequest || !this.isOpen || !target.item) return;
    // Its centre, which the room at both ends lets every image be at (the API's offset is
    // clamped to the row without that room: the first images could not be centred).
    const centre = target.item.frame.x + target.item.frame.width / 2;
    if (Math.abs(centre - this.scroller.top) >= 0.5) this.glide(centre);
  }

  /** Points per millisecond over the last scroll events (0 when they are old). */
  velocity() { return speed(this.samples, performance.now()); }

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
        this.wheelTravel = 0; // a notch turned during the glide moved nothing
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
    // A press while a step's answer is on its way waits for it: it then starts where that
    // step's glide will stop, so that quick presses move as many images (the second press
    // used to start from where the view still was, and move one image with the first).
    // An answer that does not come within STEP_WAIT lets a press ask anew.
    if (this.stepping && performance.now() - this.stepSince < STEP_WAIT) {
      this.queuedSteps += direction;
      return;
    }
    this.stepping = true;
    this.stepDirection = direction;
    this.stepSince = performance.now();
    const session = ++this.stepSession;
    // From where a glide under way will stop, so that two quick presses move two images.
    const from = this.animating ? this.destination : this.scroller.top;
    this.snap(from + direction, direction, true).finally(() => {
      if (session !== this.stepSession) return; // closed, laid out again, or asked anew since
      this.stepping = false;
      if (!this.isOpen) this.queuedSteps = 0;
      if (this.queuedSteps === 0) return;
      const next = Math.sign(this.queuedSteps);
      this.queuedSteps -= next;
      this.step(next);
    });
  }

  async centre(id) {
    const tile = this.tiles.get(id);
    if (!tile) return;
    this.#stopSnapping(); // the image clicked, not where a press or a scroll still on its way would stop
    this.glide(Math.min(Math.max(0, Number(tile.dataset.x) + parseFloat(tile.style.width) / 2), this.scroller.maxTop));
  }
}
