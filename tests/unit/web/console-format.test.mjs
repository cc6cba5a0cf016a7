// The studio console's pure helpers: how it names cards, phases, bet types and refusals.
// Run by tests/unit/web/test_scripts.py (`node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";

import { describeProblem } from "../../../services/web/src/web_service/static/js/console/api.js";
import {
  betName,
  card,
  countdown,
  phaseName,
  secondsUntil,
  winnerName,
  words,
} from "../../../services/web/src/web_service/static/js/console/format.js";

test("cards are shown with their suit and read out in words", () => {
  assert.deepEqual(card("AS"), { label: "A♠", spoken: "ace of spades", colour: "black" });
  assert.deepEqual(card("10H"), { label: "10♥", spoken: "ten of hearts", colour: "red" });
  assert.deepEqual(card("TD"), { label: "10♦", spoken: "ten of diamonds", colour: "red" });
  assert.equal(card("2C").label, "2♣");
  // what is not a card is shown as it came
  assert.deepEqual(card("ZZ"), { label: "ZZ", spoken: "ZZ", colour: "black" });
});

test("bet types, hands and winners are named as the rules name them", () => {
  assert.equal(betName("six_card_bonus"), "6 Card Bonus");
  assert.equal(betName("pair_plus_a"), "Pair Plus A");
  assert.equal(betName("new_bet"), "New bet");
  assert.equal(words("trail_of_aces"), "Trail of aces");
  assert.equal(words(null), "");
  assert.equal(winnerName("player_b"), "Player B");
  assert.equal(winnerName("tie"), "Tie");
});

test("the betting countdown never goes below zero and rounds up", () => {
  const now = Date.parse("2026-01-01T12:00:00Z");
  assert.equal(secondsUntil("2026-01-01T12:00:05.200Z", now), 5.2);
  assert.equal(secondsUntil("2026-01-01T11:59:00Z", now), 0);
  assert.equal(secondsUntil(null, now), null);
  assert.equal(countdown(5.2), "6 s");
  assert.equal(countdown(0), "0 s");
  assert.equal(countdown(null), "–");
});

test("a phase says whether the round is paused, exposed or waiting for a second supervisor", () => {
  const round = { phase: "dealing", paused: false, exposed: false, void_requested_by: null };
  const table = { status: "open", phase: "dealing", round };
  assert.equal(phaseName(table), "Dealing");
  assert.equal(phaseName({ ...table, round: { ...round, paused: true } }), "Dealing (paused)");
  assert.equal(
    phaseName({ ...table, round: { ...round, void_requested_by: "supervisor-1" } }),
    "Dealing (void requested)",
  );
  assert.equal(
    phaseName({
      status: "open",
      phase: "betting",
      round: { ...round, phase: "betting", paused: true, exposed: true },
    }),
    "Betting (paused) (card exposed)",
  );
  // a round's end is its result; a closed table says so once its last round is over
  const ended = { ...round, phase: "closed" };
  assert.equal(phaseName({ status: "open", phase: "closed", round: ended }), "Result");
  assert.equal(phaseName({ status: "closed", phase: "closed", round: ended }), "Table closed");
  assert.equal(phaseName({ status: "closed", phase: "dealing", round }), "Dealing");
  const waiting = { status: "open", phase: "open", round: null };
  assert.equal(phaseName(waiting), "Waiting for the first round");
});

test("a refusal is told with the service's own detail and code", () => {
  assert.equal(
    describeProblem(409, { code: "same_supervisor", detail: "another supervisor must confirm it" }),
    "another supervisor must confirm it (same_supervisor)",
  );
  assert.equal(
    describeProblem(422, { detail: [{ loc: ["body", "reason"], msg: "Field required" }] }),
    "body.reason: Field required",
  );
  assert.equal(describeProblem(502, null), "The service answered 502.");
  assert.match(describeProblem(0, null), /cannot reach the web front/);
});
