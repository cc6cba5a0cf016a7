// The studio console: a supervisor logs in with their own key, watches the tables and one of
// them live, acts on it (every action confirmed, through the same APIs as any client), and
// sees every service's problems in one list. Everything goes through the web front's
// `/api/...`, which forwards the supervisor's key and adds no privilege.

import { Api, ApiError } from "./console/api.js";
import { ConfirmDialog } from "./console/confirm.js";
import { byId, el, showMessage } from "./console/dom.js";
import { TableFeed } from "./console/feed.js";
import {
  BET_TYPES, POSITIONS, betName, card, countdown, phaseName, secondsUntil, time,
  winnerName, words,
} from "./console/format.js";
import { eventItem } from "./console/events.js";
import { parChart, parTables } from "./console/par.js";
import { problemsView } from "./console/problems.js";
import { formatAmount } from "./money.js";

const KEY_STORAGE = "teenpatti.console.key";
const TABLES_EVERY_MS = 2000;
const PROBLEMS_EVERY_MS = 3000;
const STAKES_EVERY_MS = 2000;
const SCANS_EVERY_MS = 4000;
const TICK_MS = 250;
const VERDICT_LAG_MS = 1500;
const EVENTS_KEPT = 40;
const REFUSALS_KEPT = 10;
// how far back the live table's event list starts when a table is chosen
const EVENTS_BACKLOG = 30;
// reads of a table's state that trails its feed, before the tables' poll takes over
const STATE_RETRIES = 5;
// the table's last rounds listed, the ones whose result may still be voided among them
const ROUNDS_LISTED = 10;
// the events after which the last rounds are read again
const ROUND_EVENTS = new Set([
  "RoundClosed", "RoundCancelled", "ResultVoidRequested", "ResultVoidRejected", "RoundVoided",
]);

const page = {
  announcer: byId("announcer"),
  login: byId("login"),
  loginForm: byId("login-form"),
  loginKey: byId("login-key"),
  loginError: byId("login-error"),
  console: byId("console"),
  logout: byId("logout"),
  signedInAs: byId("signed-in-as"),
  tablesList: byId("tables-list"),
  tablesEmpty: byId("tables-empty"),
  tablesError: byId("tables-error"),
  openTable: byId("open-table"),
  liveNone: byId("live-none"),
  liveTable: byId("live-table"),
  liveName: byId("live-name"),
  liveId: byId("live-id"),
  liveStatus: byId("live-status"),
  livePhase: byId("live-phase"),
  liveRound: byId("live-round"),
  liveCountdown: byId("live-countdown"),
  liveFeed: byId("live-feed"),
  liveAlert: byId("live-alert"),
  actionStatus: byId("action-status"),
  deal: byId("deal"),
  handA: byId("hand-a"),
  handB: byId("hand-b"),
  result: byId("live-result"),
  stakes: byId("stakes"),
  stakesNote: byId("stakes-note"),
  devices: byId("scanner-devices"),
  scans: byId("scans"),
  scansNote: byId("scans-note"),
  rounds: byId("rounds"),
  roundsNote: byId("rounds-note"),
  events: byId("events"),
  parChart: byId("par-chart"),
  parTables: byId("par-tables"),
  parError: byId("par-error"),
  problemsSummary: byId("problems-summary"),
  problemsList: byId("problems-list"),
};

const confirm = new ConfirmDialog();

let api = null;
let timers = [];
const tables = new Map(); // table id -> its summary and, while open, its state
let live = null; // the table watched live

// ------------------------------------------------------------------------ announcements
function announce(message) {
  // cleared first, so the same message twice is read twice
  page.announcer.textContent = "";
  window.setTimeout(() => {
    page.announcer.textContent = message;
  }, 50);
}

// ------------------------------------------------------------------------------- log in
async function logIn(key) {
  const candidate = new Api(key);
  try {
    await candidate.get("table", "/tables");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new Error("That key was refused: it is not a valid key. Check it and try again.");
    }
    throw error;
  }
  try {
    // the console acts as a supervisor: another role's key is told so now, not at each action
    await candidate.get("table", "/problems?limit=1");
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      throw new Error(
        "That key is not a supervisor's key: the console needs your own supervisor key.",
      );
    }
    throw error;
  }
  return candidate;
}

async function onLogin(event) {
  event.preventDefault();
  const key = page.loginKey.value.trim();
  if (key === "") {
    showMessage(page.loginError, "Enter your supervisor key.");
    page.loginKey.focus();
    return;
  }
  showMessage(page.loginError, "");
  page.loginForm.setAttribute("aria-busy", "true");
  try {
    api = await logIn(key);
  } catch (error) {
    showMessage(page.loginError, error.message);
    page.loginKey.setAttribute("aria-invalid", "true");
    page.loginKey.focus();
    return;
  } finally {
    page.loginForm.removeAttribute("aria-busy");
  }
  page.loginKey.removeAttribute("aria-invalid");
  window.sessionStorage.setItem(KEY_STORAGE, key);
  start();
  announce("Logged in.");
}

function start() {
  page.loginKey.value = "";
  page.login.hidden = true;
  page.console.hidden = false;
  page.logout.hidden = false;
  page.signedInAs.hidden = false;
  page.signedInAs.textContent = "Logged in with a supervisor key";
  timers = [
    repeat(refreshTables, TABLES_EVERY_MS),
    repeat(refreshProblems, PROBLEMS_EVERY_MS),
    repeat(refreshStakes, STAKES_EVERY_MS),
    repeat(refreshScans, SCANS_EVERY_MS),
    window.setInterval(tick, TICK_MS),
  ];
  byId("main").focus();
  const wanted = new URLSearchParams(window.location.hash.slice(1)).get("table");
  if (wanted) watch(wanted);
}

function logOut(message = "") {
  for (const timer of timers) window.clearInterval(timer);
  timers = [];
  stopWatching();
  tables.clear();
  page.tablesList.replaceChildren();
  page.problemsList.replaceChildren();
  api = null;
  window.sessionStorage.removeItem(KEY_STORAGE);
  page.console.hidden = true;
  page.logout.hidden = true;
  page.signedInAs.hidden = true;
  page.login.hidden = false;
  showMessage(page.loginError, message);
  page.loginKey.focus();
  announce(message || "Logged out.");
}

// Run `task` now and every `ms` (never two at once); a refused key logs the supervisor out.
function repeat(task, ms) {
  let running = false;
  const run = async () => {
    if (running || api === null) return;
    running = true;
    try {
      await task();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        logOut("Your key was refused: log in again.");
      }
    } finally {
      running = false;
    }
  };
  run();
  return window.setInterval(run, ms);
}

// A read started outside `repeat` (after an event): its failure shows on the page already.
function soon(task) {
  task().catch(() => {});
}

// ------------------------------------------------------------------------------ tables
async function refreshTables() {
  let listed;
  try {
    listed = (await api.get("table", "/tables")).tables ?? [];
    showMessage(page.tablesError, "");
  } catch (error) {
    showMessage(page.tablesError, `The tables cannot be listed: ${error.message}`);
    throw error;
  }
  const states = await Promise.all(
    listed.map((summary) =>
      summary.status === "open" || summary.table_id === live?.tableId
        ? api.get("table", `/tables/${encodeURIComponent(summary.table_id)}`).catch(() => null)
        : Promise.resolve(null),
    ),
  );
  tables.clear();
  listed.forEach((summary, index) => {
    tables.set(summary.table_id, { summary, state: states[index] });
  });
  renderTables();
  if (live !== null && tables.has(live.tableId)) {
    const state = tables.get(live.tableId).state;
    if (state !== null && state.version >= (live.state?.version ?? 0)) showState(state);
  }
}

function renderTables() {
  page.tablesEmpty.hidden = tables.size !== 0;
  const items = [...tables.values()].map(({ summary, state }) => {
    const selected = live?.tableId === summary.table_id;
    const round = state?.round;
    return el(
      "li",
      {},
      el(
        "button",
        {
          type: "button",
          class: `table-item table-item--${summary.status}`,
          "aria-current": selected ? "true" : null,
          dataset: { tableId: summary.table_id },
          onclick: () => watch(summary.table_id),
        },
        el("span", { class: "table-item__name", text: summary.name }),
        el("span", { class: "table-item__id", text: summary.table_id }),
        el("span", {
          class: "table-item__phase",
          text: state ? phaseName(state) : words(summary.status),
        }),
        el("span", { class: "table-item__round", text: round ? `Round ${round.number}` : "" }),
        el("span", {
          class: "table-item__clock",
          dataset: {
            closesAt: round?.phase === "betting" && !round.paused ? round.betting_closes_at : "",
          },
        }),
      ),
    );
  });
  // keep the focused button focused across the re-render
  const focused = document.activeElement?.dataset?.tableId;
  page.tablesList.replaceChildren(...items);
  if (focused) page.tablesList.querySelector(`[data-table-id="${CSS.escape(focused)}"]`)?.focus();
  tick();
}

function tick() {
  for (const clock of page.tablesList.querySelectorAll(".table-item__clock")) {
    const seconds = secondsUntil(clock.dataset.closesAt);
    setText(clock, seconds === null ? "" : `betting ${countdown(seconds)}`);
  }
  if (live?.state) setText(page.liveCountdown, liveCountdown(live.state));
}

function liveCountdown(state) {
  const round = state.round;
  if (!round || round.phase !== "betting") return "–";
  if (round.paused) {
    const left = round.betting_remaining_seconds;
    return left === null ? "stopped" : `stopped at ${countdown(left)}`;
  }
  return countdown(secondsUntil(round.betting_closes_at));
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// -------------------------------------------------------------------------- live table
function watch(tableId) {
  if (live?.tableId === tableId) return;
  stopWatching();
  live = {
    tableId,
    state: null,
    feed: null,
    refusals: [], // the table's last CardRefused events, newest first
    results: null, // the table's last rounds (its roadmap), newest first
    roundsShown: null, // what the last rounds' table shows, to redraw it only on a change
    stakesRound: null, // the round whose stakes were read once betting had closed
    refreshing: null,
    unread: false, // it could not be read yet (proposed, not approved): read all once it is
  };
  window.history.replaceState(null, "", `#table=${encodeURIComponent(tableId)}`);
  page.liveNone.hidden = true;
  page.liveTable.hidden = false;
  page.events.replaceChildren();
  page.rounds.tBodies[0].replaceChildren();
  setText(page.roundsNote, "");
  page.liveName.textContent = tableId;
  page.liveId.textContent = tableId;
  setText(page.actionStatus, "");
  renderTables();
  const watched = live;
  api
    .get("table", `/tables/${encodeURIComponent(tableId)}`)
    .then((state) => {
      if (live !== watched) return;
      showState(state);
      soon(refreshScans);
      soon(refreshStakes);
      soon(refreshRounds);
    })
    .catch((error) => {
      if (live !== watched) return;
      watched.unread = true;
      showMessage(page.liveAlert, `Table ${tableId} cannot be read: ${error.message}`);
    });
  loadParSheet(watched);
  announce(`Watching table ${tableId}.`);
}

// The table's feed, from a little before its current state (the recent events listed too);
// started with the first state read of the table, from whichever read comes first.
function startFeed(watched, state) {
  watched.feed = new TableFeed({
    tableId: watched.tableId,
    key: api.key,
    after: Math.max(0, state.version - EVENTS_BACKLOG),
    onEvent: (message) => onFeedEvent(watched, message),
    onState: (feedState, detail) => onFeedState(watched, feedState, detail),
  });
  watched.feed.start();
}

function stopWatching() {
  if (live?.feed) live.feed.stop();
  live = null;
  page.liveTable.hidden = true;
  page.liveNone.hidden = false;
}

function onFeedState(watched, feedState, detail) {
  if (live !== watched) return;
  const text = {
    connecting: "connecting…",
    live: "live",
    reconnecting: "reconnecting…",
    closed: `closed: ${detail ?? ""}`,
  }[feedState];
  page.liveFeed.textContent = text;
  page.liveFeed.className = `feed feed--${feedState}`;
  if (feedState === "reconnecting") announce("The live feed was lost; reconnecting.");
}

function onFeedEvent(watched, message) {
  if (live !== watched) return;
  page.events.prepend(eventItem(message));
  while (page.events.children.length > EVENTS_KEPT) page.events.lastElementChild.remove();
  if (message.event_type === "CardRefused") {
    watched.refusals.unshift(message);
    watched.refusals.length = Math.min(watched.refusals.length, REFUSALS_KEPT);
    renderRefusals(watched);
  }
  if (message.event_type === "CardDealt" || message.event_type === "CardRefused") {
    // the gateway hears the table's verdict a moment after the table's feed: read it twice
    soon(refreshScans);
    window.setTimeout(() => soon(refreshScans), VERDICT_LAG_MS);
  }
  // a new configuration (an approved change included) may bring a new pay table
  if (message.event_type === "TableOpened" && message.position > (watched.state?.version ?? 0)) {
    loadParSheet(watched);
  }
  if (ROUND_EVENTS.has(message.event_type)) soon(refreshRounds);
  if (message.position > (watched.state?.version ?? 0)) refreshLiveState(watched);
}

// Read the table's state again after an event (several events in a burst: one read), until
// it is as recent as the feed: the live state may trail the events by a moment.
function refreshLiveState(watched, attempt = 0) {
  if (watched.refreshing !== null) return;
  watched.refreshing = window.setTimeout(async () => {
    let behind = false;
    try {
      const state = await api.get("table", `/tables/${encodeURIComponent(watched.tableId)}`);
      if (live === watched && state.version >= (watched.state?.version ?? 0)) showState(state);
      behind = state.version < (watched.feed?.position ?? 0);
    } catch {
      // the next event or the tables' poll reads it again
    } finally {
      watched.refreshing = null;
    }
    if (behind && live === watched && attempt < STATE_RETRIES) {
      refreshLiveState(watched, attempt + 1);
    }
  }, 100 + 200 * attempt);
}

function showState(state) {
  const watched = live;
  if (watched === null || state.table_id !== watched.tableId) return;
  const before = watched.state;
  watched.state = state;
  // a table proposed and not approved yet has no feed (the table closes it 4404, for good),
  // no pay table and no rounds: all are read once it is approved
  const exists = state.status !== "unknown";
  if (!exists) watched.unread = true;
  if (watched.feed === null && exists) startFeed(watched, state);
  if (watched.unread && exists) {
    // first read of a table that did not exist yet (proposed, then approved)
    watched.unread = false;
    loadParSheet(watched);
    soon(refreshScans);
    soon(refreshStakes);
    soon(refreshRounds);
  }
  const round = state.round;
  page.liveName.textContent = state.config?.name ?? state.table_id;
  page.liveId.textContent = `Table ${state.table_id} · version ${state.version}`;
  setText(page.liveStatus, words(state.status));
  setText(page.livePhase, phaseName(state));
  setText(page.liveRound, round ? `${round.number} (${round.round_id})` : "–");
  setText(page.liveCountdown, liveCountdown(state));
  renderAlert(state);
  renderActions(state);
  renderCards(round);
  renderRounds(watched);
  const newRound = before && before.round?.round_id !== round?.round_id;
  if (newRound || (before?.round?.phase === "betting" && round?.phase !== "betting")) {
    soon(refreshStakes);
  }
  if (before === null || newRound || phaseName(before) !== phaseName(state)) {
    setText(page.actionStatus, ""); // what was done before is no longer the news
    const which = round ? `round ${round.number}, ` : "";
    announce(`Table ${state.table_id}: ${which}${phaseName(state)}.`);
  }
}

function renderAlert(state) {
  const round = state.round;
  const messages = [];
  if (state.status === "closed") {
    const playing = inPlay(round) ? " Its round in play plays to its end." : "";
    const why = state.closed_reason ? `: ${state.closed_reason}` : "";
    messages.push(`The table is closed${why}.${playing}`);
  }
  if (round?.void_requested_by) {
    messages.push(
      `Void requested by ${round.void_requested_by}: the round is voided when another`
        + " supervisor cancels it too.",
    );
  }
  if (round?.card_marked_wrong) {
    messages.push(
      `Card ${round.card_marked_wrong} marked wrong by ${round.card_marked_wrong_by}: no card is`
        + " dealt until another supervisor resumes the round (the card stands), re-scans from it,"
        + " or two cancel it.",
    );
  }
  if (round?.exposed) {
    messages.push(
      "A card was read while betting was open (its value is sealed): replace the deck and"
        + " resume, or cancel the round.",
    );
  }
  if (state.video_lost) {
    const lost = state.video_lost;
    messages.push(
      `Video lost, reported by ${lost.reported_by} (${lost.reason}): no round opens until it is`
        + " restored; a round with cards dealt plays to its result.",
    );
  }
  if (state.rounds_held?.length) {
    messages.push(
      `No round opens: ${state.rounds_held.join("; ")}. The table opens the next round once`
        + " they are back.",
    );
  }
  if (round?.paused) {
    const why = round.pause_reason ? `: ${round.pause_reason}` : "";
    messages.push(`Paused by ${round.paused_by ?? "the table"}${why}.`);
  }
  for (const asked of state.result_voids ?? []) {
    messages.push(
      `Void of the result of round ${roundNumber(asked.round_id)} asked by ${asked.requested_by}`
        + ` (${asked.reason}): another supervisor confirms or rejects it under Last rounds.`,
    );
  }
  if (round?.phase === "cancelled") {
    const why = round.cancel_reason ? `: ${round.cancel_reason}` : "";
    messages.push(
      `Round ${round.number} was cancelled by ${round.cancelled_by}${why}; every bet refunded.`,
    );
  }
  showMessage(page.liveAlert, messages.join(" "));
}

function inPlay(round) {
  return round?.phase === "betting" || round?.phase === "dealing";
}

function renderActions(state) {
  const round = state.round;
  const allowed = {
    // a round in play plays to its end even on a closed table: it may still need a hand
    pause: inPlay(round) && !round.paused,
    resume: inPlay(round) && round.paused,
    cancel: inPlay(round),
    "mark-wrong": round?.phase === "dealing" && round.cards.length > 0
      && !round.card_marked_wrong,
    rescan: inPlay(round) && Boolean(round.card_marked_wrong),
    "replace-deck": inPlay(round) && round.exposed,
    close: state.status === "open",
    "video-lost": state.status === "open" && !state.video_lost,
    "video-restored": Boolean(state.video_lost),
  };
  for (const button of page.liveTable.querySelectorAll("[data-action]")) {
    button.disabled = !allowed[button.dataset.action];
  }
}

function cardItem(position, code) {
  if (!code) {
    return el("li", { class: "card card--empty", "aria-label": `${position}: not dealt yet` },
      el("span", { class: "card__position", text: position }));
  }
  const shown = card(code);
  return el(
    "li",
    {
      class: `card card--${shown.colour}`,
      "aria-label": `${position}: ${shown.spoken}`,
      dataset: { card: code },
    },
    el("span", { class: "card__position", "aria-hidden": "true", text: position }),
    el("span", { class: "card__face", "aria-hidden": "true", text: shown.label }),
  );
}

function renderCards(round) {
  const dealt = new Map((round?.cards ?? []).map((c) => [c.position, c.card]));
  page.deal.replaceChildren(...POSITIONS.map((at) => cardItem(at, dealt.get(at))));
  const result = round?.result ?? null;
  const seats = [
    [page.handA, "A", result?.player_a_hand],
    [page.handB, "B", result?.player_b_hand],
  ];
  for (const [hand, seat, name] of seats) {
    const positions = POSITIONS.filter((at) => at.startsWith(seat));
    const cards = positions.map((at) => cardItem(at, dealt.get(at)));
    hand.querySelector(".hand__cards").replaceChildren(...cards);
    setText(hand.querySelector(".hand__name"), name ? words(name) : "");
    const wins = result !== null && result.winner === `player_${seat.toLowerCase()}`;
    hand.classList.toggle("hand--winner", wins);
  }
  let text = "";
  if (result) {
    const bonus = result.six_card_bonus_hand
      ? ` · 6 Card Bonus: ${words(result.six_card_bonus_hand)}`
      : "";
    const wins = result.winner === "tie" ? "" : " wins";
    const hands = `${words(result.player_a_hand)} against ${words(result.player_b_hand)}`;
    text = `Result: ${winnerName(result.winner)}${wins} (${hands})${bonus}`;
  } else if (round?.phase === "cancelled") {
    text = `Round cancelled after ${round.cards.length} card(s).`;
  } else if (round?.phase === "dealing") {
    text = `Dealing: ${round.cards.length} of 6 cards.`;
  }
  setText(page.result, text);
}

// ------------------------------------------------------------------------------ stakes
async function refreshStakes() {
  const watched = live;
  const round = watched?.state?.round;
  if (!round) {
    renderStakes(null);
    return;
  }
  // polled while bets are taken; read once more when betting closes, then left as it is
  const settledOnce = round.phase !== "betting" && watched.stakesRound === round.round_id;
  if (settledOnce) return;
  let stakes;
  try {
    stakes = await api.get("wallet", `/rounds/${encodeURIComponent(round.round_id)}/stakes`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) {
      if (live === watched) setText(page.stakesNote, `The bets cannot be read: ${error.message}`);
      throw error;
    }
    stakes = { round_id: round.round_id, by_currency: {} }; // no bet yet
  }
  if (live !== watched) return;
  if (round.phase !== "betting") watched.stakesRound = round.round_id;
  renderStakes(stakes, round);
}

function renderStakes(stakes, round) {
  const body = page.stakes.tBodies[0];
  if (stakes === null) {
    body.replaceChildren();
    setText(page.stakesNote, "No round yet.");
    return;
  }
  const currencies = Object.keys(stakes.by_currency ?? {}).sort();
  const rows = [];
  if (currencies.length === 0) {
    for (const bet of BET_TYPES) rows.push(stakeRow(bet, 0, null, null));
  }
  for (const currency of currencies) {
    if (currencies.length > 1) {
      const heading = el("th", { scope: "rowgroup", colspan: 3, text: currency });
      rows.push(el("tr", { class: "group" }, heading));
    }
    const byBet = stakes.by_currency[currency];
    for (const bet of BET_TYPES) {
      const line = byBet[bet] ?? { bets: 0, staked: 0 };
      rows.push(stakeRow(bet, line.bets, line.staked, currency));
    }
  }
  body.replaceChildren(...rows);
  const when = round.phase === "betting"
    ? "updated every 2 s while bets are taken"
    : "final: betting closed";
  setText(page.stakesNote, `Round ${round.number}, ${when}.`);
}

function stakeRow(bet, count, staked, currency) {
  return el(
    "tr",
    { dataset: { betType: bet } },
    el("th", { scope: "row", text: betName(bet) }),
    el("td", { class: "num", text: String(count) }),
    el("td", {
      class: "num",
      text: currency === null ? "–" : `${formatAmount(staked, currency)} ${currency}`,
    }),
  );
}

// ----------------------------------------------------------------------------- scanner
async function refreshScans() {
  const watched = live;
  if (watched === null) return;
  let answer;
  try {
    const path = `/tables/${encodeURIComponent(watched.tableId)}/scans?limit=20`;
    answer = await api.get("scanner", path);
  } catch (error) {
    if (live === watched) {
      setText(page.scansNote, `The scanner's reads cannot be read: ${error.message}`);
    }
    throw error;
  }
  if (live !== watched) return;
  page.devices.replaceChildren(
    ...(answer.devices ?? []).map((device) =>
      el(
        "li",
        { class: `device device--${device.status}` },
        el("strong", { text: device.device_id }),
        ` ${words(device.status)}`,
        device.last_seen_at ? ` · last read ${time(device.last_seen_at)}` : " · no read yet",
      ),
    ),
  );
  if ((answer.devices ?? []).length === 0) {
    const none = "No scanner is registered to this table.";
    page.devices.replaceChildren(el("li", { class: "device device--none", text: none }));
  }
  page.scans.tBodies[0].replaceChildren(
    ...(answer.scans ?? []).map((scan) =>
      el(
        "tr",
        { class: `scan scan--${scan.verdict}` },
        el("td", {}, el("time", { datetime: scan.scanned_at, text: time(scan.scanned_at) })),
        el("td", {}, el("code", { text: scan.raw })),
        el("td", { text: scan.card ? card(scan.card).label : "–" }),
        el("td", { class: "scan__verdict", text: verdictName(scan) }),
        el("td", {
          text: [scan.reason ? words(scan.reason) : "", scan.detail ?? ""]
            .filter(Boolean)
            .join(": "),
        }),
      ),
    ),
  );
  renderRefusals(watched);
}

// What became of a read, in the words of the studio: the gateway's own status when it gives
// one (a `rescan` is a misread: the dealer reads the card again), else the verdict.
const READ_STATUSES = {
  registered: "Dealt",
  rescan: "Misread",
  refused: "Refused",
  duplicate: "Read twice",
  rejected: "Rejected",
  pending: "Pending",
};

function verdictName(scan) {
  const named = READ_STATUSES[scan.status];
  if (named === "Dealt" && scan.position) return `Dealt at ${scan.position}`;
  if (named !== undefined) return named;
  return scan.verdict === "rejected" && scan.card === null ? "Misread" : words(scan.verdict);
}

function renderRefusals(watched) {
  if (watched.refusals.length === 0) {
    setText(page.scansNote, "No card refused by the table lately.");
    return;
  }
  const last = watched.refusals[0];
  setText(
    page.scansNote,
    `Refused by the table: ${watched.refusals.length} lately; last at`
      + ` ${time(last.occurred_at)}, ${words(last.payload.reason)}: ${last.payload.detail}`,
  );
}

// --------------------------------------------------------------------------- last rounds
async function refreshRounds() {
  const watched = live;
  if (watched === null) return;
  let answer;
  try {
    const path = `/tables/${encodeURIComponent(watched.tableId)}/results?limit=${ROUNDS_LISTED}`;
    answer = await api.get("table", path);
  } catch (error) {
    if (live === watched) {
      setText(page.roundsNote, `The last rounds cannot be read: ${error.message}`);
    }
    throw error;
  }
  if (live !== watched) return;
  watched.results = answer.results ?? [];
  renderRounds(watched);
}

function roundNumber(roundId) {
  return Number.parseInt(String(roundId).split("-").pop(), 10);
}

function renderRounds(watched) {
  if (watched.results === null) return;
  const asked = new Map((watched.state?.result_voids ?? []).map((a) => [a.round_id, a]));
  const shown = JSON.stringify([watched.results, [...asked]]);
  if (shown === watched.roundsShown) return; // unchanged: leave focus and buttons alone
  watched.roundsShown = shown;
  const focused = document.activeElement?.closest?.("#rounds [data-round-action]");
  const keep = focused ? [focused.dataset.roundAction, focused.dataset.roundId] : null;
  page.rounds.tBodies[0].replaceChildren(
    ...watched.results.map((result) => roundRow(result, asked.get(result.round_id))),
  );
  if (keep) {
    const [action, roundId] = keep;
    page.rounds
      .querySelector(`[data-round-action="${action}"][data-round-id="${CSS.escape(roundId)}"]`)
      ?.focus();
  }
  setText(page.roundsNote, watched.results.length === 0 ? "No round has ended yet." : "");
}

function resultText(result) {
  if (result.status === "cancelled" || !result.winner) {
    return `Cancelled after ${result.cards.length} card(s)`;
  }
  const wins = result.winner === "tie" ? "" : " wins";
  const hands = `${words(result.player_a?.hand)} against ${words(result.player_b?.hand)}`;
  return `${winnerName(result.winner)}${wins} (${hands})`;
}

function roundRow(result, asked) {
  const voided = result.status === "voided";
  const dealt = resultText(result);
  const shownResult = voided
    ? [el("s", { text: dealt }), ` voided at ${time(result.voided_at)}: ${result.void_reason}`]
    : [dealt];
  return el(
    "tr",
    { class: `round round--${result.status}`, dataset: { roundId: result.round_id } },
    el("th", { scope: "row", text: String(result.number) }),
    el("td", {}, el("time", { datetime: result.ended_at, text: time(result.ended_at) })),
    el("td", { class: "round__result" }, ...shownResult),
    el("td", { text: result.cards.map((c) => card(c).label).join(" ") }),
    el("td", {}, voidCell(result, asked)),
  );
}

function voidCell(result, asked) {
  if (result.status === "voided") return "Voided";
  if (result.status !== "closed") return "–";
  const button = (action, text, danger) => el("button", {
    type: "button",
    class: `button button--small${danger ? " button--danger" : ""}`,
    dataset: { roundAction: action, roundId: result.round_id },
    text,
  });
  if (asked) {
    return el(
      "div",
      { class: "round__void-actions" },
      el("span", {
        class: "round__pending",
        text: `Void asked by ${asked.requested_by}: ${asked.reason}`,
      }),
      button("confirm", "Confirm void", true),
      button("reject", "Reject", false),
    );
  }
  return button("void", "Void result", true);
}

const ROUND_ACTIONS = {
  void: {
    title: (r) => `Void the result of round ${r.number}?`,
    text: (r) => `${resultText(r)} stands until two supervisors void it. Yours is the first:`
      + " a request another supervisor confirms. Once voided, every bet of the round is"
      + " refunded and what it paid taken back.",
    confirm: "Void result",
    path: "void",
    danger: true,
  },
  confirm: {
    title: (r) => `Confirm the void of round ${r.number}?`,
    text: (r, asked) => `${asked.requested_by} asked to void ${resultText(r)} (${asked.reason}).`
      + " Confirming voids the round: every bet refunded, what it paid taken back. It takes"
      + ` another supervisor than ${asked.requested_by}.`,
    confirm: "Confirm void",
    path: "void",
    danger: true,
  },
  reject: {
    title: (r) => `Reject the void of round ${r.number}?`,
    text: (r, asked) => `${asked.requested_by}'s request (${asked.reason}) is dropped: the`
      + ` result stands (${resultText(r)}).`,
    confirm: "Reject void",
    path: "void/reject",
    danger: false,
  },
};

async function onRoundAction(event) {
  const button = event.target.closest("[data-round-action]");
  const watched = live;
  if (!button || watched === null || watched.results === null) return;
  const result = watched.results.find((r) => r.round_id === button.dataset.roundId);
  if (!result) return;
  const asked = (watched.state?.result_voids ?? []).find((a) => a.round_id === result.round_id);
  const action = ROUND_ACTIONS[button.dataset.roundAction];
  setText(page.actionStatus, "");
  await confirm.ask({
    title: action.title(result),
    text: action.text(result, asked ?? { requested_by: "another supervisor", reason: "" }),
    confirmLabel: action.confirm,
    reason: "required",
    danger: action.danger,
    returnFocus: button,
    run: async (reason) => {
      const path = `/tables/${encodeURIComponent(watched.tableId)}/rounds/`
        + `${encodeURIComponent(result.round_id)}/${action.path}`;
      const answer = await api.post("table", path, { reason });
      const done = {
        requested: `Void of round ${result.number} requested: another supervisor must confirm`
          + " it.",
        voided: `Round ${result.number} voided: every bet refunded, what it paid taken back.`,
        rejected: `The void of round ${result.number} was rejected: the result stands.`,
      }[answer.body.status];
      announce(done);
      setText(page.actionStatus, done);
      if (live === watched) {
        soon(refreshRounds);
        refreshLiveState(watched);
      }
    },
  });
}

// ----------------------------------------------------------------------------- PAR sheet
async function loadParSheet(watched) {
  page.parChart.replaceChildren();
  page.parTables.replaceChildren();
  showMessage(page.parError, "");
  try {
    const path = `/tables/${encodeURIComponent(watched.tableId)}/par-sheet`;
    const sheet = await api.get("table", path);
    if (live !== watched) return;
    page.parChart.replaceChildren(parChart(sheet));
    page.parTables.replaceChildren(...parTables(sheet));
  } catch (error) {
    if (live === watched) {
      showMessage(page.parError, `The PAR sheet cannot be read: ${error.message}`);
    }
  }
}

// ---------------------------------------------------------------------------- problems
async function refreshProblems() {
  let answer;
  try {
    answer = await api.get("console", "/problems");
  } catch (error) {
    setText(page.problemsSummary, `The problems cannot be read: ${error.message}`);
    throw error;
  }
  const { summary, items } = problemsView(answer, {
    canWatch: (tableId) => tables.has(tableId) && live?.tableId !== tableId,
    watch,
  });
  setText(page.problemsSummary, summary);
  page.problemsList.replaceChildren(...items);
}

// ----------------------------------------------------------------------------- actions
const ACTIONS = {
  pause: {
    title: "Pause the round?",
    text: (s) => {
      const stops = s.round.phase === "betting"
        ? "the betting clock stops with the time left"
        : "the dealer waits";
      return `Round ${s.round.number} of ${s.table_id} stops: ${stops} until a supervisor`
        + " resumes it.";
    },
    confirm: "Pause round",
    reason: "required",
    done: (s) => `Round ${s.round?.number} paused.`,
  },
  resume: {
    title: "Resume the round?",
    text: (s) => `Round ${s.round.number} of ${s.table_id} goes on where it stopped.`,
    confirm: "Resume round",
    reason: "optional",
    done: (s) => `Round ${s.round?.number} resumed.`,
  },
  cancel: {
    title: "Cancel the round?",
    text: (s) => {
      if (s.round.cards.length === 0) {
        return `Round ${s.round.number} is voided and every bet refunded.`;
      }
      const whose = s.round.void_requested_by
        ? "second, confirming"
        : "first: a request another supervisor confirms";
      return `${s.round.cards.length} card(s) of round ${s.round.number} are dealt: voiding it`
        + ` takes two supervisors. Yours is the ${whose}. Every bet is refunded.`;
    },
    confirm: "Cancel round",
    reason: "required",
    danger: true,
    done: (s, status) => (status === 202
      ? `Void requested by ${s.round?.void_requested_by}: another supervisor must cancel the`
        + " round too."
      : `Round ${s.round?.number} cancelled; every bet refunded.`),
  },
  "mark-wrong": {
    title: "Mark a dealt card wrong?",
    text: (s) => `Round ${s.round.number} of ${s.table_id} stops at once: no card is dealt`
      + " until another supervisor resumes it (the card stands) or two cancel it (every bet"
      + " refunded).",
    choice: (s) => ({ label: "Card", options: s.round.cards.map((c) => c.position) }),
    path: (choice) => `cards/${encodeURIComponent(choice)}/wrong`,
    confirm: "Mark card wrong",
    reason: "required",
    danger: true,
    done: (s) => `Card ${s.round?.card_marked_wrong} marked wrong: the round is paused.`,
  },
  rescan: {
    title: "Take the card back and re-scan?",
    text: (s) => `Card ${s.round.card_marked_wrong} and every card dealt after it are taken`
      + ` back, and the dealer deals again from ${s.round.card_marked_wrong}. It takes another`
      + ` supervisor than ${s.round.card_marked_wrong_by}, who marked it.`,
    confirm: "Take back and re-scan",
    reason: "required",
    done: (s) => `Round ${s.round?.number} goes on: the dealer deals again.`,
  },
  "replace-deck": {
    title: "Replace the deck?",
    text: (s) => `Confirm that the deck of ${s.table_id} was replaced after a card was exposed;`
      + " the round may then resume.",
    confirm: "Deck replaced",
    reason: "required",
    done: () => "Deck replaced: resume the round.",
  },
  "video-lost": {
    title: "Report the video lost?",
    text: (s) => {
      const round = s.round;
      let now = "No new round opens until the video is restored.";
      if (inPlay(round) && round.cards.length === 0) {
        now = `Round ${round.number} has no card dealt: it is cancelled and every bet refunded.`
          + ` ${now}`;
      } else if (inPlay(round)) {
        now = `Round ${round.number} has cards dealt: it plays to its result. ${now}`;
      }
      return `${s.config?.name ?? s.table_id}: ${now}`;
    },
    confirm: "Video lost",
    reason: "required",
    danger: true,
    done: (s) => (s.round?.phase === "cancelled"
      ? `Video lost: round ${s.round.number} cancelled, every bet refunded.`
      : "Video lost: no new round opens until it is restored."),
  },
  "video-restored": {
    title: "Report the video restored?",
    text: (s) => `${s.config?.name ?? s.table_id} opens rounds again.`,
    confirm: "Video restored",
    reason: "optional",
    done: () => "Video restored: rounds open again.",
  },
  close: {
    title: "Close the table?",
    text: (s) => `${s.config?.name ?? s.table_id} stops opening rounds. A round in play`
      + " completes first.",
    confirm: "Close table",
    reason: "required",
    danger: true,
    done: (s) => `Table ${s.table_id} closed.`,
  },
};

async function onAction(event) {
  const button = event.target.closest("[data-action]");
  if (!button || live?.state === null || live === null) return;
  const action = ACTIONS[button.dataset.action];
  const watched = live;
  const state = watched.state;
  setText(page.actionStatus, "");
  await confirm.ask({
    title: action.title,
    text: action.text(state),
    confirmLabel: action.confirm,
    reason: action.reason,
    choice: action.choice ? action.choice(state) : null,
    danger: action.danger ?? false,
    returnFocus: button,
    run: async (reason, choice) => {
      const body = reason ? { reason } : action.reason === "optional" ? {} : { reason };
      const what = action.path ? action.path(choice) : button.dataset.action;
      const path = `/tables/${encodeURIComponent(state.table_id)}/${what}`;
      const answer = await api.post("table", path, body);
      if (live === watched) showState(answer.body);
      const message = action.done(answer.body, answer.status);
      announce(message);
      setText(page.actionStatus, message);
    },
  });
}

// ------------------------------------------------------------------------ open a table
const openDialog = byId("open-dialog");
const openForm = byId("open-form");
const openError = byId("open-error");

function limitsHint() {
  const currency = byId("open-currency").value.trim().toUpperCase();
  const min = Number.parseInt(byId("open-min").value, 10);
  const max = Number.parseInt(byId("open-max").value, 10);
  if (!/^[A-Z]{3}$/.test(currency) || !Number.isInteger(min) || !Number.isInteger(max)) {
    setText(byId("open-limits-hint"), "Stakes are in the currency's minor units (100 = 1.00 INR).");
    return;
  }
  const range = `${formatAmount(min, currency)} to ${formatAmount(max, currency)} ${currency}`;
  setText(byId("open-limits-hint"), `Every bet type from ${range}.`);
}

function openTableForm() {
  showMessage(openError, "");
  limitsHint();
  openDialog.showModal();
  byId("open-id").focus();
}

function readOpenForm() {
  const value = (id) => byId(id).value.trim();
  const tableId = value("open-id");
  const name = value("open-name") || tableId;
  const currency = value("open-currency").toUpperCase();
  const betting = Number(value("open-betting"));
  const pause = Number(value("open-pause"));
  const min = Number(value("open-min"));
  const max = Number(value("open-max"));
  const wrong = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/.test(tableId)) {
    wrong.push("a table id of up to 32 letters, digits, - or _ (starting with a letter or digit)");
  }
  if (!(betting > 0)) wrong.push("a betting time above 0");
  if (!(pause >= 0) || value("open-pause") === "") wrong.push("a result time of 0 or more");
  if (!/^[A-Z]{3}$/.test(currency)) wrong.push("a currency code of three letters");
  if (!Number.isInteger(min) || min < 1) wrong.push("a minimum stake of at least 1 minor unit");
  if (!Number.isInteger(max) || max < min) wrong.push("a maximum stake not below the minimum");
  if (wrong.length) throw new Error(`The table needs ${wrong.join(", ")}.`);
  const perBet = Object.fromEntries(BET_TYPES.map((bet) => [bet, { min, max }]));
  return {
    table_id: tableId,
    name,
    betting_seconds: betting,
    result_pause_seconds: pause,
    limits: { [currency]: perBet },
  };
}

async function onOpenSubmit(event) {
  event.preventDefault();
  let body;
  try {
    body = readOpenForm();
  } catch (error) {
    showMessage(openError, error.message);
    return;
  }
  openDialog.close();
  const [currency] = Object.keys(body.limits);
  const { min, max } = body.limits[currency].player_a;
  const confirmed = await confirm.ask({
    title: `Open table ${body.table_id}?`,
    text: `${body.name}: ${body.betting_seconds} s of betting, result shown`
      + ` ${body.result_pause_seconds} s, stakes ${formatAmount(min, currency)} to`
      + ` ${formatAmount(max, currency)} ${currency} on every bet type, the published pay`
      + " table. Rounds start at once.",
    confirmLabel: "Open table",
    reason: null,
    returnFocus: page.openTable,
    run: async () => {
      const answer = await api.post("table", "/tables", body);
      const message = {
        201: `Table ${body.table_id} opened.`,
        200: `Table ${body.table_id} was open already: this configuration applies from its`
          + " next round.",
        202: `The limits and pay table of ${body.table_id} are proposed: another supervisor`
          + " approves them before they apply.",
      }[answer.status] ?? `Table ${body.table_id}: done.`;
      announce(message);
      soon(refreshTables);
      watch(body.table_id);
    },
  });
  if (!confirmed) openDialog.showModal();
}

// ------------------------------------------------------------------------------ wiring
page.loginForm.addEventListener("submit", onLogin);
page.logout.addEventListener("click", () => logOut());
page.liveTable.querySelector(".actions").addEventListener("click", onAction);
page.rounds.addEventListener("click", onRoundAction);
page.openTable.addEventListener("click", openTableForm);
openForm.addEventListener("submit", onOpenSubmit);
openForm.addEventListener("input", limitsHint);
byId("open-cancel").addEventListener("click", () => openDialog.close());

const stored = window.sessionStorage.getItem(KEY_STORAGE);
if (stored) {
  logIn(stored)
    .then((restored) => {
      api = restored;
      start();
    })
    .catch((error) => logOut(error.message));
} else {
  page.loginKey.focus();
}
