// The toolbar: the style, order and sections switchers, the column count, the image count, and
// the buttons that open the carousel (from the gallery, and from the viewer).

export class Toolbar {
  constructor(gallery, styles) {
    this.gallery = gallery;
    this.count = document.getElementById('count');
    this.columns = document.getElementById('columns');
    this.zoomButtons = { [-1]: document.getElementById('zoom-in'), [1]: document.getElementById('zoom-out') };
    this.selects = { style: document.getElementById('style'), sort: document.getElementById('sort'), sections: document.getElementById('sections') };
    // The carousel is its own view, sideways, not a style of the gallery: a button opens it (an
    // option of the switcher would open it as the arrow keys pass over it).
    for (const style of styles) {
      if (style !== 'carousel') this.selects.style.add(new Option(style[0].toUpperCase() + style.slice(1), style));
    }
    for (const [name, select] of Object.entries(this.selects)) {
      select.addEventListener('change', () => {
        gallery[name] = select.value;
        gallery.relayout(gallery.topAnchor());
      });
    }
    const carouselButton = document.getElementById('open-carousel');
    carouselButton.hidden = !styles.includes('carousel');
    carouselButton.addEventListener('click', () => {
      // At the focused image, else the image at the top of the gallery.
      const id = gallery.focusedItem()?.id ?? gallery.topAnchor().id;
      if (id !== undefined) gallery.carousel.open(id, gallery.sort);
    });
    document.getElementById('viewer-carousel').addEventListener('click', () => {
      const item = gallery.viewer.item;
      if (!item) return;
      gallery.viewer.handOver(); // the carousel takes its history entry
      gallery.carousel.open(item.id, gallery.sort, item);
    });
  }

  /** Shows the gallery's configuration and its number of images. */
  show() {
    const { parameters, itemCount } = this.gallery;
    const columns = parameters?.cols ?? 1;
    const rowHeight = parameters?.['row-height'];
    // Justified rows zoom by their height: the control says that rather than a column count.
    this.columns.value = rowHeight ? `${Math.round(rowHeight)} px rows` : `${columns} col${columns === 1 ? '' : 's'}`;
    this.columns.setAttribute('aria-label', rowHeight ? 'Row height' : 'Columns');
    this.zoomButtons[-1].setAttribute('aria-label', `Zoom in (${rowHeight ? 'taller rows' : 'fewer columns'})`);
    this.zoomButtons[1].setAttribute('aria-label', `Zoom out (${rowHeight ? 'shorter rows' : 'more columns'})`);
    // A button that would change nothing says so (it stays focusable, as the viewer's ‹ › do).
    const width = this.gallery.element.clientWidth;
    for (const [step, button] of Object.entries(this.zoomButtons)) {
      button.setAttribute('aria-disabled', String(!this.gallery.columns.canZoom(Number(step), this.gallery.style, width)));
    }
    for (const [name, select] of Object.entries(this.selects)) select.value = this.gallery[name];
    if (itemCount !== null) this.count.textContent = `${itemCount.toLocaleString()} image${itemCount === 1 ? '' : 's'}`;
  }
}
