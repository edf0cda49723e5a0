// Deep links: the address's fragment holds the item at the top of the view and the
// configuration, `#item=123&cols=3&style=waterfall` (`row-height=189` for justified rows, plus `sort=path` when not by date,
// `sections=month` when sections are on, `view=ID` while the viewer is open and `carousel=ID`
// while the carousel is, at its centred image). Reloading or sharing the address shows the same place;
// `/#item=ID` alone scrolls to that item.

export function readFragment(hash = location.hash) {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const whole = (name) => {
    const text = fields.get(name);
    return text !== null && /^\d+$/.test(text) ? Number(text) : null;
  };
  return {
    item: whole('item'),
    cols: whole('cols'),
    rowHeight: whole('row-height'),
    style: fields.get('style'),
    sort: fields.get('sort'),
    sections: fields.get('sections'),
    view: whole('view'),
    carousel: whole('carousel'),
  };
}

export function fragment({ item, cols, rowHeight, style, sort, sections, view, carousel }) {
  const fields = [];
  if (item !== null && item !== undefined) fields.push(`item=${item}`);
  if (cols) fields.push(`cols=${cols}`);
  if (rowHeight) fields.push(`row-height=${rowHeight}`);
  if (style) fields.push(`style=${encodeURIComponent(style)}`);
  if (sort && sort !== 'date') fields.push(`sort=${encodeURIComponent(sort)}`);
  if (sections && sections !== 'none') fields.push(`sections=${encodeURIComponent(sections)}`);
  if (view !== null && view !== undefined) fields.push(`view=${view}`);
  if (carousel !== null && carousel !== undefined) fields.push(`carousel=${carousel}`);
  return `#${fields.join('&')}`;
}
