// How the console names things: bet types, hands, cards, phases, times. English only: the
// console is the studio's tool (the player view is the one in five languages).

export const BET_TYPES = [
  "player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus",
];

const BET_NAMES = {
  player_a: "Player A",
  player_b: "Player B",
  tie: "Tie",
  pair_plus_a: "Pair Plus A",
  pair_plus_b: "Pair Plus B",
  six_card_bonus: "6 Card Bonus",
};

// dealing order (rules): A1 B1 A2 B2 A3 B3
export const POSITIONS = ["A1", "B1", "A2", "B2", "A3", "B3"];

const SUITS = {
  S: { symbol: "♠", name: "spades", colour: "black" },
  H: { symbol: "♥", name: "hearts", colour: "red" },
  D: { symbol: "♦", name: "diamonds", colour: "red" },
  C: { symbol: "♣", name: "clubs", colour: "black" },
};
const RANKS = {
  A: "ace", K: "king", Q: "queen", J: "jack", 10: "ten", T: "ten", 9: "nine", 8: "eight",
  7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two",
};

export function betName(betType) {
  return BET_NAMES[betType] ?? words(betType);
}

// `high_card` -> `High card`; also hands of the 6 Card Bonus and outcomes of the PAR sheet
export function words(code) {
  if (code === null || code === undefined) return "";
  const text = String(code).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function winnerName(winner) {
  if (winner === "tie") return "Tie";
  return betName(winner);
}

// A card as shown ("10♥") and as read out ("ten of hearts"); `AS`, `TH`, `10H` forms.
export function card(code) {
  const text = String(code);
  const suit = SUITS[text.slice(-1)];
  let rank = text.slice(0, -1);
  if (rank === "T") rank = "10";
  if (suit === undefined || RANKS[rank] === undefined) {
    return { label: text, spoken: text, colour: "black" };
  }
  return {
    label: `${rank}${suit.symbol}`,
    spoken: `${RANKS[rank]} of ${suit.name}`,
    colour: suit.colour,
  };
}

export function time(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso);
  return when.toLocaleTimeString("en-GB", { hour12: false });
}

export function dateTime(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso);
  const clock = when.toLocaleTimeString("en-GB", { hour12: false });
  return `${when.toLocaleDateString("en-CA")} ${clock}`;
}

// Seconds left until `iso` (never negative), or null.
export function secondsUntil(iso, now = Date.now()) {
  if (!iso) return null;
  const when = new Date(iso).getTime();
  if (Number.isNaN(when)) return null;
  return Math.max(0, (when - now) / 1000);
}

export function countdown(seconds) {
  if (seconds === null) return "–";
  return `${Math.ceil(seconds)} s`;
}

const PHASES = {
  unknown: "Unknown",
  open: "Waiting for the first round",
  betting: "Betting",
  dealing: "Dealing",
  closed: "Result",
  cancelled: "Cancelled",
};

// The phase a supervisor reads (a round's `closed` is its result, not a closed table); paused
// and exposed rounds say so.
export function phaseName(state) {
  const round = state.round;
  const inPlay = round && (round.phase === "betting" || round.phase === "dealing");
  let phase = PHASES[state.phase] ?? words(state.phase);
  if (state.status === "closed" && !inPlay) phase = "Table closed";
  if (round && round.paused) phase += " (paused)";
  if (round && round.exposed) phase += " (card exposed)";
  if (round && round.void_requested_by) phase += " (void requested)";
  return phase;
}
