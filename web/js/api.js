// The public API of `baduk serve` (docs/api.md). The UI never decides legality itself: every
// action goes to the server, and its 4xx message comes back as an ApiError to show in place.

export class ApiError extends Error {
  constructor(status, message, code, args) {
    super(message);
    this.status = status;
    this.code = code || null; // the server's code for the reason (docs/api.md), for the page's language
    this.args = args || null;
  }
}

async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, e.message || 'network error');
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const msg = (data && data.error) || text || `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, msg, data && data.code, data && data.args);
  }
  return data;
}

export const api = {
  create: (spec) => call('POST', '/api/games', spec),
  join: (id, seat) => call('POST', `/api/games/${encodeURIComponent(id)}/join`, { seat }),
  act: (id, token, action) => call('POST', `/api/games/${encodeURIComponent(id)}/actions`, { action }, token),
  // With a seat's token the server also says which seat it is (`you`) and marks the seat joined.
  state: (id, move, token) =>
    call('GET', `/api/games/${encodeURIComponent(id)}${move === undefined ? '' : `?move=${move}`}`, undefined, token),
  list: (status, limit = 50, before) =>
    call('GET', `/api/games?status=${status}&limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ''}`),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
  // A fresh token for a seat, given its current one (the old one is refused from then on).
  rotate: (id, seat, token) => call('POST', `/api/games/${encodeURIComponent(id)}/seats/${encodeURIComponent(seat)}/rotate`, undefined, token),
};

// ---- seats held by this browser -------------------------------------------------------------
// A game's tokens are kept per game id: {"black": "tok", …}. A token whose seat is not known yet
// (a bare `#token=` link) is kept under "?" until the page finds out which seat it is.

const seatKey = (id) => `baduk.seats.${id}`;

export function heldSeats(id) {
  try {
    return JSON.parse(localStorage.getItem(seatKey(id))) || {};
  } catch {
    return {};
  }
}

export function holdSeat(id, seat, token) {
  const held = heldSeats(id);
  held[seat] = token;
  localStorage.setItem(seatKey(id), JSON.stringify(held));
}

export function forgetSeat(id, seat) {
  const held = heldSeats(id);
  delete held[seat];
  localStorage.setItem(seatKey(id), JSON.stringify(held));
}

/** Seat links this browser created for friends: shown again on the game page. */
export function invites(id) {
  try {
    return JSON.parse(localStorage.getItem(`baduk.invites.${id}`)) || {};
  } catch {
    return {};
  }
}

export function saveInvite(id, seat, url) {
  const all = invites(id);
  all[seat] = url;
  localStorage.setItem(`baduk.invites.${id}`, JSON.stringify(all));
}

/** A seat link with its seat named in the fragment too (`#token=…&seat=white`). */
export function seatLink(url, seat) {
  if (!url) return url;
  const abs = new URL(url, location.origin);
  const frag = new URLSearchParams(abs.hash.slice(1));
  if (!frag.has('seat')) frag.set('seat', seat);
  abs.hash = frag.toString();
  return abs.toString();
}

// ---- the live connection --------------------------------------------------------------------

/**
 * A WebSocket to /ws/games/{id} that reconnects with back-off and pings to keep the line alive.
 * onMessage gets each parsed message; onStatus gets 'open' | 'closed'.
 */
export function connect(id, { onMessage, onStatus }) {
  let ws = null;
  let delay = 300;
  let stopped = false;
  let pingTimer = null;
  const open = () => {
    if (stopped) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${proto}//${location.host}/ws/games/${encodeURIComponent(id)}`);
    ws.onopen = () => {
      delay = 300;
      onStatus('open');
      clearInterval(pingTimer);
      pingTimer = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'ping' }));
      }, 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      onMessage(msg);
    };
    ws.onclose = () => {
      clearInterval(pingTimer);
      if (stopped) return;
      onStatus('closed');
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 5000);
    };
    ws.onerror = () => ws.close();
  };
  open();
  // A phone waking up, or a network coming back: reconnect at once.
  window.addEventListener('online', () => {
    if (ws && ws.readyState !== WebSocket.OPEN) {
      delay = 300;
      ws.close();
    }
  });
  return {
    stop() {
      stopped = true;
      if (ws) ws.close();
    },
    drop() {
      // For tests: close the socket as a network failure would.
      if (ws) ws.close();
    },
  };
}
