// The status line under the toolbar: one message at a time. An error outranks the hint that
// the catalog is empty, which outranks "Loading…"; a lower one waits until the higher is cleared.

const RANK = { error: 3, empty: 2, loading: 1 };

export class StatusLine {
  constructor(element) {
    this.element = element;
  }

  /** The kind of message shown ('error', 'empty', 'loading'), or '' when none is. */
  get kind() {
    return this.element.textContent ? this.element.dataset.kind : '';
  }

  show(text, kind) {
    const current = this.kind;
    if (current && current !== kind && (RANK[current] ?? 0) > (RANK[kind] ?? 0)) return;
    if (this.element.textContent !== text) this.element.textContent = text; // unchanged text is not read out again
    this.element.dataset.kind = kind;
  }

  /** Clears the line if it shows `kind`. */
  clear(kind) {
    if (this.kind === kind) this.element.textContent = '';
  }
}
