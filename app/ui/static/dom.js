// DOM helpers. Records are untrusted input: every piece of text goes into the page as a
// text node (textContent / createTextNode), never as markup: no HTML parsing sink is used.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function assign(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  return el;
}

// h("div", {class: "x", onclick: f}, "text", child, [more]) → an element.
export function h(tag, props, ...children) {
  return append(assign(document.createElement(tag), props), children);
}

export function svg(tag, attrs, ...children) {
  return append(assign(document.createElementNS(SVG_NS, tag), attrs), children);
}

export function clear(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export function $(selector) {
  return document.querySelector(selector);
}

export function show(el, visible) {
  el.hidden = !visible;
}

export function fmt(value, digits = 3) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

export function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

function clip(text, max = 160) {
  const s = String(text ?? "");
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

function objectText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

// One line saying what a record is about, from its payload (plain text).
export function summary(record) {
  const p = record.payload || {};
  const byKind = {
    episodic: () => p.summary,
    working: () => p.context_summary || `thread ${p.thread_id} (${p.state})`,
    entity: () => (p.primary_type ? `${p.canonical_name} (${p.primary_type})` : p.canonical_name),
    semantic: () => `${p.subject} ${p.predicate} ${objectText(p.object)}`,
    competence: () => p.skill_name,
    plan_graph: () => p.intent || p.plan_id,
  };
  const text = (byKind[p.kind] || (() => ""))();
  return clip(text || JSON.stringify(p));
}

// A short label for a node or a link: type and summary, or "redacted".
export function label(record, max = 40) {
  return record.redacted ? `${record.type} (redacted)` : clip(summary(record), max);
}

export function badge(text, kind) {
  return h("span", { class: `badge ${kind || ""}`.trim() }, text);
}

export function recordBadges(record) {
  return [
    badge(record.type, `type-${record.type}`),
    badge(record.sensitivity, `sens-${record.sensitivity}`),
    record.scope ? badge(`scope: ${record.scope}`, "scope") : badge("no scope", "scope"),
    record.status !== "active" ? badge(record.status, "status") : null,
  ];
}
