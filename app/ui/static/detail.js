// One record: payload, relations, provenance and audit history (three REST reads).

import { api } from "./api.js";
import { $, badge, clear, fmt, h, label, pretty, recordBadges, summary, when } from "./dom.js";

let latest = 0;
const MAX_LABELS = 25; // related records whose summaries are fetched to label the links

function section(title, ...body) {
  return h("section", { class: "detail-section" }, h("h3", {}, title), ...body);
}

function duration(seconds) {
  const units = [["d", 86400], ["h", 3600], ["min", 60]];
  for (const [unit, size] of units) if (seconds >= 2 * size) return `${fmt(seconds / size, 1)} ${unit}`;
  return `${fmt(seconds, 1)} s`;
}

function facts(record) {
  const decay = record.lifecycle.decay;
  const rows = [
    ["id", record.id],
    ["confidence", fmt(record.confidence)],
    ["salience", fmt(record.salience)],
    ["decay", `${decay.curve}, half-life ${duration(decay.half_life_seconds)}`],
    ["pinned", record.lifecycle.pinned ? "yes" : "no"],
    ["created", when(record.created_at)],
    ["updated", when(record.updated_at)],
  ];
  return h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function relationList(title, edges, key, open) {
  if (!edges.length) return h("p", { class: "muted" }, `No ${title} relations.`);
  const items = edges.map((edge) => {
    const other = edge[key];
    const link = h("button", { class: "link", type: "button", onclick: () => open(other) }, other);
    return h("li", { dataset: { other } }, h("span", { class: "predicate" }, edge.predicate), " ", link);
  });
  return h("div", {}, h("h4", {}, `${title} (${edges.length})`), h("ul", { class: "relations" }, items));
}

// Replace the ids in the relation links with the related records' summaries.
async function labelLinks(root, ids) {
  const wanted = [...new Set(ids)].slice(0, MAX_LABELS);
  const answers = await Promise.allSettled(wanted.map((id) => api.record(id)));
  answers.forEach((answer, i) => {
    const text = answer.status === "fulfilled" ? label(answer.value, 60) : "(not readable with this key)";
    for (const li of root.querySelectorAll("li[data-other]")) {
      if (li.dataset.other === wanted[i]) li.querySelector("button").textContent = text;
    }
  });
  root.dataset.labelled = "true";
}

function auditTable(entries) {
  if (!entries.length) return h("p", { class: "muted" }, "No audit entries.");
  const rows = entries.map((e) =>
    h(
      "tr",
      { dataset: { action: e.action } },
      h("td", {}, when(e.timestamp)),
      h("td", {}, badge(e.action, "action")),
      h("td", {}, e.actor),
      h("td", {}, e.rationale || ""),
      h("td", {}, Object.keys(e.details || {}).length ? h("details", {}, h("summary", {}, "details"), h("pre", {}, pretty(e.details))) : ""),
    ),
  );
  const head = h("tr", {}, ["when", "action", "actor", "rationale", ""].map((t) => h("th", {}, t)));
  return h("table", { class: "audit" }, h("thead", {}, head), h("tbody", {}, rows));
}

function render(record, relations, audit, open, follow) {
  const out = relations.outgoing;
  const inc = relations.incoming;
  const body = h(
    "div",
    { class: "detail-body", dataset: { recordId: record.id } },
    h("div", { class: "detail-head" }, recordBadges(record)),
    h("h2", { class: "detail-title" }, summary(record)),
    record.tags.length ? h("p", { class: "tags" }, record.tags.map((t) => badge(t, "tag"))) : null,
    h("button", { type: "button", class: "secondary", onclick: () => follow(record) }, "Follow the graph from here"),
    facts(record),
    section("Payload", h("pre", { class: "payload" }, pretty(record.payload))),
    section("Relations", relationList("outgoing", out, "target_id", open), relationList("incoming", inc, "source_id", open)),
    section("Provenance", h("pre", { class: "provenance" }, pretty(record.provenance))),
    Object.keys(record.interpretation || {}).length
      ? section("Interpretation", h("pre", {}, pretty(record.interpretation)))
      : null,
    section(`Audit history (${audit.items.length})`, auditTable(audit.items)),
  );
  labelLinks(body, [...out.map((e) => e.target_id), ...inc.map((e) => e.source_id)]);
  return body;
}

// Highlight the open record among the search results and graph nodes.
function markOpen(id) {
  for (const el of document.querySelectorAll(".result[data-record-id], .node[data-record-id]")) {
    el.classList.toggle("selected", el.dataset.recordId === id);
  }
}

export async function openRecord(id, follow) {
  const token = ++latest;
  const pane = $("#detail");
  const open = (other) => openRecord(other, follow);
  pane.dataset.state = "loading";
  clear(pane, h("p", { class: "muted" }, "Loading record…"));
  try {
    const [record, relations, audit] = await Promise.all([api.record(id), api.relations(id), api.audit(id)]);
    if (token !== latest) return;
    clear(pane, render(record, relations, audit, open, follow));
    markOpen(id);
    pane.dataset.state = "ready";
    pane.scrollTop = 0;
  } catch (err) {
    if (token !== latest) return;
    clear(pane, h("p", { class: "error", role: "alert" }, `${id}: ${err.message}`));
    pane.dataset.state = "error";
  }
}

export function clearDetail() {
  latest++;
  markOpen(null);
  const pane = $("#detail");
  delete pane.dataset.state;
  clear(pane, h("p", { class: "muted placeholder" }, "Open a record to see its payload, relations, provenance and audit history."));
}
