// GET /v1/metrics as cards and charts, and growth: records created per day, counted from
// GET /v1/records (newest first) over the last two weeks.

import { api } from "./api.js";
import { barChart } from "./charts.js";
import { $, clear, fmt, h, when } from "./dom.js";

const DAYS = 14;
const PAGES = 4; // at most 4 × 500 records are counted for the growth chart
let latest = 0;

function card(name, value, hint) {
  return h("div", { class: "metric", title: hint || name }, h("div", { class: "metric-value" }, value), h("div", { class: "metric-name" }, name));
}

function pct(value) {
  return value === null || value === undefined ? "—" : `${(100 * value).toFixed(0)} %`;
}

function cards(m) {
  return h(
    "div",
    { class: "metric-cards" },
    card("records", fmt(m.total), "Records this key can read in full"),
    card("active", fmt(m.active)),
    card("pinned", fmt(m.pinned)),
    card("avg salience", fmt(m.avg_salience, 2)),
    card("avg confidence", fmt(m.avg_confidence, 2)),
    card("growth / hour", fmt(m.memory_growth_rate, 2), "Records created in the last 24 hours, per hour"),
    card("usefulness", pct(m.retrieval_usefulness), "Reinforcements / (reinforcements + penalties), 30 days"),
    card("revision rate", pct(m.revision_rate), "Superseded, retracted or contested"),
    card("audit entries", fmt(m.audit_entries)),
  );
}

async function growth(now) {
  const start = new Date(now.getTime() - (DAYS - 1) * 86400000);
  start.setHours(0, 0, 0, 0);
  const counts = new Array(DAYS).fill(0);
  let cursor = null;
  let complete = false;
  for (let page = 0; page < PAGES; page++) {
    const params = { created_after: start.toISOString(), limit: 500 };
    if (cursor) params.cursor = cursor;
    const answer = await api.list(params);
    for (const record of answer.items) {
      const day = Math.floor((new Date(record.created_at) - start) / 86400000);
      if (day >= 0 && day < DAYS) counts[day]++;
    }
    cursor = answer.next_cursor;
    if (!cursor) {
      complete = true;
      break;
    }
  }
  const data = counts.map((value, i) => {
    const date = new Date(start.getTime() + i * 86400000);
    const day = `${date.getMonth() + 1}/${date.getDate()}`;
    return { label: i % 2 === DAYS % 2 ? "" : day, value, title: `${date.toDateString()}: ${value}` };
  });
  return { data, complete };
}

function figure(title, chart, note) {
  return h("figure", { class: "figure" }, h("figcaption", {}, title), chart, note ? h("p", { class: "muted small" }, note) : null);
}

export async function loadMetrics() {
  const token = ++latest;
  const box = $("#metrics");
  box.dataset.state = "loading";
  clear(box, h("p", { class: "muted" }, "Loading metrics…"));
  try {
    const now = new Date();
    const [m, grown] = await Promise.all([api.metrics(), growth(now)]);
    if (token !== latest) return;
    const histogram = m.salience_histogram.map((b) => ({ label: b.lower.toFixed(1), value: b.count, title: `${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: ${b.count}` }));
    const types = Object.entries(m.by_type).map(([type, count]) => ({ label: type.replace("_", " "), value: count }));
    clear(
      box,
      h("p", { class: "muted small" }, `Snapshot of ${when(m.computed_at)} — only what this key can read.`),
      cards(m),
      h(
        "div",
        { class: "figures" },
        figure("Current salience", barChart(histogram, { caption: "Salience histogram" }), "Ten buckets of width 0.1."),
        figure("Records by type", barChart(types, { caption: "Records by type" })),
        figure(`Records created per day, last ${DAYS} days`, barChart(grown.data, { caption: "Growth" }), grown.complete ? "Counted from the record list, including redacted entries." : `Counted from the newest ${PAGES * 500} records only.`),
      ),
    );
    box.dataset.state = "ready";
  } catch (err) {
    if (token !== latest) return;
    clear(box, h("p", { class: "error", role: "alert" }, err.message));
    box.dataset.state = "error";
  }
}
