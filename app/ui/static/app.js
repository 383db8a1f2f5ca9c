// The memory browser: sign in with an API key, then search, open records, follow the
// graph and read the metrics — all through the REST API, as that key. In open mode (the
// service has no API keys) there is nothing to sign in with: the browser opens directly.

import { api, forgetKey, getKey, isOpenMode, setKey, whenUnauthorized } from "./api.js";
import { $, clear, h, show } from "./dom.js";
import { clearDetail, openRecord } from "./detail.js";
import { initGraph, runGraph } from "./graph.js";
import { loadMetrics } from "./metrics.js";
import { initSearch, runSearch } from "./search.js";

const TABS = ["search", "graph", "metrics"];

function selectTab(name) {
  for (const tab of TABS) {
    show($(`#tab-${tab}`), tab === name);
    $(`#tab-button-${tab}`).setAttribute("aria-selected", String(tab === name));
  }
  document.body.dataset.tab = name;
  if (name === "metrics") loadMetrics();
}

// Open a record by id, or (a redacted graph node) say why it cannot be opened.
function open(id, redacted) {
  if (id) return openRecord(id, follow);
  const pane = $("#detail");
  clearDetail();
  clear(pane, h("p", { class: "muted" }, `${redacted.type} ${redacted.id} is redacted: it is above this key's sensitivity ceiling.`));
}

function follow(record) {
  const p = record.payload || {};
  const entity = record.type === "entity";
  $("#graph-query").value = entity ? p.canonical_name : p.subject || p.summary || p.skill_name || p.intent || "";
  $("#graph-entities").checked = entity || Boolean(p.subject);
  selectTab("graph");
  runGraph(open);
}

function enter(key) {
  $("#whoami").textContent = `Signed in · key …${key.slice(-4)}`;
  show($("#sign-in"), false);
  show($("#session"), true);
  openBrowser();
}

// Open mode: no sign-in form at all (it is removed from the page), and a banner that says
// why no key is asked for.
function enterOpenMode() {
  document.body.dataset.mode = "open";
  $("#sign-in").remove();
  $("#sign-out").remove();
  $("#whoami").textContent = "Open mode · no API keys";
  show($("#open-mode"), true);
  show($("#session"), true);
  openBrowser();
}

function openBrowser() {
  show($("#browser"), true);
  document.body.dataset.signedIn = "true";
  selectTab("search");
  clearDetail();
  runSearch((id) => open(id));
}

function leave(message) {
  forgetKey();
  document.body.dataset.signedIn = "false";
  show($("#browser"), false);
  show($("#session"), false);
  show($("#sign-in"), true);
  for (const id of ["#results", "#graph", "#metrics", "#search-status"]) clear($(id));
  clearDetail();
  $("#sign-in-error").textContent = message || "";
  $("#api-key").value = "";
  $("#api-key").focus();
}

async function signIn(ev) {
  ev.preventDefault();
  const key = $("#api-key").value.trim();
  const error = $("#sign-in-error");
  const button = $("#sign-in-button");
  error.textContent = "";
  if (!key) return;
  button.disabled = true;
  try {
    await api.metrics(key); // any read the key is allowed: proves it before it is kept
    setKey(key);
    $("#api-key").value = "";
    enter(key);
  } catch (err) {
    error.textContent = err.message;
    document.body.dataset.signedIn = "false";
  } finally {
    button.disabled = false;
  }
}

async function main() {
  if (await isOpenMode()) {
    // A 401 here means keys were configured since: reload to get the sign-in form.
    whenUnauthorized(() => location.reload());
    wire();
    enterOpenMode();
  } else {
    document.body.dataset.mode = "keys";
    $("#sign-in-form").addEventListener("submit", signIn);
    $("#sign-out").addEventListener("click", () => leave(""));
    whenUnauthorized((err) => leave(err.message));
    wire();
    const key = getKey();
    if (key) enter(key);
    else leave("");
  }
  document.body.dataset.ready = "true";
}

function wire() {
  for (const tab of TABS) $(`#tab-button-${tab}`).addEventListener("click", () => selectTab(tab));
  $("#metrics-refresh").addEventListener("click", loadMetrics);
  initSearch((id) => open(id));
  initGraph(open);
}

main();
