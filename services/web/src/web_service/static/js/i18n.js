// The texts of the pages in five languages, English filling any gap key by key.
//
//   import { setLanguage, t } from "/static/js/i18n.js";
//   await setLanguage(session.language, ["play"]);   // game.json + play.json, <html lang dir>
//   label.textContent = t("hand.pair");              // "Pair", "คู่", "جفت", "ペア", "Пара"
//
// Files: /static/i18n/{lang}/game.json (hands, bets, winners, outcomes: the rules texts' own
// words) and a page's own file, e.g. play.json. Keys are flat ("bet.player_a"); a text may
// hold {name} placeholders, filled from t's second argument.

export const LANGUAGES = Object.freeze(["en", "th", "fa", "ja", "ru"]);
export const DEFAULT_LANGUAGE = "en";
const RIGHT_TO_LEFT = new Set(["fa"]);
const BASE = "/static/i18n";

let current = DEFAULT_LANGUAGE;
let texts = {};

/** One of LANGUAGES for a tag such as "fa", "fa-IR" or "TH"; English for anything else. */
export function pickLanguage(tag) {
  const primary = String(tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(primary) ? primary : DEFAULT_LANGUAGE;
}

/** "rtl" for Farsi, "ltr" for the others. */
export function directionOf(lang) {
  return RIGHT_TO_LEFT.has(pickLanguage(lang)) ? "rtl" : "ltr";
}

async function fetchTexts(lang, file) {
  try {
    const answer = await fetch(`${BASE}/${lang}/${file}.json`, { cache: "no-cache" });
    if (!answer.ok) return {};
    return await answer.json();
  } catch {
    return {}; // a missing or broken file: the English (or the key) shows instead
  }
}

/**
 * Load the texts of `lang` ("game" and `pages`, e.g. ["play"]) over the English ones, key by
 * key. Returns the merged texts; does not touch the document.
 */
export async function loadTexts(lang, pages = []) {
  const chosen = pickLanguage(lang);
  const files = ["game", ...pages];
  const wanted = chosen === DEFAULT_LANGUAGE ? [DEFAULT_LANGUAGE] : [DEFAULT_LANGUAGE, chosen];
  const loaded = await Promise.all(
    wanted.flatMap((language) => files.map((file) => fetchTexts(language, file))),
  );
  return Object.assign({}, ...loaded);
}

/**
 * Use `lang` on this page: load its texts, set <html lang> and <html dir>, and fill every
 * element marked `data-i18n="key"` (its text) or `data-i18n-label="key"` (its aria-label).
 * Returns the language chosen (English when `lang` is not one of ours).
 */
export async function setLanguage(lang, pages = []) {
  const chosen = pickLanguage(lang);
  texts = await loadTexts(chosen, pages);
  current = chosen;
  const root = document.documentElement;
  root.lang = chosen;
  root.dir = directionOf(chosen);
  translate(document);
  return chosen;
}

/** The language in use. */
export function language() {
  return current;
}

/** The text of `key` in the language in use, English when it has none, else the key itself. */
export function t(key, values = {}) {
  const text = Object.hasOwn(texts, key) ? texts[key] : key;
  return String(text).replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/** Fill the marked elements under `root` (after building part of a page, call it again). */
export function translate(root) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
}
