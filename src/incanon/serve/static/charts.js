// Report charts drawn in the browser as SVG: hover a bar for its value, zoom into the
// categories (the + / − buttons or the mouse wheel, ‹ › to pan), and download the chart's
// table as CSV. A histogram is drawn as bars over its bins.

import { h, fmt } from "./util.js";

const W = 560, H = 280, M = { top: 12, right: 12, bottom: 52, left: 48 };
const COLORS = ["#0b5cad", "#d4731c", "#1a7f37", "#8250df", "#b42318", "#57606a"];

// Bins of a histogram: the chart's edges, or ten equal bins over the values.
function histogramEdges(chart, values) {
  if (chart.bins && chart.bins.length > 1) return chart.bins;
  const lo = Math.min(...values), hi = Math.max(...values);
  if (!values.length || lo === hi) return [lo - 0.5, lo + 0.5];
  return Array.from({ length: 11 }, (_, i) => lo + ((hi - lo) * i) / 10);
}

// A chart as a table: one row per category (a histogram's bin), a value (and error) per series.
export function chartTable(chart) {
  if (chart.kind !== "histogram") {
    return { categories: chart.categories, series: chart.series.map((s) => ({ name: s.name, values: s.values, errors: s.errors })) };
  }
  const all = chart.series.flatMap((s) => s.values.filter((v) => v !== null));
  const edges = histogramEdges(chart, all);
  const categories = edges.slice(0, -1).map((e, i) => `${fmt(e, 2)} – ${fmt(edges[i + 1], 2)}`);
  const series = chart.series.map((s) => ({ name: s.name, errors: null, values: categories.map((_, i) =>
    s.values.filter((v) => v !== null && v >= edges[i] && (v < edges[i + 1] || (i === categories.length - 1 && v === edges[i + 1]))).length) }));
  return { categories, series };
}

function csvCell(value) {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function chartCsv(chart) {
  const table = chartTable(chart);
  const head = [chart.kind === "histogram" ? chart.x_label || "bin" : chart.x_label || "category"];
  for (const s of table.series) head.push(s.name, ...(s.errors ? [`${s.name} ${chart.error || "error"}`] : []));
  const rows = table.categories.map((c, i) => [c, ...table.series.flatMap((s) => [s.values[i], ...(s.errors ? [s.errors[i]] : [])])]);
  return [head, ...rows].map((row) => row.map(csvCell).join(",")).join("\n") + "\n";
}

// A round tick step (1, 2, 2.5 or 5 times a power of ten) at least `raw`.
function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((v) => v >= raw);
}

function draw(chart, table, win, svg, tip) {
  const cats = table.categories.slice(win.start, win.end);
  const shown = table.series.map((s) => s.values.slice(win.start, win.end).map((v, i) => ({ v, e: s.errors ? s.errors[win.start + i] : null })));
  const tops = shown.flat().filter((p) => p.v !== null).map((p) => p.v + (p.e || 0));
  // All zeros: a 0-to-1 axis, so the zeros are drawn on it instead of an empty box.
  const top = Math.max(0, ...tops) || 1;
  const step = niceStep(top / 4);
  const [y0, y1] = chart.y_range && chart.kind !== "histogram" ? chart.y_range : [0, Math.ceil(top / step) * step];
  const plotW = W - M.left - M.right, plotH = H - M.top - M.bottom;
  const y = (v) => M.top + plotH - ((Math.min(Math.max(v, y0), y1) - y0) / (y1 - y0 || 1)) * plotH;
  const band = plotW / Math.max(1, cats.length), barW = (band * 0.8) / Math.max(1, shown.length);
  const parts = [];
  for (let t = 0; t <= 4; t += 1) {
    const v = y0 + ((y1 - y0) * t) / 4;
    parts.push(h("line", { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v), stroke: "#e5e7eb" }),
      h("text", { x: M.left - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10 }, fmt(v, 2)));
  }
  cats.forEach((cat, i) => {
    const x0 = M.left + band * i + band * 0.1;
    shown.forEach((points, k) => {
      const { v, e } = points[i];
      if (v === null || v === undefined) return;
      const label = `${cat} · ${table.series[k].name}: ${fmt(v)}${e ? ` ± ${fmt(e)}` : ""}`;
      const x = x0 + barW * k;
      // A zero is a visible 2 px bar on the axis (with its value on hover), not nothing.
      const tall = Math.max(v === y0 ? 2 : 0, y(y0) - y(Math.max(v, y0)));
      parts.push(h("rect", { x, y: y(y0) - tall, width: Math.max(1, barW - 1), height: tall,
        fill: COLORS[k % COLORS.length], "data-value": v, testid: "chart-bar",
        onmouseenter: (ev) => { tip.textContent = label; tip.hidden = false; moveTip(ev, tip); },
        onmousemove: (ev) => moveTip(ev, tip), onmouseleave: () => { tip.hidden = true; } }, h("title", {}, label)));
      if (e) parts.push(h("line", { x1: x + barW / 2, x2: x + barW / 2, y1: y(v - e), y2: y(v + e), stroke: "#1b1f24" }));
    });
    parts.push(h("text", { x: M.left + band * (i + 0.5), y: H - M.bottom + 14, "text-anchor": "middle", "font-size": 10 },
      cat.length > 18 ? `${cat.slice(0, 17)}…` : cat));
  });
  parts.push(h("line", { x1: M.left, x2: W - M.right, y1: y(y0), y2: y(y0), stroke: "#57606a" }),
    h("text", { x: 12, y: M.top + plotH / 2, transform: `rotate(-90 12 ${M.top + plotH / 2})`, "text-anchor": "middle", "font-size": 11 }, chart.y_label),
    h("text", { x: M.left + plotW / 2, y: H - 8, "text-anchor": "middle", "font-size": 11 }, chart.x_label));
  svg.replaceChildren(...parts);
}

function moveTip(ev, tip) {
  const box = tip.parentElement.getBoundingClientRect();
  tip.style.left = `${ev.clientX - box.left + 10}px`;
  tip.style.top = `${ev.clientY - box.top + 10}px`;
}

export function chartEl(chart) {
  const table = chartTable(chart);
  const n = table.categories.length;
  const win = { start: 0, end: n };
  const svg = h("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": chart.title, testid: "chart-svg" });
  const tip = h("div", { class: "chart-tip", testid: "chart-tip", hidden: true });
  const status = h("span", { class: "small muted", testid: "chart-window" });
  const redraw = () => {
    draw(chart, table, win, svg, tip);
    status.textContent = win.end - win.start < n ? `${win.end - win.start} of ${n} shown` : "";
  };
  const zoom = (factor) => {
    const span = Math.min(n, Math.max(1, Math.round((win.end - win.start) * factor)));
    const middle = (win.start + win.end) / 2;
    win.start = Math.max(0, Math.min(n - span, Math.round(middle - span / 2)));
    win.end = win.start + span;
    redraw();
  };
  const pan = (step) => {
    const span = win.end - win.start;
    win.start = Math.max(0, Math.min(n - span, win.start + step));
    win.end = win.start + span;
    redraw();
  };
  svg.addEventListener("wheel", (ev) => { ev.preventDefault(); zoom(ev.deltaY < 0 ? 0.5 : 2); }, { passive: false });
  const slug = chart.title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "chart";
  const csv = `data:text/csv;charset=utf-8,${encodeURIComponent(chartCsv(chart))}`;
  const legend = table.series.length > 1 ? h("div", { class: "legend small" }, table.series.map((s, k) =>
    h("span", {}, h("i", { style: `background:${COLORS[k % COLORS.length]}` }), s.name))) : null;
  redraw();
  return h("figure", { testid: "chart" },
    h("div", { class: "chart-tools small" },
      h("button", { title: "zoom in", testid: "chart-zoom-in", onclick: () => zoom(0.5) }, "+"),
      h("button", { title: "zoom out", testid: "chart-zoom-out", onclick: () => zoom(2) }, "−"),
      h("button", { title: "pan left", onclick: () => pan(-1) }, "‹"), h("button", { title: "pan right", onclick: () => pan(1) }, "›"),
      status, h("a", { href: csv, download: `${slug}.csv`, testid: "chart-csv" }, "download table (CSV)")),
    h("div", { class: "chart-plot" }, svg, tip), legend, h("figcaption", {}, chart.title));
}
