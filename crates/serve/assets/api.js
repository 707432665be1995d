// The page's only door to the server: JSON over fetch, as crates/serve/API.md describes it.
// Every answer that is not 2xx carries `{"error": ...}`; `api` turns it into an ApiError and
// shows it in the page's error banner (and on `body[data-error]`, which the browser test reads).

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// Sends `body` (when given) as JSON and answers the decoded JSON, or null for 204.
// Throws ApiError (already shown) for an error answer or a network failure.
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw showError(new ApiError(`cannot reach the server (${method} ${path}): ${e.message}`, 0));
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const why = data && typeof data.error === 'string' ? data.error : text || response.statusText;
    throw showError(new ApiError(`${why} (${method} ${path}: ${response.status})`, response.status));
  }
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body = {}) => api('POST', path, body);
export const del = (path) => api('DELETE', path);

// Shows a message in the banner and on body[data-error]; answers the error for `throw`.
export function showError(error) {
  const message = error instanceof Error ? error.message : String(error);
  document.body.dataset.error = message;
  const banner = document.getElementById('error');
  if (banner) {
    banner.querySelector('.text').textContent = message;
    banner.hidden = false;
  }
  return error;
}

export function clearError() {
  document.body.dataset.error = '';
  const banner = document.getElementById('error');
  if (banner) banner.hidden = true;
}

// Wires the banner's close button; call once the page has loaded.
export function initErrorBanner() {
  document.body.dataset.error = '';
  const banner = document.getElementById('error');
  banner?.querySelector('button')?.addEventListener('click', clearError);
}

// An EventSource whose named events arrive as decoded JSON. The server's `error` event (a
// failed search) has data; the browser's own `error` (connection lost, retried by itself)
// has none and is ignored here.
export function events(path, handlers) {
  const source = new EventSource(path);
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (e) => {
      if (e.data === undefined) return;
      let data;
      try {
        data = JSON.parse(e.data);
      } catch {
        showError(`bad ${name} event from ${path}: ${e.data}`);
        return;
      }
      handler(data);
    });
  }
  return source;
}

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
