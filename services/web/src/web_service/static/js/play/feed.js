// The table's live feed for a player (`WS /api/play/feed`), kept open by itself: a dropped
// connection is reopened with backoff, asking for the events after the last position seen,
// so nothing is missed or repeated (the rules' disconnection policy: the round goes on
// without the player, and the view catches up when it is back).

const CLOSE_SESSION_ENDED = 4401;
const CLOSE_UNKNOWN_TABLE = 4404;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

export class PlayerFeed {
  /**
   * `handlers`: `message(msg)` for each event in order, `opening()` before each (re)connect
   * (the view refetches the table then), `live()` once connected, `down(attempt)` when the
   * connection is lost, `ended(code)` when the server says not to come back.
   */
  constructor(token, handlers) {
    this.token = token;
    this.handlers = handlers;
    this.after = 0;
    this.attempt = 0;
    this.socket = null;
    this.timer = null;
    this.connecting = false; // between `connect()` and the socket's close
    this.isLive = false;
    this.stopped = false;
    // a lost network may leave the socket open for a long time: count it as gone at once
    window.addEventListener("offline", () => this.socket && this.drop(this.socket));
    window.addEventListener("online", () => this.reconnectNow());
  }

  /** Start from `after` (the table's position the view's state already holds). */
  start(after) {
    this.after = after;
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.clearTimeout(this.timer);
    this.socket?.close(1000, "bye");
  }

  reconnectNow() {
    if (this.stopped || this.connecting) return;
    window.clearTimeout(this.timer);
    this.connect();
  }

  async connect() {
    this.timer = null;
    this.connecting = true;
    try {
      await this.handlers.opening(this.attempt > 0);
    } catch {
      this.connecting = false;
      if (!this.stopped) this.retry();
      return;
    }
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${window.location.host}/api/play/feed`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ session: this.token, after: this.after }));
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.markLive(socket);
      const message = JSON.parse(event.data);
      if (typeof message.position !== "number") return;
      if (message.position <= this.after) return; // already applied
      this.after = message.position;
      this.handlers.message(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      if (event.code === CLOSE_SESSION_ENDED || event.code === CLOSE_UNKNOWN_TABLE) {
        this.socket = null;
        this.stopped = true;
        this.handlers.ended(event.code);
        return;
      }
      this.drop(socket);
    });
    // the socket counts as live once it opened and sent its first frame: a quiet table
    // sends nothing for a while
    socket.addEventListener("open", () => {
      window.setTimeout(() => this.markLive(socket), 300);
    });
  }

  drop(socket) {
    if (this.socket !== socket) return;
    this.socket = null;
    this.connecting = false;
    this.isLive = false;
    if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) {
      socket.close(4000, "reconnecting");
    }
    if (!this.stopped) this.retry();
  }

  markLive(socket) {
    if (this.socket !== socket || socket.readyState !== WebSocket.OPEN || this.isLive) return;
    this.attempt = 0;
    this.isLive = true;
    this.handlers.live();
  }

  retry() {
    this.attempt += 1;
    this.handlers.down(this.attempt);
    if (!window.navigator.onLine) return; // the "online" event reconnects
    const base = BACKOFF_MS[Math.min(this.attempt - 1, BACKOFF_MS.length - 1)];
    const delay = base / 2 + Math.random() * (base / 2);
    this.timer = window.setTimeout(() => this.connect(), delay);
  }
}

export const FEED_ENDED = { sessionEnded: CLOSE_SESSION_ENDED, unknownTable: CLOSE_UNKNOWN_TABLE };
