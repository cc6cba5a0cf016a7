// A table's pay table and exact PAR sheet (`GET /tables/{id}/par-sheet`): the RTP of each bet
// type as the fraction and percentage the service computed (strings: never re-computed here
// as floats), drawn as an inline SVG bar chart with text labels, and each bet's outcomes.

import { el, svg } from "./dom.js";
import { betName, words } from "./format.js";

// Rules, "Supplementary": the maximum RTP of the game is 97.50 %.
const STATED_MAX_PERCENT = 97.5;
const WIDTH = 720;
const LABEL_WIDTH = 130;
const VALUE_WIDTH = 90;
const ROW_HEIGHT = 34;
const TOP = 28;
const BOTTOM = 30;

// The chart's axis starts near the lowest RTP (every bet returns 90-98 %: bars from 0 would
// all look the same); it says where it starts.
function axisStart(percents) {
  const lowest = Math.min(...percents, 90);
  return Math.max(0, Math.floor((lowest - 1) / 5) * 5);
}

export function parChart(sheet) {
  const bets = sheet.bets ?? [];
  const percents = bets.map((bet) => Number(bet.rtp_percent));
  const start = axisStart(percents);
  const end = 100;
  const plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const x = (percent) => LABEL_WIDTH + ((percent - start) / (end - start)) * plotWidth;
  const height = TOP + bets.length * ROW_HEIGHT + BOTTOM;
  const summary = bets.map((bet) => `${betName(bet.bet_type)} ${bet.rtp_percent} %`).join(", ");
  const chart = svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      width: WIDTH,
      height,
      role: "img",
      "aria-labelledby": "par-chart-title par-chart-desc",
      class: "par-chart",
    },
    svg("title", { id: "par-chart-title", text: "Return to player by bet type" }),
    svg("desc", { id: "par-chart-desc", text: `${summary}. Axis from ${start} % to ${end} %.` }),
  );
  // grid lines and their labels
  for (let tick = start; tick <= end; tick += (end - start) / 5) {
    chart.append(
      svg("line", {
        x1: x(tick), x2: x(tick), y1: TOP - 6, y2: height - BOTTOM, class: "par-chart__grid",
      }),
      svg("text", {
        x: x(tick), y: height - BOTTOM + 18, "text-anchor": "middle", class: "par-chart__tick",
        text: `${Number(tick.toFixed(1))} %`,
      }),
    );
  }
  bets.forEach((bet, index) => {
    const y = TOP + index * ROW_HEIGHT;
    const percent = Number(bet.rtp_percent);
    const barWidth = Math.max(1, x(Math.min(percent, end)) - x(start));
    chart.append(
      svg("text", {
        x: LABEL_WIDTH - 10, y: y + ROW_HEIGHT / 2 + 5, "text-anchor": "end",
        class: "par-chart__label", text: betName(bet.bet_type),
      }),
      svg(
        "rect",
        {
          x: x(start), y: y + 6, width: barWidth, height: ROW_HEIGHT - 12, rx: 3,
          class: "par-chart__bar",
          "data-bet-type": bet.bet_type,
        },
        svg("title", { text: `${betName(bet.bet_type)}: ${bet.rtp} = ${bet.rtp_percent} %` }),
      ),
      svg("text", {
        x: x(start) + barWidth + 8, y: y + ROW_HEIGHT / 2 + 5, class: "par-chart__value",
        text: `${bet.rtp_percent} %`,
      }),
    );
  });
  const ceiling = x(STATED_MAX_PERCENT);
  chart.append(
    svg("line", {
      x1: ceiling, x2: ceiling, y1: TOP - 10, y2: height - BOTTOM, class: "par-chart__ceiling",
    }),
    svg("text", {
      x: ceiling + 4, y: TOP - 14, "text-anchor": "end", class: "par-chart__ceiling-label",
      text: `${STATED_MAX_PERCENT} %: the rules' stated maximum`,
    }),
  );
  return chart;
}

// One table per bet type: what each outcome pays and how likely it is, exactly.
export function parTables(sheet) {
  return (sheet.bets ?? []).map((bet) =>
    el(
      "table",
      { class: "grid-table par-table", dataset: { betType: bet.bet_type } },
      el(
        "caption",
        {},
        el("strong", { text: betName(bet.bet_type) }),
        ` RTP ${bet.rtp_percent} % = `,
        el("code", { class: "fraction", text: bet.rtp }),
      ),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col", text: "Outcome" }),
          el("th", { scope: "col", class: "num", text: "Pays" }),
          el("th", { scope: "col", class: "num", text: "Probability" }),
          el("th", { scope: "col", class: "num", text: "%" }),
        ),
      ),
      el(
        "tbody",
        {},
        (bet.outcomes ?? []).map((outcome) =>
          el(
            "tr",
            {},
            el("th", { scope: "row", text: words(outcome.outcome) }),
            el("td", { class: "num", text: pays(outcome) }),
            el(
              "td",
              { class: "num" },
              el("code", { class: "fraction", text: outcome.probability }),
            ),
            el("td", { class: "num", text: outcome.probability_percent }),
          ),
        ),
      ),
    ),
  );
}

// odds "0.95" -> "0.95 to 1"; a push ("0": the stake back, no winnings) says so
function pays({ outcome, pays: odds }) {
  if (outcome === "push" || odds === null || odds === undefined || odds === "" || odds === "0") {
    return "stake back";
  }
  return `${odds} to 1`;
}
