// Search: POST /v1/retrieve with the filters, each result with its score components.

import { api } from "./api.js";
import { $, badge, clear, fmt, h, recordBadges, summary, svg } from "./dom.js";

const COMPONENTS = ["relevance", "lexical", "vector", "entity", "context", "salience"];
let latest = 0; // only the newest search may draw its answer

function list(text) {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

// The body the form asks for (the test sends the same one to the API).
export function searchBody() {
  const body = { limit: Number($("#search-limit").value) || 20 };
  const query = $("#search-query").value.trim();
  if (query) body.query = query;
  const type = $("#search-type").value;
  if (type) body.types = [type];
  const scopes = list($("#search-scope").value);
  if (scopes.length) body.scopes = scopes;
  const tags = list($("#search-tag").value);
  if (tags.length) body.tags = tags;
  return body;
}

function meter(value) {
  const width = 90 * Math.max(0, Math.min(1, value ?? 0));
  return svg(
    "svg",
    { class: "meter", viewBox: "0 0 90 8", width: 90, height: 8, "aria-hidden": "true" },
    svg("rect", { x: 0, y: 0, width: 90, height: 8, class: "meter-back" }),
    svg("rect", { x: 0, y: 0, width, height: 8, class: "meter-fill" }),
  );
}

function components(item) {
  const rows = COMPONENTS.map((name) =>
    h(
      "div",
      { class: "component", dataset: { component: name } },
      h("span", { class: "component-name" }, name),
      meter(item.components[name]),
      h("span", { class: "component-value" }, fmt(item.components[name])),
    ),
  );
  return h("div", { class: "components" }, rows);
}

function resultCard(item, rank, open) {
  const record = item.record;
  if (record.redacted) {
    return h(
      "article",
      { class: "result redacted", dataset: { recordId: record.id, redacted: "true" } },
      h("div", { class: "result-head" }, h("span", { class: "rank" }, `#${rank}`), recordBadges(record)),
      h("p", { class: "muted" }, "Redacted: one level above this key's sensitivity ceiling. No payload, no score."),
    );
  }
  return h(
    "article",
    {
      class: "result",
      tabindex: 0,
      dataset: { recordId: record.id },
      onclick: () => open(record.id),
      onkeydown: (ev) => (ev.key === "Enter" ? open(record.id) : null),
    },
    h(
      "div",
      { class: "result-head" },
      h("span", { class: "rank" }, `#${rank}`),
      recordBadges(record),
      h("span", { class: "score", title: "0.7 · relevance + 0.3 · salience" }, `score ${fmt(item.score)}`),
    ),
    h("p", { class: "result-summary" }, summary(record)),
    record.tags.length ? h("p", { class: "tags" }, record.tags.map((t) => badge(t, "tag"))) : null,
    components(item),
  );
}

function selectionNote(selection) {
  if (!selection) return null;
  const picked = selection.selected_id ? `picks ${selection.selected_id}` : "picks nothing";
  const more = selection.needs_more ? " — needs more evidence" : "";
  return h("p", { class: "note" }, `Selector ${picked} (confidence ${fmt(selection.confidence)})${more}.`);
}

export async function runSearch(open) {
  const token = ++latest;
  const box = $("#results");
  const status = $("#search-status");
  box.dataset.state = "loading";
  clear(status, "Searching…");
  try {
    const result = await api.retrieve(searchBody());
    if (token !== latest) return;
    const n = result.items.length;
    const signals = result.signals.length ? result.signals.join(", ") : "none";
    clear(status, `${n} result${n === 1 ? "" : "s"} · ranked by ${signals}`);
    clear(box, selectionNote(result.selection), result.items.map((item, i) => resultCard(item, i + 1, open)));
    if (!n) box.append(h("p", { class: "empty" }, "Nothing this key may see matches."));
    box.dataset.state = "ready";
  } catch (err) {
    if (token !== latest) return;
    clear(status);
    clear(box, h("p", { class: "error", role: "alert" }, err.message));
    box.dataset.state = "error";
  }
}

export function initSearch(open) {
  $("#search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    runSearch(open);
  });
}
