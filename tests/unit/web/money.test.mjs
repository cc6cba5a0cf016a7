// money.js: the American format with each currency's decimals, exact for any integer.
// Run by tests/unit/web/test_scripts.py (`node --test`).
import "./currencies-fetch.mjs"; // first: money.js reads /currencies.json as it loads
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  currencyDecimals,
  formatAmount,
  formatMoney,
  parseAmount,
} from "../../../services/web/src/web_service/static/js/money.js";

test("two decimals and thousands separators by default", () => {
  assert.equal(formatAmount(123400, "INR"), "1,234.00");
  assert.equal(formatAmount(0, "USD"), "0.00");
  assert.equal(formatAmount(5, "EUR"), "0.05");
  assert.equal(formatAmount(99, "INR"), "0.99");
  assert.equal(formatAmount(100, "INR"), "1.00");
  assert.equal(formatAmount(123456789012, "THB"), "1,234,567,890.12");
});

test("no decimals for JPY and KRW", () => {
  assert.equal(formatAmount(1234, "JPY"), "1,234");
  assert.equal(formatAmount(1000000, "KRW"), "1,000,000");
  assert.equal(formatAmount(7, "jpy"), "7");
  assert.equal(currencyDecimals("JPY"), 0);
});

test("three decimals for KWD, BHD, OMR, JOD and TND", () => {
  for (const currency of ["KWD", "BHD", "OMR", "JOD", "TND"]) {
    assert.equal(currencyDecimals(currency), 3, currency);
    assert.equal(formatAmount(1234567, currency), "1,234.567", currency);
  }
  assert.equal(formatAmount(5, "KWD"), "0.005");
});

test("negative amounts keep the sign before the digits", () => {
  assert.equal(formatAmount(-123400, "INR"), "-1,234.00");
  assert.equal(formatAmount(-5, "USD"), "-0.05");
  assert.equal(formatAmount(-1234, "JPY"), "-1,234");
  assert.equal(formatAmount(-1, "KWD"), "-0.001");
});

test("exact beyond the float range: BigInt and digit strings", () => {
  assert.equal(formatAmount(9007199254740993n, "USD"), "90,071,992,547,409.93");
  assert.equal(formatAmount("9007199254740993", "USD"), "90,071,992,547,409.93");
  assert.equal(formatAmount("-12345678901234567890", "JPY"), "-12,345,678,901,234,567,890");
  assert.equal(formatAmount(Number.MAX_SAFE_INTEGER, "INR"), "90,071,992,547,409.91");
});

test("refuses what is not an integer amount", () => {
  assert.throws(() => formatAmount(12.5, "INR"), RangeError);
  assert.throws(() => formatAmount(2 ** 60, "INR"), RangeError);
  assert.throws(() => formatAmount("12.50", "INR"), TypeError);
  assert.throws(() => formatAmount(null, "INR"), TypeError);
});

test("formatMoney adds the currency code", () => {
  assert.equal(formatMoney(123400, "inr"), "1,234.00 INR");
});

test("parseAmount reads what people type, within the currency's decimals", () => {
  assert.equal(parseAmount("1,234.5", "INR"), 123450n);
  assert.equal(parseAmount("1234", "INR"), 123400n);
  assert.equal(parseAmount("0.05", "USD"), 5n);
  assert.equal(parseAmount(".5", "USD"), 50n);
  assert.equal(parseAmount("1,000", "JPY"), 1000n);
  assert.equal(parseAmount("1.234", "KWD"), 1234n);
  assert.equal(parseAmount("-2.50", "INR"), -250n);
  assert.equal(parseAmount("1.5", "JPY"), null);
  assert.equal(parseAmount("1.234", "INR"), null);
  assert.equal(parseAmount("12,34", "INR"), null);
  assert.equal(parseAmount("abc", "INR"), null);
  assert.equal(parseAmount("", "INR"), null);
});
