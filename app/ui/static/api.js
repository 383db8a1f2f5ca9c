// The REST API, called with the key the user signed in with (kept in sessionStorage:
// this tab only, gone when it closes). Relative URLs: the page lives at <base>/ui/.

const KEY = "membrane.apiKey";
const BASE = new URL("../", document.baseURI);

export class ApiError extends Error {
  constructor(status, message, problem) {
    super(message);
    this.status = status;
    this.problem = problem;
  }
}

export function getKey() {
  return sessionStorage.getItem(KEY);
}

export function setKey(key) {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY);
}

// The message of an RFC 9457 problem: its detail (and validation errors), else its title.
function problemMessage(status, problem) {
  if (!problem || typeof problem !== "object") return `HTTP ${status}`;
  let message = problem.detail || problem.title || `HTTP ${status}`;
  if (Array.isArray(problem.errors) && problem.errors.length) {
    const parts = problem.errors.map((e) => `${(e.loc || []).join(".")}: ${e.msg}`);
    message += ` (${parts.join("; ")})`;
  }
  return message;
}

let onUnauthorized = () => {};

export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

export async function call(method, path, body, key = getKey()) {
  const headers = { Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(new URL(path, BASE), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, `The service is unreachable (${err.message}).`, null);
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new ApiError(response.status, problemMessage(response.status, data), data);
    if (response.status === 401 && key === getKey()) onUnauthorized(error);
    throw error;
  }
  return data;
}

// Whether the service runs in open mode (no API keys configured: every request is
// served, no key needed). GET /readyz is public and says so; it answers 503 with the same
// body while the database is unreachable. Anything else counts as "keys needed".
export async function isOpenMode() {
  try {
    const response = await fetch(new URL("readyz", BASE), {
      headers: { Accept: "application/json" },
      credentials: "omit",
      cache: "no-store",
    });
    const body = await response.json();
    return Boolean(body && body.open_mode === true);
  } catch {
    return false;
  }
}

export const api = {
  metrics: (key) => call("GET", "v1/metrics", undefined, key),
  retrieve: (body) => call("POST", "v1/retrieve", body),
  graph: (body) => call("POST", "v1/retrieve/graph", body),
  record: (id) => call("GET", `v1/records/${encodeURIComponent(id)}`),
  relations: (id) => call("GET", `v1/records/${encodeURIComponent(id)}/relations`),
  audit: (id) => call("GET", `v1/records/${encodeURIComponent(id)}/audit`),
  list: (params) => call("GET", `v1/records?${new URLSearchParams(params)}`),
};
