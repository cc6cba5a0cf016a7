// The player's session: the launch URL's single-use ticket is exchanged once for a session
// token, kept in this tab's sessionStorage (a reload keeps working until the session
// expires) and sent as `Authorization: Session <token>`; never in a URL or a cookie.

const STORAGE_PREFIX = "tp.play.session.";

/** A call the wallet or the web front refused: its problem details (RFC 9457). */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "unknown";
    this.problem = problem;
  }
}

/** The session is gone (expired, ended, or never launched): only the operator can reopen it.
 * `requestedLanguage`: the launch URL's `lang`, to say so in the player's language. */
export class SessionEndedError extends Error {
  constructor(reason, requestedLanguage = null) {
    super(reason);
    this.requestedLanguage = requestedLanguage;
  }
}

function storageKey(tableId) {
  return STORAGE_PREFIX + tableId;
}

function stored(tableId) {
  try {
    const raw = window.sessionStorage.getItem(storageKey(tableId));
    if (!raw) return null;
    const session = JSON.parse(raw);
    if (!session.token || Date.parse(session.expires_at) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export function forget(tableId) {
  window.sessionStorage.removeItem(storageKey(tableId));
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch {
    return { code: "unknown", detail: `HTTP ${response.status}` };
  }
}

/**
 * The session for `tableId`: the ticket's (launched now) or the one this tab kept. The
 * ticket and language are stripped from the address bar first, so a reload or a shared
 * address never replays the ticket.
 */
export async function openSession(tableId) {
  const url = new URL(window.location.href);
  const ticket = url.searchParams.get("ticket");
  const requestedLanguage = url.searchParams.get("lang");
  if (ticket !== null || requestedLanguage !== null) {
    url.searchParams.delete("ticket");
    url.searchParams.delete("lang");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  if (ticket) {
    const response = await fetch("/api/wallet/sessions/launch", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ ticket }),
    });
    if (response.ok) {
      const launched = await response.json();
      const session = {
        token: launched.session_token,
        expires_at: launched.expires_at,
        player_id: launched.player_id,
        currency: launched.currency,
        language: launched.language,
        table_id: launched.table_id,
      };
      window.sessionStorage.setItem(storageKey(tableId), JSON.stringify(session));
      return { session, requestedLanguage };
    }
    // a used ticket after a reload: the session this tab kept is still good
    const kept = stored(tableId);
    if (kept) return { session: kept, requestedLanguage };
    const refused = (await problemOf(response)).code || "invalid_ticket";
    throw new SessionEndedError(refused, requestedLanguage);
  }
  const kept = stored(tableId);
  if (kept) return { session: kept, requestedLanguage };
  throw new SessionEndedError("no_session", requestedLanguage);
}

/** Calls to the web front with the session's token; problem details become ProblemError. */
export class PlayerApi {
  constructor(session, onSessionEnded) {
    this.session = session;
    this.onSessionEnded = onSessionEnded;
  }

  async request(method, path, { body, headers = {} } = {}) {
    const init = {
      method,
      headers: {
        Accept: "application/json",
        Authorization: `Session ${this.session.token}`,
        ...headers,
      },
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (response.status === 401) {
      forget(this.session.table_id);
      this.onSessionEnded();
      throw new SessionEndedError("session_expired");
    }
    if (!response.ok) throw new ProblemError(response.status, await problemOf(response));
    return { body: await response.json(), date: response.headers.get("Date") };
  }

  async get(path) {
    return (await this.request("GET", path)).body;
  }
}

/** A fresh key for one slip: a retry of the same slip must send the same key. */
export function newIdempotencyKey() {
  if (window.crypto.randomUUID) return window.crypto.randomUUID();
  const bytes = window.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const groups = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20)];
  return [...groups, hex.slice(20)].join("-");
}
