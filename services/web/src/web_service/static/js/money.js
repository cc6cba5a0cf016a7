// Amounts shown to people: integer minor units in, the American format out (rules README:
// "1,234.00"), with each currency's own number of decimals. Exact: BigInt arithmetic on the
// integer, never a float, so 9,007,199,254,740,993 minor units print as they are.

// Every currency the platform accepts with the exponent of its minor unit (ISO 4217): the
// one table the services use too (shared/src/teenpatti/currencies.json), served by the web
// front. Read once, before any module that imports this one runs.
const CURRENCIES_URL = "/currencies.json";
const LOAD_TRIES = 3;
const MINOR_UNITS = await loadMinorUnits();

async function loadMinorUnits() {
  let failure = null;
  for (let attempt = 1; attempt <= LOAD_TRIES; attempt += 1) {
    try {
      const response = await fetch(CURRENCIES_URL, { headers: { Accept: "application/json" } });
      if (response.ok) return Object.freeze({ ...(await response.json()).minor_units });
      failure = new Error(`${CURRENCIES_URL}: HTTP ${response.status}`);
    } catch (error) {
      failure = error;
    }
    if (attempt < LOAD_TRIES) await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
  }
  // no amount is shown rather than one with the wrong number of decimals
  throw new Error(`the currencies could not be read (${failure})`);
}

/** How many decimals `currency` shows: 2 for INR, 0 for JPY or VND, 3 for KWD. A code the
 * platform does not accept has no amount: RangeError. */
export function currencyDecimals(currency) {
  const code = String(currency ?? "").toUpperCase();
  if (!Object.hasOwn(MINOR_UNITS, code)) {
    throw new RangeError(`${code || "(none)"} is not a currency the platform accepts`);
  }
  return MINOR_UNITS[code];
}

/** Every currency the platform accepts, with its decimals: { INR: 2, JPY: 0, ... }. */
export function currencies() {
  return MINOR_UNITS;
}

/** `minor` (an integer Number, a BigInt or a string of digits) as a BigInt; throws otherwise. */
function toBigInt(minor) {
  if (typeof minor === "bigint") return minor;
  if (typeof minor === "number") {
    if (!Number.isSafeInteger(minor)) {
      throw new RangeError(`not a safe integer amount of minor units: ${minor}`);
    }
    return BigInt(minor);
  }
  if (typeof minor === "string" && /^-?\d+$/.test(minor.trim())) return BigInt(minor.trim());
  throw new TypeError(`not an amount of minor units: ${String(minor)}`);
}

function groupThousands(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * `minor` units of `currency` in the American format:
 * formatAmount(123400, "INR") "1,234.00"; formatAmount(123456, "VND") "123,456";
 * formatAmount(-1234567, "KWD") "-1,234.567".
 */
export function formatAmount(minor, currency) {
  const value = toBigInt(minor);
  const decimals = currencyDecimals(currency);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const part = digits.slice(digits.length - decimals);
  const text = groupThousands(whole) + (decimals > 0 ? `.${part}` : "");
  return negative ? `-${text}` : text;
}

/** `formatAmount` followed by the currency code: "1,234.00 INR". */
export function formatMoney(minor, currency) {
  return `${formatAmount(minor, currency)} ${String(currency).toUpperCase()}`;
}

/**
 * The minor units a person typed ("1,234.5" INR is 123450n), as a BigInt; null when the text
 * is not an amount of that currency (more decimals than it has, letters, empty).
 */
export function parseAmount(text, currency) {
  const decimals = currencyDecimals(currency);
  const match = /^\s*(-?)([\d,]*\d)?(?:\.(\d*))?\s*$/.exec(String(text ?? ""));
  if (match === null) return null;
  const [, sign, wholeText = "", partText = ""] = match;
  if (wholeText === "" && partText === "") return null;
  if (wholeText.includes(",") && !/^\d{1,3}(,\d{3})*$/.test(wholeText)) return null;
  if (partText.length > decimals) return null;
  const whole = BigInt(wholeText.replaceAll(",", "") || "0");
  const part = BigInt((partText + "0".repeat(decimals)).slice(0, decimals) || "0");
  const value = whole * 10n ** BigInt(decimals) + part;
  return sign === "-" ? -value : value;
}
