// One table's live feed through the web front (`WS /api/console/feed/{table_id}`): the first
// frame carries the supervisor's key (never the URL) and the last position seen, so a
// reconnect resumes with no gap and no repeat. Closed for good on a refused key (4401/4403)
// or an unknown table (4404); any other loss reconnects by itself, waiting a little longer
// each time.

const FINAL_CLOSES = {
  4401: "The feed refused the key: log in again.",
  4403: "This key may not watch this table.",
  4404: "The table is unknown.",
};
const RETRY_SECONDS = [0.5, 1, 2, 4, 8];

export class TableFeed {
  // `onEvent(message)` for each `{position, event_type, payload, occurred_at}`, in order;
  // `onState(state, detail)` with `connecting`, `live`, `reconnecting` or `closed`.
  constructor({ tableId, key, after, onEvent, onState }) {
    this.tableId = tableId;
    this.key = key;
    this.position = after;
    this.onEvent = onEvent;
    this.onState = onState;
    this.socket = null;
    this.retries = 0;
    this.timer = null;
    this.stopped = false;
    this.state = "connecting";
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket !== null) {
      this.socket.close(1000, "the console left the table");
      this.socket = null;
    }
  }

  connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const path = `/api/console/feed/${encodeURIComponent(this.tableId)}`;
    const url = `${scheme}://${window.location.host}${path}`;
    this.onState(this.retries === 0 ? "connecting" : "reconnecting");
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ api_key: this.key, after: this.position }));
    });
    socket.addEventListener("message", (message) => {
      if (socket !== this.socket) return;
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (typeof event.position !== "number" || event.position <= this.position) return;
      this.position = event.position;
      this.retries = 0; // the feed answers: the next loss starts waiting from the shortest time
      this.onEvent(event);
    });
    socket.addEventListener("close", (closed) => {
      if (socket !== this.socket || this.stopped) return;
      this.socket = null;
      const final = FINAL_CLOSES[closed.code];
      if (final !== undefined) {
        this.state = "closed";
        this.onState("closed", closed.reason || final);
        return;
      }
      const wait = RETRY_SECONDS[Math.min(this.retries, RETRY_SECONDS.length - 1)];
      this.retries += 1;
      this.state = "reconnecting";
      this.onState("reconnecting");
      this.timer = setTimeout(() => this.connect(), wait * 1000);
    });
    // the relay sends nothing until the table has news: an open socket is a live feed
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.state = "live";
      this.onState("live");
    });
  }
}
