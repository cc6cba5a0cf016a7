// The player view's chips (static/js/play/chips.js): a few round stakes valid at the table,
// from the smallest minimum to the largest maximum of the six bet types.
// Run by tests/unit/web/test_scripts.py (`node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chipValues } from "../../../services/web/src/web_service/static/js/play/chips.js";

const limits = (min, max, overrides = {}) => ({
  player_a: { min, max },
  player_b: { min, max },
  tie: { min, max },
  pair_plus_a: { min, max },
  pair_plus_b: { min, max },
  six_card_bonus: { min, max },
  ...overrides,
});

test("1, 5, 10, 50, 100 times the minimum, at most five chips", () => {
  assert.deepEqual(chipValues(limits(100, 100_000)), [100, 500, 1_000, 5_000, 10_000]);
});

test("never above the largest maximum", () => {
  assert.deepEqual(chipValues(limits(100, 2_000)), [100, 500, 1_000]);
  assert.deepEqual(chipValues(limits(100, 100)), [100]);
});

test("from the smallest minimum and up to the largest maximum of any bet type", () => {
  const mixed = limits(500, 10_000, { tie: { min: 200, max: 1_000 }, player_a: { min: 500, max: 50_000 } });
  assert.deepEqual(chipValues(mixed), [200, 1_000, 2_000, 10_000, 20_000]);
});

test("no chips without limits in the player's currency", () => {
  assert.deepEqual(chipValues(undefined), []);
  assert.deepEqual(chipValues({}), []);
  assert.deepEqual(chipValues(limits(0, 1_000)), []);
});
