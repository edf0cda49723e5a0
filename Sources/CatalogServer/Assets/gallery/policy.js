// Images from a web origin the page's Content-Security-Policy does not list. The policy is the
// page's, fixed when it loaded: items imported since with their images at a new origin would
// stay blocked (shown by their titles) until a reload. A blocked image makes one look at the
// policy the page has now (HEAD /); when it lets the origin in, the page reloads at this place,
// once per origin in this tab (a policy the browser still reads otherwise makes no loop), and
// at most once a minute (an import that keeps adding origins does not reload it over and over:
// the next reload waits out the minute).

const RELOADED = 'catalog.policyReloads'; // sessionStorage: the origins reloaded for
const RELOADED_AT = 'catalog.policyReloadedAt'; // sessionStorage: when the last such reload was
const EVERY = 60000; // ms between two reloads for the policy at least

export class ImagePolicy {
  /** @param reload () => void: reloads the page at this place */
  constructor(reload) {
    this.reload = reload;
    this.looked = new Set(); // origins looked at, or being looked at, in this page's life
    document.addEventListener('securitypolicyviolation', (event) => {
      if (!event.effectiveDirective.startsWith('img-src')) return;
      let origin;
      try {
        origin = new URL(event.blockedURI).origin;
      } catch {
        return;
      }
      if (!origin.startsWith('http') || this.looked.has(origin)) return;
      this.looked.add(origin);
      this.look(origin);
    });
  }

  async look(origin) {
    if (readList().includes(origin)) return;
    let policy;
    try {
      const response = await fetch('/', { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
      policy = response.ok ? response.headers.get('Content-Security-Policy') : null;
    } catch {
      this.looked.delete(origin); // no answer: the next blocked image looks again
      return;
    }
    if (!policy || !allows(policy, origin)) return;
    try {
      const wait = Math.min(EVERY, Number(sessionStorage.getItem(RELOADED_AT) ?? 0) + EVERY - Date.now()); // a clock set back
      if (wait > 0) {
        setTimeout(() => this.look(origin), wait);
        return;
      }
      const list = readList(); // again: another origin's look may have written it meanwhile
      if (list.includes(origin)) return;
      sessionStorage.setItem(RELOADED, JSON.stringify([...list, origin]));
      sessionStorage.setItem(RELOADED_AT, String(Date.now()));
    } catch {
      return; // nowhere to remember it: no reload that could repeat
    }
    this.reload();
  }
}

function readList() {
  try {
    const list = JSON.parse(sessionStorage.getItem(RELOADED) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Whether the policy's img-src lets `origin` (as `URL.origin` gives it) in: a scheme source
 *  (`https:`; `http:` lets https in too), or a host source of the same host and port (the
 *  scheme's own port when none is written), where `http://host` with no port lets `https://host`
 *  in too, as CSP Level 3 matches them. A bracketed (IPv6) host source is one browsers ignore. */
export function allows(policy, origin) {
  const directive = policy.split(';').map((part) => part.trim().split(/\s+/)).find((words) => words[0].toLowerCase() === 'img-src');
  if (!directive) return false;
  const wanted = new URL(origin);
  const wantedPort = wanted.port || (wanted.protocol === 'https:' ? '443' : '80');
  return directive.slice(1).some((source) => {
    const lower = source.toLowerCase();
    if (lower === wanted.protocol || (lower === 'http:' && wanted.protocol === 'https:')) return true;
    // The port as written: `new URL` drops a scheme's own, and an explicit :80 does not upgrade.
    const parts = lower.match(/^(https?):\/\/([^/:[\]]+)(?::(\d+))?\/?$/);
    if (!parts || parts[2] !== wanted.hostname) return false;
    const [scheme, port] = [parts[1] + ':', parts[3]];
    if (scheme === wanted.protocol) return (port ?? (scheme === 'https:' ? '443' : '80')) === wantedPort;
    return scheme === 'http:' && wanted.protocol === 'https:' && port === undefined && wantedPort === '443';
  });
}
