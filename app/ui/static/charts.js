// Charts and the graph, drawn as inline SVG with DOM calls (no library, no markup strings).

import { label, svg } from "./dom.js";

const EDGE_LABELS = 16; // fewer lines than this: each shows its predicate

// Vertical bars: data = [{label, value, title}]. Returns an <svg>.
export function barChart(data, { width = 380, height = 200, caption = "", integer = true } = {}) {
  const pad = { top: 16, right: 8, bottom: 34, left: 30 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const top = Math.max(1, ...data.map((d) => d.value));
  const max = integer ? Math.max(2, Math.ceil(top / 2) * 2) : top; // whole half-way tick
  const step = plotW / Math.max(1, data.length);
  const stagger = data.some((d) => String(d.label).length * 6 > step); // long labels: two rows
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart",
    role: "img",
    "aria-label": caption,
  });
  chart.append(svg("title", {}, caption));
  for (const tick of [0, 0.5, 1]) {
    const y = pad.top + plotH * (1 - tick);
    const value = integer ? Math.round(max * tick) : (max * tick).toFixed(2);
    chart.append(
      svg("line", { x1: pad.left, x2: width - pad.right, y1: y, y2: y, class: "grid" }),
      svg("text", { x: pad.left - 6, y: y + 4, class: "tick", "text-anchor": "end" }, value),
    );
  }
  data.forEach((d, i) => {
    const barH = (plotH * d.value) / max;
    const x = pad.left + i * step + step * 0.12;
    const bar = svg("rect", {
      x,
      y: pad.top + plotH - barH,
      width: step * 0.76,
      height: Math.max(barH, d.value > 0 ? 1 : 0),
      class: "bar",
      dataset: { value: String(d.value) },
    });
    bar.append(svg("title", {}, d.title || `${d.label}: ${d.value}`));
    const cx = x + step * 0.38;
    chart.append(
      bar,
      svg("text", { x: cx, y: height - pad.bottom + 14 + (stagger && i % 2 ? 11 : 0), class: "tick", "text-anchor": "middle" }, d.label),
    );
    if (d.value > 0) {
      const vy = pad.top + plotH - barH - 4;
      chart.append(svg("text", { x: cx, y: vy, class: "value", "text-anchor": "middle" }, d.value));
    }
  });
  return chart;
}

function neighbourMap(nodes, edges) {
  const neighbours = new Map(nodes.map((n) => [n.record.id, new Set()]));
  for (const e of edges) {
    neighbours.get(e.source_id)?.add(e.target_id);
    neighbours.get(e.target_id)?.add(e.source_id);
  }
  return neighbours;
}

// A ring's nodes ordered by the mean angle of their neighbours further in, then chained so
// that nodes linked to each other sit side by side.
function orderRing(group, neighbours, pos, centre) {
  const angle = (node) => {
    const inner = [...neighbours.get(node.record.id)].map((id) => pos.get(id)).filter(Boolean);
    const sum = inner.reduce((s, p) => ({ x: s.x + p.x - centre.x, y: s.y + p.y - centre.y }), { x: 0, y: 0 });
    return inner.length ? Math.atan2(sum.y, sum.x) : 0;
  };
  const rest = [...group].sort((a, b) => angle(a) - angle(b));
  const ordered = [];
  while (rest.length) {
    ordered.push(rest.shift());
    let next;
    while ((next = rest.findIndex((n) => neighbours.get(ordered.at(-1).record.id).has(n.record.id))) >= 0) {
      ordered.push(...rest.splice(next, 1));
    }
  }
  return ordered;
}

// Nodes on rings by depth (a lone root in the centre).
function layout(nodes, edges, width, height) {
  const byDepth = new Map();
  for (const node of nodes) {
    if (!byDepth.has(node.depth)) byDepth.set(node.depth, []);
    byDepth.get(node.depth).push(node);
  }
  const neighbours = neighbourMap(nodes, edges);
  const centre = { x: width / 2, y: height / 2 };
  const depths = [...byDepth.keys()].sort((a, b) => a - b);
  const ringGap = (Math.min(width, height) / 2 - 30) / (depths.length - 0.4);
  const pos = new Map();
  depths.forEach((depth, ring) => {
    const group = ring === 0 ? byDepth.get(depth) : orderRing(byDepth.get(depth), neighbours, pos, centre);
    const radius = ring === 0 && group.length === 1 ? 0 : ringGap * (ring + 0.6);
    group.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / group.length - Math.PI / 2 + ring * 0.3;
      pos.set(node.record.id, { x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
    });
  });
  return pos;
}

// Paired edges (a→b and b→a) are drawn once, their predicates in the line's tooltip.
function edgeLines(edges) {
  const lines = new Map();
  for (const e of edges) {
    const key = [e.source_id, e.target_id].sort().join(" ");
    if (!lines.has(key)) lines.set(key, { a: e.source_id, b: e.target_id, predicates: [] });
    lines.get(key).predicates.push(e.predicate);
  }
  return [...lines.values()];
}

// The neighbourhood of POST /v1/retrieve/graph; clicking a node calls open(record).
export function graphChart(result, open, { width = 640, height = 460 } = {}) {
  const pos = layout(result.nodes, result.edges, width, height);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "graph", role: "img" });
  chart.append(svg("title", {}, "Graph around the query's best matches"));
  const lines = edgeLines(result.edges);
  for (const line of lines) {
    const a = pos.get(line.a);
    const b = pos.get(line.b);
    if (!a || !b) continue;
    const el = svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "edge" });
    el.append(svg("title", {}, line.predicates.join(" · ")));
    chart.append(el);
    if (lines.length <= EDGE_LABELS) {
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      chart.append(svg("text", { x: mid.x, y: mid.y - 3, class: "edge-label", "text-anchor": "middle" }, line.predicates[0]));
    }
  }
  for (const node of result.nodes) {
    const p = pos.get(node.record.id);
    const record = node.record;
    const kind = record.redacted ? "redacted" : record.type;
    const group = svg("g", {
      class: `node node-${kind}${node.depth === 0 ? " root" : ""}`,
      transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`,
      tabindex: 0,
      dataset: { recordId: record.id },
      onclick: () => open(record),
      onkeydown: (ev) => (ev.key === "Enter" ? open(record) : null),
    });
    group.append(
      svg("title", {}, `${label(record, 200)} — depth ${node.depth}, ${record.id}`),
      svg("circle", { r: node.depth === 0 ? 13 : 9 }),
      svg("text", { y: node.depth === 0 ? 27 : 22, "text-anchor": "middle" }, label(record, 26)),
    );
    chart.append(group);
  }
  return chart;
}
