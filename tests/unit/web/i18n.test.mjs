// i18n.js: language choice, direction, English fallback key by key, placeholders; the texts
// are the real files under static/i18n, served by a stand-in for fetch.
// Run by tests/unit/web/test_scripts.py (`node --test`).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import {
  directionOf,
  loadTexts,
  pickLanguage,
} from "../../../services/web/src/web_service/static/js/i18n.js";

const STATIC = new URL("../../../services/web/src/web_service/static/", import.meta.url);
const requested = [];

globalThis.fetch = async (path) => {
  requested.push(path);
  try {
    const body = await readFile(new URL(path.replace(/^\/static\//, ""), STATIC), "utf8");
    return { ok: true, json: async () => JSON.parse(body) };
  } catch {
    return { ok: false, json: async () => ({}) };
  }
};

test("pickLanguage: ours by primary subtag, English otherwise", () => {
  assert.equal(pickLanguage("fa-IR"), "fa");
  assert.equal(pickLanguage("TH"), "th");
  assert.equal(pickLanguage("ja_JP"), "ja");
  assert.equal(pickLanguage("de"), "en");
  assert.equal(pickLanguage(undefined), "en");
});

test("directionOf: Farsi right to left, the others left to right", () => {
  assert.equal(directionOf("fa"), "rtl");
  for (const lang of ["en", "th", "ja", "ru", "xx"]) assert.equal(directionOf(lang), "ltr");
});

test("loadTexts: the language's words over the English ones", async () => {
  const texts = await loadTexts("ja");
  assert.equal(texts["hand.pair"], "ペア");
  assert.equal(texts["bet.six_card_bonus"], "6カードボーナス");
  assert.equal(texts["language.dir"], "ltr");
  const farsi = await loadTexts("fa-IR");
  assert.equal(farsi["language.dir"], "rtl");
  assert.equal(farsi["bet.tie"], "مساوی");
});

test("loadTexts: a page file missing in a language falls back to English key by key", async () => {
  requested.length = 0;
  const texts = await loadTexts("ru", ["no-such-page"]);
  assert.ok(requested.includes("/static/i18n/en/no-such-page.json"));
  assert.ok(requested.includes("/static/i18n/ru/no-such-page.json"));
  assert.equal(texts["hand.high_card"], "Старшая карта");
});

test("every language names every key English names", async () => {
  const english = await loadTexts("en");
  for (const lang of ["th", "fa", "ja", "ru"]) {
    const own = JSON.parse(
      await readFile(new URL(`i18n/${lang}/game.json`, STATIC), "utf8"),
    );
    assert.deepEqual(Object.keys(own).sort(), Object.keys(english).sort(), lang);
  }
});

test("every language names every key of the player view English names", async () => {
  const read = async (lang) =>
    JSON.parse(await readFile(new URL(`i18n/${lang}/play.json`, STATIC), "utf8"));
  const english = Object.keys(await read("en")).sort();
  assert.ok(english.includes("roadmap.round_voided") && english.includes("round.voided"));
  for (const lang of ["th", "fa", "ja", "ru"]) {
    assert.deepEqual(Object.keys(await read(lang)).sort(), english, lang);
  }
});
