// The gallery's columns: how many fit the view's width at about Pinterest's column width (or
// the zoom's), and the parameters of /api/page for the configuration on screen.

export const SPACING = 8; // the server's default spacing and inset
const INSET = 8;
const COLUMN_WIDTH = 236; // Pinterest's
const SMALLEST_COLUMN = 96; // zoomed out as far as it goes
const ROW_HEIGHT_SHARE = 0.8; // justified rows' height, of the column width (zoomed as the columns are)

/** The most columns a view `width` wide can have. */
export function mostColumns(width) {
  return Math.max(1, Math.min(1000, Math.floor((width - 2 * INSET + SPACING) / (SMALLEST_COLUMN + SPACING))));
}

/** How much taller an item gets from layout parameters `from` to `to`: the ratio of their
 *  column widths (of their row heights for justified rows); 1 when either is unknown. */
export function itemScale(from, to) {
  const size = (p) => {
    if (!p) return null;
    if (p.style === 'justified') return p['row-height'];
    const cols = p.cols ?? 1;
    return (p.width - 2 * INSET - (cols - 1) * SPACING) / cols;
  };
  const before = size(from), after = size(to);
  return before > 0 && after > 0 ? after / before : 1;
}

export class Columns {
  constructor() {
    this.width = COLUMN_WIDTH;
    this.zoomed = false;
  }

  /** The number of columns for a view `width` wide: about this.width each, two at least unless zoomed in. */
  count(width) {
    const fitting = Math.floor((width - 2 * INSET + SPACING) / (this.width + SPACING));
    return Math.max(1, Math.min(mostColumns(width), Math.max(this.zoomed ? 1 : 2, fitting)));
  }

  /** Zooms to `columns` columns in a view `width` wide (the automatic count when it is that). */
  set(columns, width) {
    this.zoomed = false;
    this.width = COLUMN_WIDTH;
    const wanted = Math.max(1, Math.min(mostColumns(width), columns));
    if (wanted === this.count(width)) return;
    this.zoomed = true;
    this.width = Math.max(SMALLEST_COLUMN, (width - 2 * INSET + SPACING) / (wanted + 0.5) - SPACING);
  }

  /** Zooms justified rows to `height` points in a view `width` wide (rows zoom by their height). */
  setRowHeight(height, width) {
    this.width = Math.max(SMALLEST_COLUMN, Math.min(width, height / ROW_HEIGHT_SHARE));
    this.zoomed = Math.round(this.width * ROW_HEIGHT_SHARE) !== Math.round(COLUMN_WIDTH * ROW_HEIGHT_SHARE);
    if (!this.zoomed) this.width = COLUMN_WIDTH;
  }

  /** Zooms justified rows by `factor` in a view `width` wide; false when they are at their
   *  smallest or largest already. */
  zoomRows(factor, width) {
    const before = this.rowHeight(width);
    this.setRowHeight(before * factor, width);
    return this.rowHeight(width) !== before;
  }

  /** Whether a zoom `step` (−1 in, +1 out) changes `style`'s layout in a view `width` wide:
   *  false at the fewest or most columns, the shortest or tallest rows, and for the list. */
  canZoom(step, style, width) {
    if (style === 'list') return false;
    if (style === 'justified') {
      const trial = Object.assign(new Columns(), this);
      return trial.zoomRows(step < 0 ? 1.25 : 0.8, width);
    }
    const current = this.count(width);
    return Math.max(1, Math.min(mostColumns(width), current + step)) !== current;
  }

  /** The height justified rows have in a view `width` wide: never more than the width makes. */
  rowHeight(width) {
    return Math.round(Math.min(this.width, Math.max(SMALLEST_COLUMN, width)) * ROW_HEIGHT_SHARE);
  }

  /** The parameters of /api/page for `style` in a view `width` wide. */
  parameters({ width, style, sort, sections }) {
    const cols = style === 'list' || style === 'justified' ? undefined : this.count(width);
    return {
      width, cols, style, sort,
      // Justified rows zoom by their height, as columns zoom by their width.
      'row-height': style === 'justified' ? this.rowHeight(width) : undefined,
      sections: sections === 'none' ? undefined : sections,
      // The mixed grid spans one item after every full row, however many columns the window has.
      'span-every': style === 'mixed' ? cols + 1 : undefined,
    };
  }
}
