// Amounts and times as the player reads them: amounts in the American format with the
// currency's own decimals and its code ("1,234.00 INR", money.js), times in the page's
// language with Western digits, like every number on the page.

import { formatMoney } from "../money.js";
import { currentLanguage } from "./texts.js";

// Unicode's left-to-right isolate: an amount keeps "1,234.00 INR" order inside Farsi text
const LRI = "\u2066";
const PDI = "\u2069";

/** An amount that stands alone in its element (the element is marked `dir="ltr"`). */
export const amount = formatMoney;

/** An amount inside a sentence: isolated left to right on a right-to-left page. */
export function money(minor, currency) {
  const text = formatMoney(minor, currency);
  return document.documentElement.dir === "rtl" ? `${LRI}${text}${PDI}` : text;
}

/** An element holding one amount, laid out left to right on any page. */
export function amountElement(minor, currency, className = "amount") {
  const span = document.createElement("span");
  span.className = className;
  span.dir = "ltr";
  span.textContent = amount(minor, currency);
  return span;
}

export function formatTime(iso) {
  return new Intl.DateTimeFormat(`${currentLanguage()}-u-nu-latn-ca-gregory`, {
    dateStyle: "short",
    timeStyle: "medium",
  }).format(new Date(iso));
}
