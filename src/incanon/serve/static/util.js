// Helpers shared by the web app's modules. Every text from the server goes through text nodes
// (h()), never innerHTML, so canon text and model output cannot inject markup.

export const view = document.getElementById("view");
const flash = document.getElementById("flash");

// The router's render(), set by app.js (a page refreshes itself through it).
export const hooks = { render: async () => {} };

export function h(tag, attrs = {}, ...children) {
  const svg = ["svg", "g", "rect", "line", "text", "path", "title"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.setAttribute("class", value);
    else if (key === "testid") el.dataset.testid = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// `load` (async), made to answer only its newest call: an earlier call still on its way resolves
// to null. What a page shows must not depend on the order its answers arrive in: a reader who
// steps back twice, or picks two filters, makes two requests, and the first may come last.
export function latestOnly(load) {
  let newest = 0;
  return async (...args) => {
    const mine = ++newest;
    const value = await load(...args);
    return mine === newest ? value : null;
  };
}

export function fill(el, ...children) {
  // replaceChildren() with h()'s flattening: arrays nest, null and false are skipped.
  el.replaceChildren(...h("div", {}, ...children).childNodes);
}

export async function api(path, options = {}) {
  const init = { headers: { "Accept": "application/json" }, ...options };
  if (options.body !== undefined) {
    init.method = options.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    let message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    if (data && Array.isArray(data.detail)) {
      message = data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
    throw new Error(message);
  }
  return data;
}

export function showError(error) {
  flash.textContent = error instanceof Error ? error.message : String(error);
  flash.hidden = false;
}

export function clearError() { flash.hidden = true; flash.textContent = ""; }

export function fmt(value, digits = 3) {
  if (value === null || value === undefined) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(digits);
  return String(value);
}

export function meanSem(stat) {
  if (!stat || stat.mean === null || stat.mean === undefined) return "-";
  return stat.sem === null || stat.sem === undefined ? fmt(stat.mean) : `${fmt(stat.mean)} ± ${fmt(stat.sem)}`;
}

const NUMERIC = /^[+-]?[\d,]*\.?\d+%?( ± [\d.]+%?)?( \(.*\))?$/;

export function tableEl(table, testid) {
  return h("table", { class: "grid", testid },
    table.caption ? h("caption", {}, table.caption) : null,
    h("thead", {}, h("tr", {}, table.columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, table.rows.map((row) => h("tr", {},
      row.map((cell) => h("td", { class: NUMERIC.test(String(cell).trim()) ? "num" : null }, cell))))));
}

// The first `limit` characters of `text` (whitespace folded), cut at a word, with "…".
export function snippet(text, limit = 200) {
  const flat = String(text).replace(/\s+/g, " ").trim();
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit);
  const space = cut.lastIndexOf(" ");
  return `${space > limit * 0.6 ? cut.slice(0, space) : cut}…`;
}

export function route() {
  const hash = location.hash.replace(/^#/, "") || "/chat";
  const [path, query = ""] = hash.split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}
