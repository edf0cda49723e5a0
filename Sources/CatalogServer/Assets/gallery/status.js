// The status line under the toolbar: one message at a time. An error outranks the hint that
// the catalog is empty, which outranks notices (a link to an image that is not there, said for
// a few seconds), which outrank "Loading…" (a band slow to come put it over the notice at once);
// a lower one waits until the higher is cleared.

const RANK = { error: 4, empty: 3, notice: 2, loading: 1 };
const NOTICE_SHOWN = 8000; // ms a notice stays

export class StatusLine {
  constructor(element) {
    this.element = element;
    this.waiting = new Map(); // kind -> text of the lower messages kept out, shown once the higher is cleared
  }

  /** The kind of message shown ('error', 'empty', 'loading'), or '' when none is. */
  get kind() {
    return this.element.textContent ? this.element.dataset.kind : '';
  }

  show(text, kind) {
    const current = this.kind;
    if (current && current !== kind && (RANK[current] ?? 0) > (RANK[kind] ?? 0)) {
      this.waiting.set(kind, text);
      return;
    }
    this.waiting.delete(kind);
    if (this.element.textContent !== text) this.element.textContent = text; // unchanged text is not read out again
    this.element.dataset.kind = kind;
  }

  /** Shows `text` as a notice for a few seconds. */
  notice(text) {
    this.show(text, 'notice');
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => this.clear('notice'), NOTICE_SHOWN);
  }

  /** Clears `kind`: the line if it shows it (then the highest message kept out meanwhile). */
  clear(kind) {
    this.waiting.delete(kind);
    if (this.kind !== kind) return;
    this.element.textContent = '';
    const [next] = [...this.waiting].sort(([a], [b]) => (RANK[b] ?? 0) - (RANK[a] ?? 0));
    if (next) {
      this.waiting.delete(next[0]);
      this.show(next[1], next[0]);
    }
  }
}
