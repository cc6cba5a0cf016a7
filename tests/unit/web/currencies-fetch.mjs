// Imported before money.js by its tests: a stand-in for fetch that serves `/currencies.json`
// as the web front does, from the one currency table (shared/src/teenpatti/currencies.json).
import { readFile } from "node:fs/promises";

export const CURRENCIES_FILE = new URL(
  "../../../shared/src/teenpatti/currencies.json",
  import.meta.url,
);

globalThis.fetch = async (path) => {
  if (path !== "/currencies.json") return new Response("not found", { status: 404 });
  return new Response(await readFile(CURRENCIES_FILE, "utf8"), {
    headers: { "Content-Type": "application/json" },
  });
};
