// Signing in, when the server has access control on: GET /api/session says whether this
// browser has a session; if not, the sign-in form asks for a token once and POSTs it to
// /api/session, which answers with the session cookie (HttpOnly: this script never sees it).
// The token goes in the request's body, never in a URL.

/** `{ accessControl, signedIn }`: whether the gallery may start. */
export async function currentSession() {
  const response = await fetch('/api/session', { cache: 'no-store', headers: { Accept: 'application/json' } });
  if (response.status === 401) return { accessControl: true, signedIn: false };
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return response.json();
}

/** Shows the sign-in form; a good token reloads the page, signed in. */
export function showSignIn() {
  const form = document.getElementById('sign-in');
  const field = form.elements.token;
  const message = document.getElementById('sign-in-message');
  document.body.classList.add('signing-in');
  document.getElementById('sign-in-page').hidden = false;
  // The gallery's own main landmark is hidden too, not only undrawn: one main at a time.
  for (const element of document.querySelectorAll('body > header, body > .stage')) element.hidden = true;
  form.hidden = false;
  field.focus();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    message.textContent = '';
    field.removeAttribute('aria-invalid');
    try {
      const response = await fetch('/api/session', {
        method: 'POST',
        cache: 'no-store',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ token: field.value.trim() }),
      });
      if (response.ok) {
        location.reload();
        return;
      }
      const body = await response.json().catch(() => null);
      message.textContent = response.status === 401 ? 'That token is not valid.' : (body?.error?.message ?? `${response.status} ${response.statusText}`);
      if (response.status === 401) field.setAttribute('aria-invalid', 'true');
      field.select();
    } catch {
      message.textContent = 'Cannot reach the catalog server.';
    } finally {
      button.disabled = false;
    }
  });
}

/** Shows the toolbar's sign-out button: it ends the session and goes back to the form. */
export function showSignOut() {
  const button = document.getElementById('sign-out');
  button.hidden = false;
  button.addEventListener('click', async () => {
    await fetch('/api/session', { method: 'DELETE', cache: 'no-store' }).catch(() => null);
    location.reload();
  });
}
