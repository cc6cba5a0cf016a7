// The chips a player picks stakes with: a few round values valid at this table, from the
// smallest minimum of the six bet types up to the largest maximum, in the player's currency
// (minor units, like every amount).

const STEPS = [1, 2, 5];
const MAX_CHIPS = 5;

/**
 * Chip values for `limits` (`{bet_type: {min, max}}` of one currency): the smallest minimum,
 * then values on the 1-2-5 series (x10, x100...) of it, every one at or below the largest
 * maximum, skipping some to keep a spread: 100 -> 100, 500, 1000, 5000, 10000.
 */
export function chipValues(limits) {
  const ranges = Object.values(limits ?? {});
  if (ranges.length === 0) return [];
  const lowest = Math.min(...ranges.map((range) => range.min));
  const highest = Math.max(...ranges.map((range) => range.max));
  if (!(lowest > 0) || highest < lowest) return [];
  const series = [];
  for (let scale = 1; lowest * scale <= highest && series.length < 40; scale *= 10) {
    for (const step of STEPS) {
      const value = lowest * step * scale;
      if (value <= highest) series.push(value);
    }
  }
  // 1, 5, 10, 50, 100...: every other step of the series reads like a casino's chips
  const chips = series.filter((value) => {
    const ratio = value / lowest;
    return ratio === 1 || String(ratio).startsWith("5") || String(ratio).startsWith("1");
  });
  return chips.slice(0, MAX_CHIPS);
}
