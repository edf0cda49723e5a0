// Sections in the gallery: their headers and footers among the tiles, the header of the
// section at the top held there while it scrolls (pinned, pushed up by the section's end, as
// UICollectionViewFlowLayout pins them), and a scrubber along the scrollbar with the years,
// months or folders, which jumps to one.

const LABEL_GAP = 22; // pixels between two scrubber labels at least

/** A section's title for people: "March 2024" for a month key "2024-03", else as it is. */
export function sectionName(title, grouping) {
  if (grouping === 'month' && /^\d{4}-\d{2}$/.test(title)) {
    const [year, month] = title.split('-').map(Number);
    const date = new Date(Date.UTC(2000, month - 1, 1));
    date.setUTCFullYear(year); // Date.UTC takes years 0 to 99 as 1900 to 1999
    return date.toLocaleDateString(undefined, { year: 'numeric', month: 'long', timeZone: 'UTC' });
  }
  return title || '(no folder)';
}

export class SectionLabels {
  /**
   * @param plane the tiles' plane (headers and footers are placed in it like tiles)
   * @param pinned the element that shows the pinned header above the scroller
   * @param scrubber the element along the scrollbar
   * @param jump (y) => scrolls the view to content offset y
   */
  constructor({ plane, pinned, scrubber, jump }) {
    this.plane = plane;
    this.pinned = pinned;
    this.scrubber = scrubber;
    this.jump = jump;
    this.live = new Map(); // "h3" / "f3" -> element
    this.list = null;
    this.grouping = null;
    this.pinnedSection = -1;
    scrubber.addEventListener('click', (event) => {
      const label = event.target.closest('[data-section]');
      if (label && this.list) this.jump(this.list.sections[Number(label.dataset.section)].headerY);
    });
  }

  /** The layout's sections (null: none): the pinned header and the scrubber follow them. */
  setList(list, contentHeight, viewportHeight) {
    this.list = list && list.sections.length > 0 ? list : null;
    this.grouping = list?.grouping ?? null;
    this.clear();
    this.drawScrubber(contentHeight, viewportHeight);
  }

  clear() {
    for (const element of this.live.values()) element.remove();
    this.live.clear();
    this.pinned.hidden = true;
    this.pinnedSection = -1;
  }

  /** Places the headers and footers among `placements`, and the pinned header for `top`. */
  render(placements, { origin, top }) {
    const wanted = new Set();
    for (const placement of placements) {
      const key = `${placement.kind[0]}${placement.section}`;
      wanted.add(key);
      let element = this.live.get(key);
      if (!element) {
        element = document.createElement('div');
        element.className = `section-${placement.kind}`;
        element.dataset.section = placement.section;
        element.dataset.kind = placement.kind;
        if (placement.kind === 'header') {
          element.setAttribute('role', 'heading');
          element.setAttribute('aria-level', '2');
        }
        this.live.set(key, element);
        this.plane.append(element);
      }
      const name = sectionName(placement.title, this.grouping);
      element.textContent = '';
      const title = document.createElement('span');
      title.className = 'section-title';
      title.textContent = name;
      const count = document.createElement('span');
      count.className = 'section-count';
      count.textContent = `${placement.count.toLocaleString()} image${placement.count === 1 ? '' : 's'}`;
      element.append(title, count);
      const frame = placement.frame;
      element.style.transform = `translate(${frame.x}px, ${frame.y - origin}px)`;
      element.style.width = `${frame.width}px`;
      element.style.height = `${frame.height}px`;
      element.dataset.y = frame.y;
    }
    for (const [key, element] of this.live) {
      if (!wanted.has(key)) {
        element.remove();
        this.live.delete(key);
      }
    }
    this.pin(top);
  }

  /** Shows the header of the section the view starts in at the top, pushed up by its end. */
  pin(top) {
    const sections = this.list?.sections;
    if (!sections || sections[0].headerHeight <= 0) {
      this.pinned.hidden = true;
      return;
    }
    let low = 0;
    let high = sections.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sections[middle].headerY <= top) low = middle + 1; else high = middle;
    }
    const section = sections[low - 1];
    if (!section || top <= section.headerY || top >= section.itemBottom) {
      this.pinned.hidden = true;
      this.pinnedSection = -1;
      for (const element of this.live.values()) element.style.visibility = '';
      return;
    }
    const y = Math.min(Math.max(section.headerY, top), section.itemBottom - section.headerHeight);
    if (this.pinnedSection !== section.index) {
      this.pinnedSection = section.index;
      this.pinned.dataset.section = section.index;
      this.pinned.querySelector('.section-title').textContent = sectionName(section.title, this.grouping);
      this.pinned.querySelector('.section-count').textContent = `${section.itemCount.toLocaleString()} image${section.itemCount === 1 ? '' : 's'}`;
    }
    this.pinned.style.height = `${section.headerHeight}px`;
    this.pinned.style.transform = `translateY(${y - top}px)`;
    this.pinned.hidden = false;
    for (const [key, element] of this.live) element.style.visibility = key === `h${section.index}` ? 'hidden' : '';
  }

  /** Labels along the scrollbar near their sections' places, thinned so they do not overlap:
   *  for months, a year's first month first; the larger sections (years, then months) before
   *  the smaller, and a label may sit up to a label's height below or above its place, so that
   *  a large year next to small ones keeps its label (it lost it to the one above). */
  drawScrubber(contentHeight, viewportHeight) {
    this.scrubber.textContent = '';
    this.scrubber.hidden = !this.list;
    if (!this.list || !(contentHeight > 0)) return;
    const height = this.scrubber.clientHeight || viewportHeight;
    const sections = this.list.sections;
    // Each label's middle at its place, kept half a label from the ends (so none is cut).
    const place = (section) => Math.min(height - LABEL_GAP / 2, Math.max(LABEL_GAP / 2, (section.headerY / contentHeight) * height));
    const year = (section) => section.title.slice(0, 4);
    const starts = sections.filter((section, index) => this.grouping !== 'month' || index === 0
      || year(section) !== year(sections[index - 1]));
    // Months under their years only when each year's months run together (the date order):
    // in path order a year starts again and again, and every start weighed its whole year's,
    // so the biggest year's took every label. Then each month is labelled with its year.
    const byYear = this.grouping === 'month' && new Set(starts.map(year)).size === starts.length;
    const yearStarts = byYear || this.grouping !== 'month' ? starts : [];
    // How many images a label stands for: a year's start, its whole year's (with months).
    const weight = new Map(sections.map((section) => [section, section.itemCount]));
    if (byYear) {
      const years = new Map();
      for (const section of sections) years.set(year(section), (years.get(year(section)) ?? 0) + section.itemCount);
      for (const section of yearStarts) weight.set(section, years.get(year(section)));
    }
    const heaviest = (list) => [...list].sort((a, b) => weight.get(b) - weight.get(a) || a.headerY - b.headerY);
    let chosen = []; // in their sections' order, each with where its label goes
    // The labels packed in order, each at its place or pushed down by the one above, then up
    // from the end; null when one would be more than a label's height from its place.
    const pack = (labels) => {
      const at = labels.map((section) => place(section));
      for (let i = 1; i < at.length; i += 1) at[i] = Math.max(at[i], at[i - 1] + LABEL_GAP);
      if (at.length) at[at.length - 1] = Math.min(at[at.length - 1], height - LABEL_GAP / 2);
      for (let i = at.length - 2; i >= 0; i -= 1) at[i] = Math.min(at[i], at[i + 1] - LABEL_GAP);
      const fits = at.every((y, i) => y >= LABEL_GAP / 2 - 0.5 && Math.abs(y - place(labels[i])) <= LABEL_GAP);
      return fits ? labels.map((section, i) => ({ section, y: at[i] })) : null;
    };
    // A month is labelled only under its year's label: one whose year's label found no room
    // would read as a month of the year above it.
    const labelledYears = new Set();
    const most = Math.floor(height / LABEL_GAP); // labels the scrubber holds at most
    for (const candidates of [yearStarts, sections]) {
      for (const section of heaviest(candidates)) {
        if (chosen.length >= most) break;
        if (chosen.some((label) => label.section === section)) continue;
        if (candidates === sections && byYear && !labelledYears.has(year(section))) continue;
        const tried = pack([...chosen.map((label) => label.section), section].sort((a, b) => a.headerY - b.headerY));
        if (!tried) continue;
        chosen = tried;
        if (candidates === yearStarts) labelledYears.add(year(section));
      }
    }
    for (const { section, y } of chosen) {
      const label = document.createElement('button');
      label.type = 'button';
      label.dataset.section = section.index;
      const yearly = byYear && yearStarts.includes(section);
      const month = () => sectionName(section.title, 'month').split(' ')[0].slice(0, 3);
      // A folder by its last name; no folder (imported items) as the headers say it.
      label.textContent = yearly ? year(section) : byYear ? month()
        : this.grouping === 'month' ? `${month()} ${year(section)}` : section.title.split('/').pop() || sectionName(section.title, this.grouping);
      label.title = sectionName(section.title, this.grouping);
      label.className = yearly ? 'year' : '';
      label.style.top = `${y}px`;
      this.scrubber.append(label);
    }
  }
}
