// money.js formats by the one currency table (shared/src/teenpatti/currencies.json), the
// wallet's: zero-decimal, three-decimal and four-decimal currencies included.
// Run by tests/unit/web/test_scripts.py (`node --test`).
import { CURRENCIES_FILE } from "./currencies-fetch.mjs"; // first: money.js reads it as it loads
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import {
  currencies,
  currencyDecimals,
  formatAmount,
  formatMoney,
  parseAmount,
} from "../../../services/web/src/web_service/static/js/money.js";

const MONEY_JS = "../../../services/web/src/web_service/static/js/money.js";
const TABLE = JSON.parse(await readFile(CURRENCIES_FILE, "utf8")).minor_units;

test("the page knows exactly the table's currencies and decimals", () => {
  assert.deepEqual({ ...currencies() }, TABLE);
  assert.ok(Object.keys(TABLE).length > 150);
});

test("123,456 minor units in the currencies of the finding", () => {
  for (const code of ["VND", "CLP", "UGX", "ISK", "JPY", "KRW"]) {
    assert.equal(formatAmount(123456, code), "123,456", code);
  }
  for (const code of ["IQD", "LYD", "KWD", "BHD", "JOD", "OMR", "TND"]) {
    assert.equal(formatAmount(123456, code), "123.456", code);
  }
  for (const code of ["CLF", "UYW"]) assert.equal(formatAmount(123456, code), "12.3456", code);
  assert.equal(formatAmount(123456, "INR"), "1,234.56");
  assert.equal(formatMoney(123456, "vnd"), "123,456 VND");
  assert.equal(parseAmount("1.5", "VND"), null);
  assert.equal(parseAmount("1.234", "IQD"), 1234n);
});

test("every currency: its own number of decimals", () => {
  for (const [code, decimals] of Object.entries(TABLE)) {
    assert.equal(currencyDecimals(code), decimals, code);
    const shown = formatAmount(1_234_567_890, code);
    const part = shown.includes(".") ? shown.split(".")[1] : "";
    assert.equal(part.length, decimals, `${code}: ${shown}`);
    assert.equal(shown.replaceAll(/[,.]/g, ""), "1234567890", code);
  }
});

test("a code the platform does not accept has no amount", () => {
  for (const code of ["XXX", "XAU", "ABC", "", null]) {
    assert.throws(() => currencyDecimals(code), RangeError, String(code));
    assert.throws(() => formatAmount(100, code), RangeError, String(code));
  }
});

test("without the table, money.js does not load: no amount with wrong decimals", async () => {
  const served = globalThis.fetch;
  let asked = 0;
  globalThis.fetch = async () => {
    asked += 1;
    return new Response("unavailable", { status: 503 });
  };
  try {
    await assert.rejects(import(`${MONEY_JS}?without-table`), /currencies could not be read/);
    assert.equal(asked, 3);
  } finally {
    globalThis.fetch = served;
  }
});
