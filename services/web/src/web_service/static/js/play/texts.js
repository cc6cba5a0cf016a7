// The player view's words: its own texts (static/i18n/{lang}/play.json) over the game's
// (game.json: bet, hand, winner and outcome names), through i18n.js: the session's language,
// English for anything a language lacks.

import { language, setLanguage, t, translate } from "../i18n.js";

export { t };

/** Use `lang` on the page (English when it is not one of ours); fills `[data-i18n]`. */
export async function loadTexts(lang) {
  const chosen = await setLanguage(lang, ["play"]);
  applyTexts(document);
  return chosen;
}

export function currentLanguage() {
  return language();
}

export const betName = (betType) => t(`bet.${betType}`);
export const handName = (hand) => t(`hand.${hand}`);
export const bonusHandName = (hand) => t(`six_card_hand.${hand}`);
export const winnerName = (winner) => t(`winner.${winner}`);
export const outcomeName = (outcome) => t(`outcome.${outcome}`);

/** Fill every `[data-i18n]` element under `root` and every `[data-bet-name]` with its text. */
export function applyTexts(root = document) {
  translate(root);
  for (const element of root.querySelectorAll("[data-bet-name]")) {
    element.textContent = betName(element.dataset.betName);
  }
}
