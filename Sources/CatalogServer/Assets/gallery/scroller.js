// Scrolling content taller than a browser lets an element be.
//
// Chromium caps an element's height near 33.5 million pixels (Firefox near 17.9 million); a
// waterfall of ten million images is hundreds of millions of points tall. The scroller's sizer
// is therefore at most MAX_SCROLL_HEIGHT tall, and the content offset at the viewport's top
// (`top`) is kept apart from the native scroll position (`physical`):
//
//   content  0 ─────────────────────────────── top ───────────────────── maxTop
//   sizer    0 ──────── physical ───────── maxPhysical        ratio = maxTop / maxPhysical
//
// - When the content fits, ratio is 1 and top = physical: native scrolling, untouched.
// - A jump (dragging the scrollbar, clicking its track, Home/End) sets top = physical × ratio:
//   the scrollbar's position stays proportional to the place in the catalog.
// - Small moves (the wheel, a touch pan, arrow keys) move the content by the same number of
//   pixels as the finger or the wheel asked for, not ratio times more. The wheel is taken over
//   (the scrollbar then moves by delta / ratio); a touch pan is left to the browser, so its
//   momentum stays native, and the scrollbar is brought back in proportion once it ends.
//
// Tiles live in a plane inside the sizer. A tile at content y sits at y − origin in the plane,
// and the plane at origin + (physical − top): on screen that is y − top. During a native move
// physical and top change by the same amount, so the plane needs no update and the browser
// scrolls the tiles on its own, as smoothly as any page. `origin` is a multiple of a million
// near top, so no CSS length grows past a few million pixels.
//
// The same scroller runs sideways for the carousel (axis 'x'): `top` is then the content's
// offset at the viewport's left, and a vertical wheel scrolls it too.

export const MAX_SCROLL_HEIGHT = 15_000_000;
const ORIGIN_STEP = 1_000_000;

export class VirtualScroller {
  constructor(element, sizer, plane, onChange, axis = 'y') {
    this.axis = axis;
    this.element = element;
    this.sizer = sizer;
    this.plane = plane;
    this.onChange = onChange;
    this.contentHeight = 0;
    this.top = 0;
    this.physical = 0;
    this.origin = 0;
    this.expected = null;
    this.ownScroll = false; // inside a scroll listener after this one: whether the event is from scrollTo, not the person
    this.settleTimer = 0;
    // A finger on the view, or its pan's momentum: its moves are never jumps to an end.
    this.touching = false;
    this.fingerDown = false;
    this.touchScrolled = false;
    element.addEventListener('touchstart', () => {
      this.touching = this.fingerDown = true;
      this.touchScrolled = false;
      this.#makeRoom();
    }, { passive: true });
    const lift = () => {
      this.fingerDown = false;
      if (!this.touchScrolled) this.touching = false; // a tap: no momentum to wait for
    };
    element.addEventListener('touchend', lift, { passive: true });
    element.addEventListener('touchcancel', lift, { passive: true });
    element.addEventListener('scroll', () => this.#nativeScroll(), { passive: true });
    element.addEventListener('wheel', (event) => this.#wheel(event), { passive: false });
    element.addEventListener('scrollend', () => this.#settle());
  }

  get viewportHeight() { return this.element.clientHeight; }
  get viewportWidth() { return this.element.clientWidth; }
  /** The viewport's extent along the scroll axis. */
  get viewportLength() { return this.axis === 'x' ? this.element.clientWidth : this.element.clientHeight; }
  get position() { return this.axis === 'x' ? this.element.scrollLeft : this.element.scrollTop; }
  set position(value) {
    if (this.axis === 'x') this.element.scrollLeft = value;
    else this.element.scrollTop = value;
  }
  get maxTop() { return Math.max(0, this.contentHeight - this.viewportLength); }
  get physicalHeight() { return Math.min(this.contentHeight, MAX_SCROLL_HEIGHT); }
  get maxPhysical() { return Math.max(0, this.physicalHeight - this.viewportLength); }
  get scaled() { return this.contentHeight > MAX_SCROLL_HEIGHT; }
  /** Content points per pixel of native scroll. */
  get ratio() { return this.maxPhysical > 0 ? this.maxTop / this.maxPhysical : 1; }

  /** A new content height (a new layout or a changed catalog); `top` is kept, clamped. */
  setContentHeight(height, top = this.top) {
    this.contentHeight = Math.max(0, height);
    this.sizer.style[this.axis === 'x' ? 'width' : 'height'] = `${this.physicalHeight}px`;
    this.scrollTo(top);
  }

  /** Puts content offset `top` (clamped) at the viewport's top. */
  scrollTo(top) {
    this.top = Math.min(Math.max(0, top), this.maxTop);
    const physical = this.scaled ? Math.round(this.top / this.ratio) : this.top;
    if (Math.abs(this.position - physical) >= 0.5) {
      this.expected = physical;
      this.position = physical;
    }
    this.physical = this.position;
    if (!this.scaled) this.top = Math.min(Math.max(0, this.physical), this.maxTop);
    this.#place();
  }

  scrollBy(delta) {
    this.scrollTo(this.top + delta);
  }

  #nativeScroll() {
    const actual = this.position;
    this.ownScroll = this.expected !== null && Math.abs(actual - this.expected) < 1; // for the listeners after this one
    if (this.ownScroll) {
      this.expected = null;
      this.physical = actual;
      return; // our own scrollTo (a wheel taken over, a glide): already placed
    }
    this.expected = null;
    const delta = actual - this.physical;
    this.physical = actual;
    if (this.touching) this.touchScrolled = true;
    // The scrollbar at an end is the content's end, for a drag of the scrollbar; not for a touch
    // pan, which reaches the scrollbar's end long before the content's (the scrollbar is put back
    // in proportion after each pan: a pan 3,000 points from the top jumped to the top).
    const small = Math.abs(delta) <= 2 * this.viewportLength;
    if (!this.scaled) {
      this.top = actual;
    } else if (actual <= 0 && !(this.touching && small)) {
      this.top = 0;
    } else if (actual >= this.maxPhysical - 0.5 && !(this.touching && small)) {
      this.top = this.maxTop;
    } else if (small) {
      this.top = Math.min(Math.max(0, this.top + delta), this.maxTop);
      clearTimeout(this.settleTimer);
      this.settleTimer = setTimeout(() => this.#settle(), 250); // where scrollend is missing
    } else {
      this.top = actual * this.ratio;
    }
    this.#place();
  }

  #wheel(event) {
    if (event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    // Sideways, any wheel scrolls (a vertical one too); down the page, only past the height cap.
    const sideways = this.axis === 'x';
    if (!sideways && !this.scaled) return;
    event.preventDefault();
    const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? this.viewportLength : 1;
    const delta = sideways && Math.abs(event.deltaX) > Math.abs(event.deltaY) ? event.deltaX : event.deltaY;
    this.scrollBy(delta * unit);
    this.onWheel?.(delta * unit);
  }

  /** As a finger goes down on a scaled scrollbar: the native position moved, the content not,
   *  so that a pan has two screens of native room towards either end (or all that is left of
   *  the content there). In proportion, a pan 3,000 points from the top had 550 pixels of room:
   *  each pan stopped short, and the top was never reached. */
  #makeRoom() {
    if (!this.scaled) return;
    const room = 2 * this.viewportLength;
    const least = Math.min(room, this.top);
    const most = this.maxPhysical - Math.min(room, this.maxTop - this.top);
    const physical = Math.round(Math.min(Math.max(this.position, least), Math.max(least, most)));
    if (Math.abs(physical - this.position) < 1) return;
    this.expected = physical;
    this.position = physical;
    this.physical = this.position;
    this.#place();
  }

  /** After a native move, puts the scrollbar back in proportion (nothing moves on screen). */
  #settle() {
    clearTimeout(this.settleTimer);
    if (this.fingerDown) return; // a finger on the view keeps the room it was given (#makeRoom)
    this.touching = false;
    if (!this.scaled) return;
    const physical = Math.round(this.top / this.ratio);
    if (Math.abs(physical - this.position) >= 1) this.scrollTo(this.top);
  }

  #place() {
    const origin = this.scaled ? Math.floor(this.top / ORIGIN_STEP) * ORIGIN_STEP : 0;
    const originMoved = origin !== this.origin;
    this.origin = origin;
    this.plane.style.transform = `translate${this.axis === 'x' ? 'X' : 'Y'}(${origin + this.physical - this.top}px)`;
    this.onChange(originMoved);
  }
}
