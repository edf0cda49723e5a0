// The catalog's HTTP API as the gallery uses it: pages of a layout and items. Every error
// the server sends has the body {"error": {"message", "parameter"}}; it becomes an APIError.

export class APIError extends Error {
  constructor(status, message, parameter) {
    super(message);
    this.status = status;
    this.parameter = parameter;
  }
}

async function request(path, signal) {
  let response;
  try {
    // no-cache: revalidated with the ETag the server gave (a 304 costs the server nothing).
    response = await fetch(path, { signal, cache: 'no-cache', headers: { Accept: 'application/json' } });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new APIError(0, 'cannot reach the catalog server');
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let parameter = null;
    try {
      const body = await response.json();
      message = body.error?.message ?? body.message ?? message; // /api/health says why in `message`
      parameter = body.error?.parameter ?? null;
    } catch {
      // not the JSON error body: keep the status line
    }
    throw new APIError(response.status, message, parameter);
  }
  return response.json();
}

/** The query string of a layout configuration plus page parameters. */
export function query(parameters) {
  return Object.entries(parameters)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

export const api = {
  /** GET /api/page: a band of the layout, or the page that scrolls to an item. */
  page(parameters, signal) {
    return request(`/api/page?${query(parameters)}`, signal);
  },

  /** GET /api/snap: where a carousel should stop so that one item is centred. */
  snap(parameters, signal) {
    return request(`/api/snap?${query(parameters)}`, signal);
  },

  /** GET /api/changes: the batch from generation `since` to now (or `reload`). */
  changes(parameters, signal) {
    return request(`/api/changes?${query(parameters)}`, signal);
  },

  /** GET /api/sections: every section of a layout (for the pinned header and the scrubber). */
  sections(parameters, signal) {
    return request(`/api/sections?${query(parameters)}`, signal);
  },

  /** GET /api/items/{id}: one item's details (size, date, title, url). */
  item(id, signal) {
    return request(`/api/items/${encodeURIComponent(id)}`, signal);
  },

  /** The item at a position of an order, or null past the end. */
  async itemAt(index, sort, signal) {
    const listing = await request(`/api/items?${query({ offset: index, limit: 1, sort })}`, signal);
    return listing.items[0] ?? null;
  },

  /** GET /api/health: whether the server, and its catalog, answer. */
  health(signal) {
    return request('/api/health', signal);
  },

  thumbnailURL(id, size, version) {
    return `/api/items/${id}/thumbnail?${query({ size, v: version })}`;
  },

  originalURL(id) {
    return `/api/items/${id}/original`;
  },
};

/** Whether an imported item's url is one a browser may load as an image. */
export function isWebAddress(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url);
}

/** The last part of a path or key: what an image without a title is called. */
export function fileName(path) {
  const parts = String(path ?? '').split('/');
  return parts[parts.length - 1] || String(path ?? '');
}
