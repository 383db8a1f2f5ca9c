// The graph around an entity: POST /v1/retrieve/graph, nodes open records.

import { api } from "./api.js";
import { graphChart } from "./charts.js";
import { $, badge, clear, h } from "./dom.js";

const TYPES = ["entity", "semantic", "episodic", "working", "competence", "plan_graph", "redacted"];
let latest = 0;

export function graphBody() {
  const body = {
    query: $("#graph-query").value.trim() || undefined,
    max_hops: Number($("#graph-hops").value) || 1,
    limit: 5,
    node_limit: 60,
    edge_limit: 200,
  };
  if ($("#graph-entities").checked) body.types = ["entity"];
  return body;
}

function legend(result) {
  const present = new Set(result.nodes.map((n) => (n.record.redacted ? "redacted" : n.record.type)));
  const keys = TYPES.filter((t) => present.has(t)).map((t) => badge(t.replace("_", " "), `key node-${t}`));
  const note = `${result.roots.length} root(s), ${result.nodes.length} nodes, ${result.edges.length} edges`;
  return h("p", { class: "legend" }, keys, h("span", { class: "muted" }, note + (result.truncated ? " (truncated)" : "")));
}

export async function runGraph(open) {
  const token = ++latest;
  const box = $("#graph");
  box.dataset.state = "loading";
  clear(box, h("p", { class: "muted" }, "Walking the graph…"));
  try {
    const result = await api.graph(graphBody());
    if (token !== latest) return;
    if (!result.nodes.length) {
      clear(box, h("p", { class: "empty" }, "No record this key may see matches."));
    } else {
      const pick = (record) => (record.redacted ? open(null, record) : open(record.id));
      clear(box, legend(result), graphChart(result, pick));
    }
    box.dataset.state = "ready";
  } catch (err) {
    if (token !== latest) return;
    clear(box, h("p", { class: "error", role: "alert" }, err.message));
    box.dataset.state = "error";
  }
}

export function initGraph(open) {
  $("#graph-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    runGraph(open);
  });
}
