// A table's events as the live list shows them: the time, the type, and what happened in a
// few words (who acted and why, the card dealt, the result).

import { el } from "./dom.js";
import { card, time, winnerName, words } from "./format.js";

export function eventItem(message) {
  return el(
    "li",
    { class: `event event--${message.event_type}` },
    el("time", { datetime: message.occurred_at, text: time(message.occurred_at) }),
    " ",
    el("span", { class: "event__type", text: message.event_type }),
    " ",
    el("span", { text: eventSummary(message) }),
  );
}

function eventSummary({ event_type: type, payload: p }) {
  switch (type) {
    case "TableOpened": return `${p.name} opened by ${p.actor}`;
    case "TableClosed": return `closed by ${p.actor}: ${p.reason}`;
    case "RoundOpened": return `round ${p.number}; betting closes at ${time(p.betting_closes_at)}`;
    case "BettingClosed": return "no more bets";
    case "CardDealt": return `${p.position}: ${card(p.card).label}`;
    case "CardRefused": return `${words(p.reason)}: ${p.detail}`;
    case "RoundPaused": return `by ${p.actor}: ${p.reason}`;
    case "RoundResumed": return `by ${p.actor}`;
    case "RoundCancelled": return `by ${p.actor} after ${p.cards_dealt} card(s): ${p.reason}`;
    case "VoidRequested": return `by ${p.actor}: ${p.reason}`;
    case "CardMarkedWrong": return `${p.position} by ${p.actor}: ${p.reason}`;
    case "CardsWithdrawn": return `${p.positions.join(" ")} taken back by ${p.actor}: ${p.reason}`;
    case "DeckReplaced": return `by ${p.actor}: ${p.reason}`;
    case "RoundClosed": {
      const wins = p.winner === "tie" ? "" : " wins";
      const hands = `${words(p.player_a_hand)} against ${words(p.player_b_hand)}`;
      return `${winnerName(p.winner)}${wins}: ${hands}`;
    }
    case "ResultVoidRequested": return `${p.round_id} by ${p.actor}: ${p.reason}`;
    case "ResultVoidRejected":
      return `${p.round_id} by ${p.actor} (asked by ${p.requested_by}): ${p.reason}`;
    case "RoundVoided": {
      const dealt = `${winnerName(p.winner)}${p.winner === "tie" ? "" : " wins"}`;
      return `${p.round_id} (${dealt}) by ${p.requested_by} and ${p.actor}: ${p.reason}`;
    }
    case "ConfigChangeProposed": return `by ${p.actor}, waiting for another supervisor`;
    case "ConfigChangeRejected": return `by ${p.actor}: ${p.reason}`;
    default: return "";
  }
}
