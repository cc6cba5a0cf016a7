// The console's calls to the services, through the web front's `/api/{service}/...`, with the
// supervisor's own key (the front adds no privilege). A refusal becomes an `ApiError` carrying
// the problem details (RFC 9457) the service answered, so the page can say why.

export class ApiError extends Error {
  constructor(status, problem) {
    super(describeProblem(status, problem));
    this.status = status;
    this.code = problem?.code ?? null;
    this.problem = problem;
  }
}

// One sentence a supervisor can act on, from a problem details body (or its absence).
export function describeProblem(status, problem) {
  if (problem && typeof problem.detail === "string" && problem.detail !== "") {
    const code = problem.code ? ` (${problem.code})` : "";
    return `${problem.detail}${code}`;
  }
  if (problem && Array.isArray(problem.detail)) {
    // a request the service could not read: FastAPI's list of what is wrong
    return problem.detail.map((item) => `${(item.loc ?? []).join(".")}: ${item.msg}`).join("; ");
  }
  if (status === 0) return "The console cannot reach the web front; check the connection.";
  return `The service answered ${status}.`;
}

export class Api {
  constructor(key) {
    this.key = key;
  }

  // `service` is table, wallet, settlement, scanner or console; `path` starts with a slash.
  async call(service, path, { method = "GET", body = undefined } = {}) {
    const headers = { "X-Api-Key": this.key, Accept: "application/json" };
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(`/api/${service}${path}`, init);
    } catch {
      throw new ApiError(0, null);
    }
    const text = await response.text();
    let parsed = null;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
    }
    if (!response.ok) throw new ApiError(response.status, parsed);
    return { status: response.status, body: parsed };
  }

  async get(service, path) {
    return (await this.call(service, path)).body;
  }

  async post(service, path, body) {
    return this.call(service, path, { method: "POST", body });
  }
}
