// Every service's problems in one list (`GET /api/console/problems`): what each holds for a
// person (held settlements, parked events, paused or stuck rounds, exposed cards...), and the
// services that could not be asked, which are problems too.

import { el } from "./dom.js";
import { dateTime, words } from "./format.js";

const SERVICES = {
  table: "Table",
  wallet: "Wallet",
  settlement: "Settlement",
  scanner: "Scanner gateway",
};

// `{summary, items}`: a sentence, and the list items, newest first within each service.
// `canWatch(tableId)` says whether a problem's table may be watched with `watch(tableId)`.
export function problemsView(answer, { canWatch, watch }) {
  const items = [];
  const unreachable = [];
  let count = 0;
  for (const [service, found] of Object.entries(answer.services ?? {})) {
    const name = SERVICES[service] ?? words(service);
    if (found.reachable === false) {
      unreachable.push(name);
      items.push(
        serviceItem(
          service,
          name,
          "Not reachable",
          "The service does not answer: its problems are unknown.",
        ),
      );
    } else if (found.status !== undefined) {
      // it answered, but refused this key (the others did not)
      items.push(
        serviceItem(
          service,
          name,
          "Refused the key",
          found.error?.detail ?? `It answered ${found.status}.`,
        ),
      );
    } else {
      for (const problem of found.problems ?? []) {
        count += 1;
        items.push(problemItem(service, name, problem, canWatch, watch));
      }
    }
  }
  const counted = count === 0 ? "No problem" : count === 1 ? "1 problem" : `${count} problems`;
  const out = unreachable.length ? `; not reachable: ${unreachable.join(", ")}` : "";
  return { summary: `${counted}${out}.`, items };
}

function serviceItem(service, name, what, detail) {
  return el(
    "li",
    { class: "problem problem--unreachable", dataset: { service } },
    el(
      "p",
      { class: "problem__head" },
      el("span", { class: "badge", text: name }),
      " ",
      el("strong", { text: what }),
    ),
    el("p", { text: detail }),
  );
}

function problemItem(service, name, problem, canWatch, watch) {
  const where = [
    problem.table_id ? `table ${problem.table_id}` : "",
    problem.round_id ? `round ${problem.round_id}` : "",
  ].filter(Boolean).join(", ");
  const facts = Object.entries(problem.facts ?? {})
    .filter(([, value]) => value !== null && value !== undefined);
  return el(
    "li",
    { class: "problem", dataset: { service, kind: problem.kind, table: problem.table_id ?? "" } },
    el(
      "p",
      { class: "problem__head" },
      el("span", { class: "badge", text: name }),
      " ",
      el("strong", { class: "problem__kind", text: words(problem.kind) }),
    ),
    el("p", { class: "problem__detail", text: problem.detail }),
    el(
      "p",
      { class: "muted" },
      "Since ",
      el("time", { datetime: problem.since, text: dateTime(problem.since) }),
      where ? ` · ${where}` : "",
    ),
    facts.length
      ? el(
        "dl",
        { class: "problem__facts" },
        facts.map(([key, value]) =>
          el("div", {}, el("dt", { text: words(key) }), el("dd", { text: String(value) }))),
      )
      : null,
    problem.actions?.length
      ? el(
        "p",
        { class: "problem__actions muted" },
        "Resolved by ",
        problem.actions.map((action, index) => [index ? ", " : "", el("code", { text: action })]),
      )
      : null,
    problem.table_id && canWatch(problem.table_id)
      ? el("button", {
        type: "button",
        class: "button button--small button--quiet",
        onclick: () => watch(problem.table_id),
        text: `Watch table ${problem.table_id}`,
      })
      : null,
  );
}
