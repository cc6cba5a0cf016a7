// Cards as the table sends them ("10H", "AS": rank then suit) drawn as small faces, each with
// a spoken name for screen readers ("10 of hearts" in the page's language).

import { t } from "./texts.js";

const SUITS = {
  S: { symbol: "\u2660", red: false },
  H: { symbol: "\u2665", red: true },
  D: { symbol: "\u2666", red: true },
  C: { symbol: "\u2663", red: false },
};

/** Dealing order (rules: A1 B1 A2 B2 A3 B3). */
export const POSITIONS = ["A1", "B1", "A2", "B2", "A3", "B3"];

export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return t("card.name", { rank: t(`card.rank.${rank}`), suit: t(`card.suit.${suit}`) });
}

/** A card's face: `<span class="card">` with its rank and suit, named for assistive tech. */
export function cardElement(code) {
  const { rank, suit } = parseCard(code);
  const face = document.createElement("span");
  face.className = SUITS[suit]?.red ? "pcard pcard-red" : "pcard pcard-black";
  face.setAttribute("role", "img");
  face.setAttribute("aria-label", cardName(code));
  face.dataset.card = code;
  const rankText = document.createElement("span");
  rankText.className = "pcard-rank";
  rankText.textContent = rank;
  rankText.setAttribute("aria-hidden", "true");
  const suitText = document.createElement("span");
  suitText.className = "pcard-suit";
  suitText.textContent = SUITS[suit]?.symbol ?? suit;
  suitText.setAttribute("aria-hidden", "true");
  face.append(rankText, suitText);
  return face;
}

/** A row of small cards (a result in the roadmap or a past game). */
export function cardRow(codes) {
  const row = document.createElement("span");
  row.className = "pcard-row";
  for (const code of codes) row.append(cardElement(code));
  return row;
}

/** The six cards of a round split into the two hands, in dealing order. */
export function handsOf(cards) {
  return {
    player_a: cards.filter((_, index) => index % 2 === 0),
    player_b: cards.filter((_, index) => index % 2 === 1),
  };
}
