// Images from a web origin the page's Content-Security-Policy does not list. The policy is the
// page's, fixed when it loaded: items imported since with their images at a new origin would
// stay blocked (shown by their titles) until a reload. A blocked image makes one look at the
// policy the page has now (HEAD /); when it lists the origin, the page reloads at this place,
// once per origin in this tab (a policy the browser still reads otherwise makes no loop).

const RELOADED = 'catalog.policyReloads'; // sessionStorage: the origins reloaded for

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
    const reloaded = readReloaded();
    if (reloaded.includes(origin)) return;
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
      sessionStorage.setItem(RELOADED, JSON.stringify([...reloaded, origin]));
    } catch {
      return; // nowhere to remember it: no reload that could repeat
    }
    this.reload();
  }
}

function readReloaded() {
  try {
    const list = JSON.parse(sessionStorage.getItem(RELOADED) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Whether the policy's img-src lets `origin` (scheme://host[:port]) in. */
export function allows(policy, origin) {
  const directive = policy.split(';').map((part) => part.trim().split(/\s+/)).find((words) => words[0].toLowerCase() === 'img-src');
  if (!directive) return false;
  const scheme = new URL(origin).protocol;
  return directive.slice(1).some((source) => source.toLowerCase() === scheme || source.toLowerCase() === origin.toLowerCase());
}
