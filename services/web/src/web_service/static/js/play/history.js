// What already happened: the roadmap (the table's last results, oldest to newest, each a
// button that shows its cards; a round voided after its result shows the result it voided,
// struck through) and the player's last games (cards, hands, every wager and what it
// returned, the balance before and after, and what a void put right).

import { cardRow, handsOf } from "./cards.js";
import { amountElement, money } from "./format.js";
import { betName, bonusHandName, handName, outcomeName, t, winnerName } from "./texts.js";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "A", "B", "T" or "×" (void) for a result bead, in the page's language; a voided result's
 * letter is struck through by its style. */
function beadLetter(result) {
  if (result.status === "cancelled" || !result.winner) return t("roadmap.void_short");
  return t(`roadmap.short.${result.winner}`);
}

function resultSummary(result) {
  if (result.status === "cancelled" || !result.winner) {
    return t("roadmap.round_void", { number: result.number });
  }
  const key = result.status === "voided" ? "roadmap.round_voided" : "roadmap.round_result";
  return t(key, {
    number: result.number,
    winner: winnerName(result.winner),
    a: handName(result.player_a?.hand),
    b: handName(result.player_b?.hand),
  });
}

/** "6 Card Bonus: Full House", or that it has no winning hand. */
export function bonusText(hand) {
  const bet = betName("six_card_bonus");
  if (!hand) return t("result.no_bonus", { bet });
  return t("result.bonus", { bet, hand: bonusHandName(hand) });
}

/** The cards of one round with both hands named, its winner and its 6 Card Bonus hand. */
export function roundDetail(round) {
  const box = element("div", "round-detail");
  const cards = round.cards ?? [];
  const hands = handsOf(cards);
  for (const side of ["player_a", "player_b"]) {
    const line = element("p", "round-detail-hand");
    line.append(element("span", "round-detail-name", betName(side)), " ");
    line.append(cardRow(hands[side]));
    const hand = round[side]?.hand ?? round[`${side}_hand`];
    if (hand) line.append(" ", element("span", "round-detail-category", handName(hand)));
    box.append(line);
  }
  if (round.status === "cancelled") {
    box.append(element("p", "round-detail-outcome", t("round.cancelled")));
  } else if (round.status === "voided") {
    box.append(element("p", "round-detail-outcome", t("round.voided")));
    const dealt = element("p", "round-detail-voided", `${t("round.dealt_result")} `);
    if (round.winner) dealt.append(element("s", undefined, winnerName(round.winner)));
    box.append(dealt);
  } else if (round.winner) {
    box.append(element("p", "round-detail-outcome", winnerName(round.winner)));
    box.append(element("p", "round-detail-bonus", bonusText(round.six_card_bonus_hand)));
  }
  return box;
}

/** The roadmap: `results` newest first (as the API answers), drawn oldest first. */
export function renderRoadmap(list, detail, results, onPick) {
  list.replaceChildren();
  for (const result of [...results].reverse()) {
    const item = element("li", "roadmap-item");
    const kind = result.status === "cancelled" || !result.winner ? "void" : result.winner;
    const voided = result.status === "voided" ? " roadmap-voided" : "";
    const bead = element("button", `roadmap-bead roadmap-${kind}${voided}`);
    bead.type = "button";
    bead.textContent = beadLetter(result);
    bead.setAttribute("aria-label", resultSummary(result));
    bead.title = resultSummary(result);
    bead.dataset.roundId = result.round_id;
    bead.addEventListener("click", () => {
      for (const other of list.querySelectorAll("[aria-pressed]")) {
        other.setAttribute("aria-pressed", "false");
      }
      bead.setAttribute("aria-pressed", "true");
      onPick(result);
    });
    bead.setAttribute("aria-pressed", "false");
    item.append(bead);
    list.append(item);
  }
  if (results.length === 0) list.append(element("li", "roadmap-empty", t("roadmap.empty")));
  detail.replaceChildren();
}

export function showRoadmapResult(detail, result) {
  const title = element("h3", "roadmap-detail-title", resultSummary(result));
  detail.replaceChildren(title, roundDetail(result));
}

function amountCell(minor, currency, className) {
  const cell = element("td", `amount-cell ${className}`);
  if (minor === null || minor === undefined) cell.textContent = "–";
  else cell.append(amountElement(minor, currency));
  return cell;
}

/** One table of wagers: bet, stake, outcome, returned. */
export function wagerTable(wagers, currency, caption) {
  const table = element("table", "wagers");
  table.append(element("caption", "visually-hidden", caption));
  const head = element("tr");
  for (const key of ["wager.bet", "wager.stake", "wager.outcome", "wager.returned"]) {
    const cell = element("th", undefined, t(key));
    cell.scope = "col";
    head.append(cell);
  }
  const thead = element("thead");
  thead.append(head);
  table.append(thead);
  const body = element("tbody");
  for (const wager of wagers) {
    const row = element("tr");
    row.dataset.betType = wager.bet_type;
    const name = element("th", undefined, betName(wager.bet_type));
    name.scope = "row";
    row.append(
      name,
      amountCell(wager.stake, currency, "wager-stake"),
      element(
        "td",
        "wager-outcome",
        wager.outcome ? outcomeName(wager.outcome) : t("wager.pending"),
      ),
      amountCell(wager.returned, currency, "wager-returned"),
    );
    body.append(row);
  }
  table.append(body);
  return table;
}

function gameTitle(game, formatTime) {
  const when = game.ended_at ? formatTime(game.ended_at) : t("games.in_play");
  if (game.status === "cancelled") return t("games.title_void", { when });
  if (game.status === "voided") return t("games.title_voided", { when });
  if (!game.winner) return t("games.title_open", { when });
  return t("games.title", { when, winner: winnerName(game.winner) });
}

/** The player's last games, newest first, each a disclosure with all its details. */
export function renderGames(container, games, formatTime) {
  container.replaceChildren();
  if (games.length === 0) {
    container.append(element("p", "games-empty", t("games.empty")));
    return;
  }
  for (const game of games) {
    const item = element("details", "game");
    item.dataset.roundId = game.round_id;
    const summary = element("summary", "game-summary");
    summary.append(element("span", "game-title", gameTitle(game, formatTime)));
    const net =
      game.returned === null || game.returned === undefined
        ? t("games.staked_only", { staked: money(game.staked, game.currency) })
        : t("games.staked_returned", {
            staked: money(game.staked, game.currency),
            returned: money(game.returned, game.currency),
          });
    summary.append(element("span", "game-net", net));
    item.append(summary);
    if ((game.cards ?? []).length > 0) item.append(roundDetail(game));
    item.append(wagerTable(game.wagers ?? [], game.currency, t("games.wagers")));
    if (game.balance_before !== null && game.balance_before !== undefined) {
      item.append(
        element(
          "p",
          "game-balance",
          t("games.balance", {
            before: money(game.balance_before, game.currency),
            after: game.balance_after === null ? "–" : money(game.balance_after, game.currency),
          }),
        ),
      );
    }
    if (game.correction) {
      const text = t("games.correction", {
        refunded: money(game.correction.refunded, game.currency),
        reversed: money(game.correction.reversed, game.currency),
      });
      item.append(element("p", "game-correction", text));
    }
    item.append(element("p", "game-round-id", t("games.round_id", { id: game.round_id })));
    container.append(item);
  }
}
