// The gallery's keys: arrows move the focus from item to item (up and down to the nearest item
// in the same column), page keys scroll a screen and leave the focus at the top, Home and End
// go to the ends, Enter and Space open the viewer on the focused item.

export class Keyboard {
  constructor(gallery) {
    this.gallery = gallery;
  }

  key(event) {
    const gallery = this.gallery;
    if (event.altKey || event.ctrlKey || event.metaKey || gallery.itemCount === null) return;
    const scroller = gallery.scroller;
    const focused = gallery.focusedItem();
    const move = (handler) => {
      event.preventDefault();
      handler();
    };
    const firstVisible = () => {
      const anchor = gallery.topAnchor();
      return anchor.id !== undefined ? gallery.tiles.tile(anchor.id)?.item : null;
    };
    switch (event.key) {
      case 'ArrowRight':
      case 'ArrowLeft': {
        const start = focused ?? firstVisible();
        if (!start) return;
        const step = event.key === 'ArrowRight' ? 1 : -1;
        move(() => gallery.focusIndex(focused ? start.index + step : start.index));
        break;
      }
      case 'ArrowDown':
      case 'ArrowUp': {
        const start = focused ?? firstVisible();
        if (!start) return;
        const direction = event.key === 'ArrowDown' ? 1 : -1;
        move(() => {
          if (!focused) return gallery.focusIndex(start.index);
          const next = this.neighbour(start, direction);
          return gallery.focusIndex(next ? next.index : start.index + direction * (gallery.parameters.cols ?? 1));
        });
        break;
      }
      case 'PageDown':
      case 'PageUp':
        move(() => {
          scroller.scrollBy((event.key === 'PageDown' ? 1 : -1) * scroller.viewportHeight * 0.9);
          // The focus follows to the item at the top, where the page key put the view (without
          // scrolling: an item taller than the view would scroll it back), once its band is here.
          gallery.focusAtTheTop = focused !== null;
          gallery.render();
        });
        break;
      case 'Home':
        move(() => {
          scroller.scrollTo(0);
          gallery.focusIndex(0);
        });
        break;
      case 'End':
        move(() => {
          scroller.scrollTo(scroller.maxTop);
          gallery.focusIndex(gallery.itemCount - 1);
        });
        break;
      case 'Enter':
      case ' ':
        if (focused && document.activeElement === gallery.tiles.tile(focused.id)?.element) move(() => gallery.viewer.open(focused));
        break;
      default:
    }
  }

  /** The nearest loaded item above or below `item`, overlapping its middle horizontally. */
  neighbour(item, direction) {
    const middle = item.frame.x + item.frame.width / 2;
    let best = null;
    for (const candidate of this.gallery.bands.loaded()) {
      const f = candidate.frame;
      if (middle < f.x || middle > f.x + f.width || candidate.index === item.index) continue;
      const gap = direction > 0 ? f.y - (item.frame.y + item.frame.height) : item.frame.y - (f.y + f.height);
      if (gap < -0.5) continue;
      if (!best || gap < best.gap) best = { item: candidate, gap };
    }
    return best?.item ?? null;
  }

  /** Where a page key leaves the focus: the highest item in view (then the leftmost) that shows
   *  at least half of what the view can show of it. An image taller than the view, cut by the
   *  top edge, keeps it while it fills most of the view; a sliver at the bottom does not take it. */
  itemAtTheTop() {
    const { scroller, tiles } = this.gallery;
    const top = scroller.top;
    const height = scroller.viewportHeight;
    let best = null;
    for (const { item } of tiles.live.values()) {
      const f = item.frame;
      const shown = Math.min(top + height, f.y + f.height) - Math.max(top, f.y);
      if (shown < Math.min(f.height, height) / 2) continue;
      const y = Math.max(top, f.y);
      if (!best || y < best.y || (y === best.y && f.x < best.item.frame.x)) best = { item, y };
    }
    return best?.item ?? null;
  }
}
