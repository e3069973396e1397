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

// ---- who is asking: the session cookie and its CSRF token (docs/api.md, "Who is asking") ------
// The cookie travels by itself (same-origin fetch); every POST/DELETE made without a bearer
// token carries the CSRF value the server gave with the account (from /api/me, signup, login or
// guest). A first visit with no session gets a guest account.

let csrf = null;
let me = null; // the account: {name, guest, created_at, ratings}
let sessionP = null;
const meListeners = new Set();

function setSession(data) {
  if (data && data.csrf) csrf = data.csrf;
  me = (data && data.account) || null;
  for (const f of meListeners) f(me);
  return me;
}

/** The signed-in account (or the guest made for this browser); null when the server has none. */
export function account() {
  return me;
}

/** Calls f(account) whenever the account changes (sign in, sign out). */
export function onAccount(f) {
  meListeners.add(f);
}

/**
 * Makes sure this browser has a session: GET /api/me, and on 401 a new guest. Resolves to the
 * account, or null when the server answers neither (an older server, a network error).
 */
export function session(force = false) {
  if (sessionP && !force) return sessionP;
  sessionP = (async () => {
    try {
      return setSession(await call('GET', '/api/me', undefined, null, { noSession: true }));
    } catch (e) {
      if (e.status !== 401) return setSession(null);
    }
    try {
      return setSession(await call('POST', '/api/auth/guest', undefined, null, { noSession: true }));
    } catch {
      return setSession(null);
    }
  })();
  return sessionP;
}

/** The headers a write made with the cookie needs (the CSRF value; the session made first). */
export async function writeHeaders() {
  if (!csrf) await session();
  return csrf ? { 'X-CSRF-Token': csrf } : {};
}

/** A call of the API (the session's CSRF value on a write; `token`: a bearer token instead). */
export async function call(method, path, body, token, opts = {}) {
  const writes = method !== 'GET';
  // A write made with the cookie needs the CSRF value: wait for the session first.
  if (writes && !token && !opts.noSession && !csrf) await session();
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  if (writes && csrf) headers['X-CSRF-Token'] = csrf;
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
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
    const code = data && data.code;
    // A CSRF value gone stale (a sign-in in another tab) or a session ended elsewhere: ask the
    // server again once, then repeat the request.
    if (writes && !token && !opts.noSession && !opts.retried && (code === 'auth.csrf' || code === 'auth.ended')) {
      csrf = null;
      await session(true);
      return call(method, path, body, token, { ...opts, retried: true });
    }
    const msg = (data && data.error) || text || `${res.status} ${res.statusText}`;
    if (res.status === 429 && data && data.retry_after !== undefined && !(data.args && data.args.seconds !== undefined)) {
      throw new ApiError(res.status, msg, code, { ...(data.args || {}), seconds: data.retry_after });
    }
    throw new ApiError(res.status, msg, code, data && data.args);
  }
  return data;
}

const enc = encodeURIComponent;

export const api = {
  create: (spec) => call('POST', '/api/games', spec),
  join: (id, seat, invite) => call('POST', `/api/games/${enc(id)}/join`, invite ? { seat, invite } : { seat }),
  // Without a seat token the cookie's account acts (its own seat; "Seats of accounts").
  act: (id, token, action) => call('POST', `/api/games/${enc(id)}/actions`, { action }, token),
  // With a seat's token the server also says which seat it is (`you`) and marks the seat joined.
  state: (id, move, token) =>
    call('GET', `/api/games/${enc(id)}${move === undefined ? '' : `?move=${move}`}`, undefined, token),
  list: (status, limit = 50, before) =>
    call('GET', `/api/games?status=${status}&limit=${limit}${before ? `&before=${enc(before)}` : ''}`),
  recordUrl: (id) => `/api/games/${enc(id)}/record`,
  // A fresh token for a seat, given its current one (the old one is refused from then on).
  rotate: (id, seat, token) => call('POST', `/api/games/${enc(id)}/seats/${enc(seat)}/rotate`, undefined, token),

  // Accounts and sessions.
  signup: async (username, password) => setSession(await call('POST', '/api/auth/signup', { username, password }, null, { noSession: true })),
  login: async (username, password) => setSession(await call('POST', '/api/auth/login', { username, password }, null, { noSession: true })),
  guest: async () => setSession(await call('POST', '/api/auth/guest', undefined, null, { noSession: true })),
  logout: async () => {
    await call('POST', '/api/auth/logout', undefined, null, { noSession: true });
    csrf = null;
    sessionP = null;
    return setSession(null);
  },
  logoutAll: async () => {
    await call('POST', '/api/auth/logout-all', undefined, null, { noSession: true });
    csrf = null;
    sessionP = null;
    return setSession(null);
  },
  me: async () => setSession(await call('GET', '/api/me', undefined, null, { noSession: true })),
  tokens: () => call('GET', '/api/tokens'),
  newToken: (label, scopes) => call('POST', '/api/tokens', { label, scopes }),
  revokeToken: (id) => call('DELETE', `/api/tokens/${enc(id)}`),
  vacation: () => call('GET', '/api/me/vacation'),
  setVacation: (on) => call('PUT', '/api/me/vacation', { on }),
  setTimezone: (tz) => call('PUT', '/api/me/timezone', { tz }),

  // Players, ratings, seeks.
  player: (name) => call('GET', `/api/players/${enc(name)}`),
  playerSgfUrl: (name) => `/api/players/${enc(name)}/games.sgf`,
  online: () => call('GET', '/api/players?online=true'),
  bots: () => call('GET', '/api/bots'),
  challenge: (body) => call('POST', '/api/challenges', body),
  suggest: (opponent, kind) => call('GET', `/api/suggest?opponent=${enc(opponent)}&kind=${enc(kind)}`),
  seek: (spec) => call('POST', '/api/seeks', spec),
  cancelSeek: (id) => call('DELETE', `/api/seeks/${enc(id)}`),
  seeks: () => call('GET', '/api/seeks'),

  // Challenges (docs/api.md, "Challenges"): to a named player, or open (`to: null`) by link.
  challenges: () => call('GET', '/api/challenges'),
  getChallenge: (id) => call('GET', `/api/challenges/${enc(id)}`),
  acceptChallenge: (id) => call('POST', `/api/challenges/${enc(id)}/accept`),
  declineChallenge: (id, reason) => call('POST', `/api/challenges/${enc(id)}/decline`, reason ? { reason } : {}),
  cancelChallenge: (id) => call('POST', `/api/challenges/${enc(id)}/cancel`),

  // The account's unfinished games, the ones where it is its move first ("Your move").
  myGames: () => call('GET', '/api/me/games'),
  // Conditional moves (the asker's own plan: {"E5": {"reply": "C3", "then": {…}}}).
  // A seat token proves the seat where the page holds one; else the cookie's account.
  plan: (id, token) => call('GET', `/api/games/${enc(id)}/conditional`, undefined, token),
  savePlan: (id, moves, token) => call('PUT', `/api/games/${enc(id)}/conditional`, { moves }, token),
  clearPlan: (id, token) => call('DELETE', `/api/games/${enc(id)}/conditional`, undefined, token),

  // Chat.
  chat: (id) => call('GET', `/api/games/${enc(id)}/chat`),
  report: (id, seq, reason) => call('POST', `/api/games/${enc(id)}/chat/${enc(seq)}/report`, { reason }),
};

// ---- changes: the socket's `delta` and the reply to an action (docs/api.md, "Changes") -------

/**
 * The full state after a change, from the state `st` the change follows (`change.base` is
 * `st.version`): the change's fields replace the state's (one it leaves out is kept), its
 * `log` rows are appended to
 * `actions`, each history array (`moves`, Wall Go's `auto`) keeps its first `history.keep`
 * entries and takes the ones given, and each array in `patch` (the board's rows, the legal
 * moves) is the state's own array patched. The caller checks the base.
 */
export function mergeChange(st, change) {
  const { base, log, history, patch, ...fields } = change;
  // A field the change leaves out (a setting, the seats when unchanged) keeps the state's value.
  const next = { ...st, ...fields };
  next.actions = (st.actions || []).concat(log || []);
  const { keep = 0, ...arrays } = history || {};
  for (const [k, add] of Object.entries(arrays)) next[k] = (st[k] || []).slice(0, keep).concat(add);
  for (const [k, p] of Object.entries(patch || {})) next[k] = patched(st[k] || [], p);
  return next;
}

/**
 * An array patched (docs/api.md, "Changes"): `set` replaces entries in place; otherwise the
 * entries at the `remove` indexes go, then each `insert` value goes in at its index, in order.
 */
function patched(old, p) {
  if (p.set) {
    const out = old.slice();
    for (const [i, v] of p.set) out[i] = v;
    return out;
  }
  const gone = new Set(p.remove || []);
  const out = old.filter((_, i) => !gone.has(i));
  for (const [k, v] of p.insert || []) out.splice(k, 0, v);
  return out;
}

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

/** The invite secret of an unlisted game this browser was sent (`#invite=…`), if any. */
export function inviteSecret(id) {
  return localStorage.getItem(`baduk.invite.${id}`);
}

export function keepInviteSecret(id, secret) {
  localStorage.setItem(`baduk.invite.${id}`, secret);
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
export function connect(id, handlers) {
  const path = `/ws/games/${encodeURIComponent(id)}`;
  // A page that holds a seat's token asks for a seat's room (`?seat`; its `hello` proves the
  // seat at once), so watchers filling the game never turn its player away.
  return socketTo(() => (handlers.seat?.() ? `${path}?seat` : path), handlers);
}

/**
 * The lobby's WebSocket (/ws/lobby): `{type: 'seeks', seeks}` on connect and whenever the open
 * seeks change; reconnects like a game's.
 */
export function lobbySocket(handlers) {
  return socketTo('/ws/lobby', handlers);
}

/** A review room's WebSocket (/ws/reviews/{id}): the room, then its deltas; reconnects like a game's. */
export function reviewSocket(id, handlers) {
  return socketTo(`/ws/reviews/${encodeURIComponent(id)}`, handlers);
}

function socketTo(path, { onMessage, onStatus }) {
  let ws = null;
  let delay = 300;
  let stopped = false;
  let pingTimer = null;
  const open = () => {
    if (stopped) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${proto}//${location.host}${typeof path === 'function' ? path() : path}`);
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
    /** Sends a message (chat, mute) if the socket is open; says whether it went. */
    send(msg) {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(msg));
      return true;
    },
  };
}

/**
 * The account's events (`GET /api/stream/events`, NDJSON: `challenge`, `challengeCanceled`,
 * `challengeDeclined`, `gameStart`, `gameFinish`), read with a streaming fetch and opened again
 * with back-off when the line drops. A refusal (no session: 401, 403, 404) ends it; too many
 * streams (429) waits longer. `stop()` closes it.
 */
export function eventStream({ onEvent, onStatus }) {
  let stopped = false;
  let ctl = null;
  let delay = 500;
  const run = async () => {
    while (!stopped) {
      ctl = new AbortController();
      let res = null;
      try {
        res = await fetch('/api/stream/events', { credentials: 'same-origin', signal: ctl.signal, headers: { Accept: 'application/x-ndjson' } });
      } catch {
        res = null;
      }
      if (stopped) return;
      if (res && res.ok && res.body) {
        delay = 500;
        onStatus?.('open');
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = '';
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += dec.decode(value, { stream: true });
            let nl;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl).trim();
              buf = buf.slice(nl + 1);
              if (!line) continue; // a keep-alive
              let ev = null;
              try {
                ev = JSON.parse(line);
              } catch {
                continue;
              }
              onEvent(ev);
            }
          }
        } catch {
          /* dropped: opened again below */
        }
        if (stopped) return;
        onStatus?.('closed');
      } else if (res && [400, 401, 403, 404].includes(res.status)) {
        onStatus?.('refused');
        return;
      } else if (res && res.status === 429) delay = Math.max(delay, 10000);
      await new Promise((ok) => setTimeout(ok, delay));
      delay = Math.min(delay * 2, 15000);
    }
  };
  run();
  return {
    stop() {
      stopped = true;
      ctl?.abort();
    },
  };
}

/**
 * The socket that keeps a seek alive (/ws/seeks/{id}): onMessage gets `matched`, `bot_offer`,
 * `error`…; onClose is called when the server closes it. Closing it drops the seek.
 */
export function seekSocket(id, { onMessage, onClose }) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}/ws/seeks/${encodeURIComponent(id)}`);
  let closed = false;
  const ping = setInterval(() => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'ping' }));
  }, 20000);
  ws.onmessage = (ev) => {
    try {
      onMessage(JSON.parse(ev.data));
    } catch {
      /* not JSON: ignored */
    }
  };
  ws.onclose = (ev) => {
    clearInterval(ping);
    if (!closed) onClose?.(ev);
    closed = true;
  };
  return {
    /** Whether the socket is open (closing it then drops the seek on the server). */
    isOpen: () => ws.readyState === WebSocket.OPEN,
    send(msg) {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
      else ws.addEventListener('open', () => ws.send(JSON.stringify(msg)), { once: true });
    },
    close() {
      closed = true;
      clearInterval(ping);
      ws.close();
    },
  };
}
