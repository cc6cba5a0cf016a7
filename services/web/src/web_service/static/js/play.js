// The player view (`/play/{table_id}`): one player's seat at one table, opened from the
// operator's launch URL. It reads the table's state and live feed, places the player's bets
// through the wallet with the player's own session, and shows what each bet returned.
// Everything it knows comes from the services' answers; it decides nothing about money.

import { cardElement, POSITIONS } from "./play/cards.js";
import { chipValues } from "./play/chips.js";
import { PlayerFeed } from "./play/feed.js";
import { amount, formatTime, money } from "./play/format.js";
import {
  bonusText,
  renderGames,
  renderRoadmap,
  roundDetail,
  showRoadmapResult,
  wagerTable,
} from "./play/history.js";
import {
  newIdempotencyKey,
  openSession,
  PlayerApi,
  ProblemError,
  SessionEndedError,
} from "./play/session.js";
import { betName, currentLanguage, handName, loadTexts, t, winnerName } from "./play/texts.js";

const BET_TYPES = ["player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus"];
const RETURNS_POLL_MS = 750;
const RETURNS_POLL_TRIES = 80;
const VOID_REFRESH_MS = [1500, 5000];

const $ = (id) => document.getElementById(id);
const tableId = window.location.pathname.split("/").filter(Boolean).pop();

const view = {
  session: null,
  api: null,
  feed: null,
  table: null, // the table's state (GET /api/play/table), kept current by the feed
  version: 0, // the table position `table` holds
  skewMs: Number.NEGATIVE_INFINITY, // the server's clock minus ours: a lower bound, from answers
  chip: null,
  staged: {}, // bet type -> stake chosen, not yet placed
  lastStagedRound: null, // the round the staged stakes are for
  placed: {}, // round id -> bet type -> stake placed this session
  slipKey: null, // the Idempotency-Key of the slip being sent, kept for its retry
  sending: false,
  pendingRounds: new Set(), // rounds with the player's bets whose returns are not shown yet
  endedRounds: new Set(), // rounds the feed said are closed or cancelled
  roundNumbers: {}, // round id -> number, for titles
  watching: false,
  balance: null,
};

// ------------------------------------------------------------------------------ clock
function learnClock(serverIso, receivedAt = Date.now()) {
  const server = Date.parse(serverIso);
  if (!Number.isNaN(server)) view.skewMs = Math.max(view.skewMs, server - receivedAt);
}

function serverNow() {
  return Date.now() + (Number.isFinite(view.skewMs) ? view.skewMs : 0);
}

function secondsLeft(round) {
  if (!round?.betting_closes_at) return null;
  return Math.max(0, Math.ceil((Date.parse(round.betting_closes_at) - serverNow()) / 1000));
}

// ------------------------------------------------------------------------------ state
function bettingOpen() {
  const table = view.table;
  const round = table?.round;
  if (!table || table.status !== "open" || !round) return false;
  return round.phase === "betting" && !round.paused && secondsLeft(round) > 0;
}

function limitsForMe() {
  return view.table?.config?.limits?.[view.session.currency] ?? {};
}

/** The feed's event applied to the table's state, as the table service evolves it. */
function apply(message) {
  const table = view.table;
  const p = message.payload;
  const round = table.round;
  switch (message.event_type) {
    case "TableOpened":
      table.status = "open";
      table.config = {
        name: p.name,
        betting_seconds: p.betting_seconds,
        result_pause_seconds: p.result_pause_seconds,
        limits: p.limits,
        paytable: p.paytable,
      };
      break;
    case "TableClosed":
      table.status = "closed";
      break;
    case "RoundOpened":
      table.round = {
        round_id: p.round_id,
        number: p.number,
        phase: "betting",
        betting_closes_at: p.betting_closes_at,
        paused: false,
        cards: [],
        result: null,
      };
      if (table.config) Object.assign(table.config, { limits: p.limits, paytable: p.paytable });
      break;
    case "BettingClosed":
      if (round?.round_id === p.round_id) round.phase = "dealing";
      break;
    case "CardDealt":
      if (round?.round_id === p.round_id) round.cards.push({ position: p.position, card: p.card });
      break;
    case "CardsWithdrawn": // taken back by the studio: dealt again from the first of them
      if (round?.round_id === p.round_id) {
        round.cards = round.cards.filter((c) => !p.positions.includes(c.position));
      }
      break;
    case "RoundPaused":
      if (round?.round_id === p.round_id) {
        round.paused = true;
        if (round.phase === "betting") round.betting_closes_at = null;
      }
      break;
    case "RoundResumed":
      if (round?.round_id === p.round_id) {
        round.paused = false;
        if (p.betting_closes_at) round.betting_closes_at = p.betting_closes_at;
      }
      break;
    case "RoundCancelled":
      if (round?.round_id === p.round_id) round.phase = "cancelled";
      break;
    case "RoundVoided": // voided after its result: every bet refunded, the result kept
      if (round?.round_id === p.round_id) round.voided = true;
      break;
    case "RoundClosed":
      if (round?.round_id === p.round_id) {
        round.phase = "closed";
        round.result = {
          cards: p.cards,
          player_a_hand: p.player_a_hand,
          player_b_hand: p.player_b_hand,
          winner: p.winner,
          six_card_bonus_hand: p.six_card_bonus_hand,
        };
      }
      break;
    default:
      break;
  }
}

function onFeedMessage(message) {
  learnClock(message.occurred_at);
  // an event the refetched state already holds still tells that a round ended while away
  const fresh = message.position > view.version;
  if (fresh) {
    apply(message);
    view.version = message.position;
  }
  const p = message.payload;
  if (message.event_type === "RoundOpened") {
    view.roundNumbers[p.round_id] = p.number;
    if (view.lastStagedRound && view.lastStagedRound !== p.round_id) clearStaged();
    if (fresh) clearSlipMessage();
  }
  if (message.event_type === "RoundClosed" || message.event_type === "RoundCancelled") {
    view.endedRounds.add(p.round_id);
    refreshRoadmap(p.round_id);
    if (view.pendingRounds.has(p.round_id)) watchReturns();
  }
  if (message.event_type === "RoundVoided") {
    refreshRoadmap(p.round_id);
    // the wallet puts the player's bets right a moment after the void
    for (const ms of VOID_REFRESH_MS) window.setTimeout(refreshAfterVoid, ms);
  }
  render();
}

function refreshAfterVoid() {
  refreshBalance().catch(() => {});
  refreshGames();
}

// ------------------------------------------------------------------------------ render
function setText(id, text) {
  const node = $(id);
  if (node.textContent !== text) node.textContent = text;
}

function phaseText(table) {
  const round = table.round;
  if (table.status === "closed") return t("phase.table_closed");
  if (!round) return t("phase.waiting");
  if (round.paused) return t("phase.paused");
  switch (round.phase) {
    case "betting":
      return secondsLeft(round) > 0 ? t("phase.betting") : t("phase.closing");
    case "dealing":
      return t("phase.dealing");
    case "closed":
      return t("phase.closed");
    case "cancelled":
      return t("phase.cancelled");
    default:
      return round.phase;
  }
}

function renderStatus() {
  const table = view.table;
  const round = table.round;
  setText("table-name", table.config?.name ? `${t("title")} · ${table.config.name}` : t("title"));
  setText("round-heading", round ? t("round.number", { number: round.number }) : t("round.none"));
  setText("phase", phaseText(table));
  $("phase").dataset.phase =
    table.status === "closed" ? "table_closed" : (round?.phase ?? "waiting");
  renderCountdown();
}

function renderCountdown() {
  const round = view.table?.round;
  const countdown = $("countdown");
  const left = round && round.phase === "betting" && !round.paused ? secondsLeft(round) : null;
  countdown.hidden = left === null;
  if (left !== null) {
    setText("countdown", t("countdown", { seconds: left }));
    countdown.classList.toggle("countdown-urgent", left <= 5);
  }
}

function renderCards() {
  const round = view.table.round;
  const dealt = new Map((round?.cards ?? []).map((dealt) => [dealt.position, dealt.card]));
  for (const position of POSITIONS) {
    const slot = document.querySelector(`.card-slot[data-position="${position}"]`);
    const card = dealt.get(position);
    const shown = slot.firstElementChild?.dataset.card;
    if (card === shown) continue;
    slot.replaceChildren();
    if (card) {
      const face = cardElement(card);
      face.classList.add("pcard-dealt");
      slot.append(face);
    }
    slot.setAttribute("aria-label", card ? `${position}` : t("cards.waiting", { position }));
  }
  const result = round?.phase === "closed" ? round.result : null;
  for (const side of ["player_a", "player_b"]) {
    const hand = result ? result[`${side}_hand`] : null;
    const category = document.querySelector(`[data-category="${side}"]`);
    category.textContent = hand ? handName(hand) : "";
    const box = document.querySelector(`[data-hand="${side}"]`);
    const wins = !round?.voided && (result?.winner === side || result?.winner === "tie");
    box.classList.toggle("hand-winner", wins);
  }
  let winner = "";
  let bonus = "";
  if (result && round.voided) {
    winner = t("round.voided");
  } else if (result) {
    winner = winnerName(result.winner);
    bonus = bonusText(result.six_card_bonus_hand);
  } else if (round?.phase === "cancelled") {
    winner = t("round.cancelled");
  }
  setText("outcome-winner", winner);
  setText("outcome-bonus", bonus);
}

function renderSpots() {
  const open = bettingOpen() && !view.sending && view.chip !== null;
  const limits = limitsForMe();
  const round = view.table.round;
  const placed = (round && view.placed[round.round_id]) || {};
  const currency = view.session.currency;
  for (const betType of BET_TYPES) {
    const spot = document.querySelector(`.spot[data-bet-type="${betType}"]`);
    spot.disabled = !open;
    const staged = view.staged[betType] ?? 0;
    const mine = placed[betType] ?? 0;
    const limit = limits[betType];
    spot.querySelector(".spot-pays").textContent = paysText(view.table.config?.paytable?.[betType]);
    spot.querySelector(".spot-limits").textContent = limit
      ? t("spot.limits", { min: money(limit.min, currency), max: money(limit.max, currency) })
      : "";
    spot.querySelector(".spot-staged").textContent = staged
      ? t("spot.staged", { amount: money(staged, currency) })
      : "";
    spot.querySelector(".spot-placed").textContent = mine
      ? t("spot.placed", { amount: money(mine, currency) })
      : "";
    spot.classList.toggle("spot-has-stake", staged > 0);
    spot.classList.toggle("spot-has-bet", mine > 0);
  }
  const anyStaged = Object.values(view.staged).some((stake) => stake > 0);
  $("place").disabled = !open || !anyStaged;
  $("clear").disabled = view.sending || !anyStaged;
  for (const chip of document.querySelectorAll("#chips input")) chip.disabled = !open;
}

/** "Pays 0.95:1", or "Pays up to 1000:1" for a bet paying by the hand (pay table mapping). */
function paysText(pays) {
  if (typeof pays === "string") return t("spot.pays", { odds: pays });
  if (pays === null || typeof pays !== "object") return "";
  const odds = Object.values(pays).filter((value) => typeof value === "string");
  if (odds.length === 0) return "";
  // for display only: the largest of a few pay figures such as "1000" or "0.95"
  const best = odds.reduce((high, value) => (Number(value) > Number(high) ? value : high));
  return t("spot.pays_up_to", { odds: best });
}

function renderBalance() {
  setText("balance", view.balance === null ? "–" : amount(view.balance, view.session.currency));
}

function render() {
  if (!view.table) return;
  renderStatus();
  renderCards();
  renderSpots();
  renderBalance();
}

// ------------------------------------------------------------------------------ the slip
function buildSpots() {
  const spots = $("spots");
  spots.replaceChildren();
  for (const betType of BET_TYPES) {
    const spot = document.createElement("button");
    spot.type = "button";
    spot.className = `spot spot-${betType}`;
    spot.dataset.betType = betType;
    spot.dataset.testid = `spot-${betType}`;
    for (const part of ["name", "pays", "limits", "staged", "placed"]) {
      const line = document.createElement("span");
      line.className = `spot-${part}`;
      spot.append(line);
    }
    spot.querySelector(".spot-name").textContent = betName(betType);
    spot.addEventListener("click", () => stake(betType));
    spots.append(spot);
  }
}

function buildChips() {
  const chips = $("chips");
  chips.replaceChildren();
  const values = chipValues(limitsForMe());
  if (!values.includes(view.chip)) view.chip = values[0] ?? null;
  for (const value of values) {
    const label = document.createElement("label");
    label.className = "chip";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "chip";
    input.value = String(value);
    input.checked = value === view.chip;
    input.addEventListener("change", () => {
      view.chip = value;
    });
    const face = document.createElement("span");
    face.className = "chip-face";
    face.dir = "ltr";
    face.textContent = amount(value, view.session.currency);
    label.append(input, face);
    chips.append(label);
  }
  view.chipsFor = JSON.stringify(values);
  if (values.length === 0 && view.table?.round) {
    $("slip-message").dataset.kind = "refused";
    $("slip-message").dataset.code = "currency_not_accepted";
    setText("slip-message", t("refusal.currency_not_accepted"));
  }
}

function stake(betType) {
  if (!bettingOpen() || view.chip === null) return;
  view.staged[betType] = (view.staged[betType] ?? 0) + view.chip;
  view.lastStagedRound = view.table.round.round_id;
  view.slipKey = null; // another slip now: a new key
  setText("slip-message", "");
  renderSpots();
}

function clearSlipMessage() {
  const message = $("slip-message");
  delete message.dataset.kind;
  delete message.dataset.code;
  message.textContent = "";
}

function clearStaged() {
  view.staged = {};
  view.slipKey = null;
  renderSpots();
}

/** The refusal's reason in the player's words, from the problem's `code`. */
function refusalText(error, lines) {
  const limits = limitsForMe();
  const currency = view.session.currency;
  if (error.code === "below_minimum" || error.code === "above_maximum") {
    // the problem says which line in English; the limits say which in the player's words
    const below = error.code === "below_minimum";
    const line = lines.find(({ bet_type: betType, stake: staked }) => {
      const limit = limits[betType];
      return limit !== undefined && (below ? staked < limit.min : staked > limit.max);
    });
    if (line) {
      const limit = limits[line.bet_type];
      return t(`refusal.${error.code}_bet`, {
        bet: betName(line.bet_type),
        limit: money(below ? limit.min : limit.max, currency),
      });
    }
  }
  if (error.code === "exposure_limit" && typeof error.problem.left === "number") {
    return t("refusal.exposure_limit_left", { left: money(error.problem.left, currency) });
  }
  const known = t(`refusal.${error.code}`);
  return known === `refusal.${error.code}` ? t("refusal.other") : known;
}

async function placeBets() {
  const round = view.table.round;
  const lines = BET_TYPES.filter((betType) => view.staged[betType] > 0).map((betType) => ({
    bet_type: betType,
    stake: view.staged[betType],
  }));
  if (!round || lines.length === 0 || view.sending) return;
  view.slipKey ??= newIdempotencyKey();
  view.sending = true;
  delete $("slip-message").dataset.code;
  $("slip-message").dataset.kind = "pending";
  setText("slip-message", t("slip.sending"));
  renderSpots();
  try {
    const { body } = await view.api.request("POST", "/api/wallet/bets", {
      body: { round_id: round.round_id, bets: lines },
      headers: { "Idempotency-Key": view.slipKey },
    });
    const placed = (view.placed[body.round_id] ??= {});
    for (const bet of body.bets) placed[bet.bet_type] = (placed[bet.bet_type] ?? 0) + bet.stake;
    view.pendingRounds.add(body.round_id);
    view.balance = body.balance;
    view.staged = {};
    view.slipKey = null;
    $("slip-message").dataset.kind = "accepted";
    const total = lines.reduce((sum, line) => sum + line.stake, 0);
    setText("slip-message", t("slip.accepted", { amount: money(total, view.session.currency) }));
  } catch (error) {
    if (error instanceof ProblemError) {
      view.slipKey = null;
      $("slip-message").dataset.kind = "refused";
      $("slip-message").dataset.code = error.code;
      setText("slip-message", refusalText(error, lines));
      // the wallet knows the round moved on before the feed said so: catch up now
      if (error.code === "betting_closed") fetchTable().catch(() => {});
    } else if (!(error instanceof SessionEndedError)) {
      // no answer: the same slip may be sent again with the same key, and is taken once
      $("slip-message").dataset.kind = "refused";
      $("slip-message").dataset.code = "network";
      setText("slip-message", t("refusal.network"));
    }
  } finally {
    view.sending = false;
    render();
  }
}

// ------------------------------------------------------------------------------ returns
async function refreshBalance() {
  view.balance = (await view.api.get("/api/wallet/me/balance")).balance;
  renderBalance();
}

async function myBets() {
  return (await view.api.get("/api/wallet/me/bets?limit=50")).items;
}

/** The player's bets not paid yet, as the wallet has them: the stakes on the spots (after a
 * reload too) and the rounds whose returns are still to be shown. */
function rememberBets(bets) {
  const unpaid = {};
  for (const bet of bets) {
    if (bet.status === "paid") continue;
    const stakes = (unpaid[bet.round_id] ??= {});
    stakes[bet.bet_type] = (stakes[bet.bet_type] ?? 0) + bet.stake;
    view.pendingRounds.add(bet.round_id);
  }
  Object.assign(view.placed, unpaid);
}

const ENDED = new Set(["closed", "cancelled"]);

/** Rounds whose every bet of the player is paid: show the newest, keep waiting for others
 * while one of them has ended (its payment follows the result by a moment). */
async function watchReturns() {
  if (view.watching) return;
  view.watching = true;
  try {
    for (let attempt = 0; attempt < RETURNS_POLL_TRIES; attempt += 1) {
      if (view.pendingRounds.size === 0) break;
      const bets = await myBets();
      const byRound = new Map();
      for (const bet of bets) {
        if (!byRound.has(bet.round_id)) byRound.set(bet.round_id, []);
        byRound.get(bet.round_id).push(bet);
      }
      for (const [roundId, roundBets] of byRound) {
        if (ENDED.has(roundBets[0].round.status)) view.endedRounds.add(roundId);
      }
      if (![...view.pendingRounds].some((roundId) => view.endedRounds.has(roundId))) break;
      let shown = false;
      for (const roundId of [...view.pendingRounds]) {
        const roundBets = byRound.get(roundId) ?? [];
        if (roundBets.length > 0 && roundBets.every((bet) => bet.status === "paid")) {
          view.pendingRounds.delete(roundId);
          if (!shown) await showMyRound(roundId, roundBets);
          shown = true;
        }
      }
      if (shown) {
        refreshGames();
        continue;
      }
      await new Promise((resolve) => window.setTimeout(resolve, RETURNS_POLL_MS));
    }
  } catch (error) {
    if (!(error instanceof SessionEndedError)) window.setTimeout(watchReturns, 2000);
  } finally {
    view.watching = false;
  }
}

async function showMyRound(roundId, bets) {
  await refreshBalance();
  const currency = bets[0].currency;
  const round = bets[0].round;
  const staked = bets.reduce((sum, bet) => sum + bet.stake, 0);
  const returned = bets.reduce((sum, bet) => sum + (bet.returned ?? 0), 0);
  const section = $("my-round");
  const body = $("my-round-body");
  const number = view.roundNumbers[roundId];
  const title = document.createElement("p");
  title.className = "my-round-title";
  title.textContent = number ? t("round.number", { number }) : t("games.round_id", { id: roundId });
  const wagers = bets
    .slice()
    .sort((x, y) => BET_TYPES.indexOf(x.bet_type) - BET_TYPES.indexOf(y.bet_type))
    .map(({ bet_type, stake, outcome, returned }) => ({ bet_type, stake, outcome, returned }));
  const totals = document.createElement("p");
  totals.className = "my-round-totals";
  totals.dataset.testid = "my-round-totals";
  totals.textContent = t("myround.totals", {
    staked: money(staked, currency),
    returned: money(returned, currency),
  });
  const balance = document.createElement("p");
  balance.className = "my-round-balance";
  balance.dataset.testid = "my-round-balance";
  balance.textContent = t("myround.balance", { balance: money(view.balance, currency) });
  body.replaceChildren(
    title,
    roundDetail(round),
    wagerTable(wagers, currency, t("myround.heading")),
    totals,
    balance,
  );
  section.dataset.roundId = roundId;
  section.hidden = false;
}

// ------------------------------------------------------------------------------ history
async function refreshRoadmap(expectRoundId) {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      const page = await view.api.get("/api/play/results?limit=20");
      for (const result of page.results) view.roundNumbers[result.round_id] = result.number;
      const found = page.results.some((result) => result.round_id === expectRoundId);
      if (!expectRoundId || found || attempt === 7) {
        const detail = $("roadmap-detail");
        const pick = (picked) => showRoadmapResult(detail, picked);
        renderRoadmap($("roadmap"), detail, page.results, pick);
        return;
      }
    } catch (error) {
      if (error instanceof SessionEndedError) return;
    }
    await new Promise((resolve) => window.setTimeout(resolve, 500 * (attempt + 1)));
  }
}

async function refreshGames() {
  try {
    const page = await view.api.get("/api/wallet/me/games?limit=10");
    renderGames($("games"), page.games, formatTime);
  } catch (error) {
    if (error instanceof ProblemError) setText("games", t("games.unavailable"));
  }
}

// ------------------------------------------------------------------------------ connection
function showConnection(state) {
  const banner = $("connection");
  banner.dataset.state = state;
  banner.hidden = state === "live";
  banner.textContent = state === "live" ? "" : t(`connection.${state}`);
  document.body.classList.toggle("play-reconnecting", state === "reconnecting");
}

function showFatal(key) {
  view.feed?.stop();
  const fatal = $("fatal");
  fatal.textContent = t(key);
  fatal.hidden = false;
  $("connection").hidden = true;
  $("table").hidden = true;
}

async function fetchTable() {
  const answer = await view.api.request("GET", "/api/play/table");
  if (answer.date) learnClock(answer.date);
  const table = answer.body;
  if (table.round) {
    table.round.cards = table.round.cards ?? [];
    view.roundNumbers[table.round.round_id] = table.round.number;
  }
  view.table = table;
  view.version = table.version;
  if (view.lastStagedRound && view.lastStagedRound !== table.round?.round_id) clearStaged();
  if (view.chipsFor !== JSON.stringify(chipValues(limitsForMe()))) buildChips();
  render();
}

/** Before a reconnection: the table's state now, and what happened while away (a round
 * that ended meanwhile: its result and the player's returns). */
async function reopen() {
  await fetchTable();
  refreshRoadmap();
  rememberBets(await myBets());
  render();
  watchReturns();
}

/** The rules in the page's language with this table's pay table, in a new tab (the rules
 * page is never framed; the player view may be, in the operator's lobby). */
function showRulesLink() {
  let link = $("rules-link");
  if (link === null) {
    link = document.createElement("a");
    link.id = "rules-link";
    link.className = "play-rules";
    link.dataset.testid = "rules-link";
    link.target = "_blank";
    link.rel = "noopener";
    $("table-name").after(link);
  }
  const lang = currentLanguage();
  link.hreflang = lang;
  link.href = `/rules/${lang}?table=${encodeURIComponent(tableId)}`;
  link.textContent = t("rules.link");
}

// ------------------------------------------------------------------------------ start
async function start() {
  let opened;
  try {
    opened = await openSession(tableId);
  } catch (error) {
    // the address bar lost `lang` already: openSession hands it back
    await loadTexts(error.requestedLanguage ?? "en");
    showFatal(error instanceof SessionEndedError ? "session.none" : "session.error");
    return;
  }
  view.session = opened.session;
  await loadTexts(view.session.language ?? opened.requestedLanguage ?? "en");
  showRulesLink();
  view.api = new PlayerApi(view.session, () => showFatal("session.ended"));
  try {
    const me = await view.api.get("/api/wallet/me");
    if (me.language && me.language !== view.session.language) {
      view.session.language = me.language;
      await loadTexts(me.language);
      showRulesLink();
    }
    buildSpots();
    await fetchTable();
    await refreshBalance();
    rememberBets(await myBets());
    render();
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) showFatal("session.unknown_table");
    else if (!(error instanceof SessionEndedError)) showFatal("session.error");
    return;
  }
  $("table").hidden = false;
  $("place").addEventListener("click", placeBets);
  $("clear").addEventListener("click", clearStaged);
  window.setInterval(() => {
    if (!view.table) return;
    renderCountdown();
    const open = bettingOpen();
    if (open !== view.wasOpen) {
      view.wasOpen = open;
      renderStatus();
      renderSpots();
    }
  }, 250);
  refreshRoadmap();
  refreshGames();
  if (view.pendingRounds.size > 0) watchReturns();
  view.feed = new PlayerFeed(view.session.token, {
    opening: async (reconnecting) => {
      if (reconnecting) await reopen();
    },
    live: () => showConnection("live"),
    down: () => showConnection("reconnecting"),
    message: onFeedMessage,
    ended: (code) => showFatal(code === 4404 ? "session.unknown_table" : "session.ended"),
  });
  view.feed.start(view.version);
}

start();
