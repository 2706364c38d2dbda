// The runs pages of the web app: the run list, a run (its report, charts and samples), a
// comparison report, and one sample with its model and judge calls.

import { h, fill, api, fmt, meanSem, tableEl, hooks, latestOnly, route, view } from "./util.js";
import { chartEl } from "./charts.js";

// Runs ticked for comparison, kept across refreshes of the list.
const chosenRuns = new Set();
const REFRESH_MS = 5000;

function refreshWhileRunning(runs) {
  // A run in progress: show its new samples and scores without a manual reload.
  if (!runs.some((r) => r.status === "running")) return;
  // The page, not its filters: filters live in the query part and a refresh keeps them.
  const page = () => location.hash.split("?")[0];
  const shown = page();
  setTimeout(() => { if (page() === shown && !document.hidden) hooks.render(); }, REFRESH_MS);
}

export async function runsView(params) {
  const filters = { benchmark: params.get("benchmark") || "", model: params.get("model") || "", method: params.get("method") || "" };
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  const data = await api(`/api/runs?${query}`);
  const selects = Object.keys(filters).map((key) => {
    const sel = h("select", { testid: `filter-${key}`, onchange: () => {
      const next = new URLSearchParams(Object.entries({ ...filters, [key]: sel.value }).filter(([, v]) => v));
      location.hash = `#/runs?${next}`;
    } }, h("option", { value: "" }, "all"), data.facets[key].map((v) => h("option", { value: v }, v)));
    sel.value = filters[key];
    return h("label", {}, key, sel);
  });
  const chosen = chosenRuns;
  for (const id of [...chosen]) if (!data.runs.some((r) => r.id === id)) chosen.delete(id);
  const compare = h("button", { class: "primary", testid: "compare", disabled: chosen.size === 0, onclick: () => {
    location.hash = `#/report?${[...chosen].map((id) => `run=${encodeURIComponent(id)}`).join("&")}`;
  } }, "Compare selected");
  const scoreNames = [...new Set(data.runs.flatMap((r) => Object.keys(r.scores)))].slice(0, 4);
  const rows = data.runs.map((run) => h("tr", { class: "clickable", testid: "run-row", onclick: (e) => {
    if (e.target.tagName !== "INPUT") location.hash = `#/runs/${encodeURIComponent(run.id)}`;
  } },
    h("td", {}, h("input", { type: "checkbox", "aria-label": `select ${run.id}`, checked: chosen.has(run.id), onchange: (e) => {
      if (e.target.checked) chosen.add(run.id); else chosen.delete(run.id);
      compare.disabled = chosen.size === 0;
    } })),
    h("td", {}, h("a", { href: `#/runs/${encodeURIComponent(run.id)}` }, run.id)), h("td", {}, run.benchmark),
    h("td", {}, run.label), h("td", { class: "nowrap" }, run.status),
    h("td", { class: "num" }, `${run.ok}${run.failed ? ` + ${run.failed} failed` : ""} / ${run.total ?? "?"}`),
    scoreNames.map((name) => h("td", { class: "num" }, meanSem(run.scores[name]))),
    h("td", { class: "num" }, fmt(run.usage.calls)), h("td", { class: "num" }, run.usage.cost ? `$${run.usage.cost.toFixed(4)}` : "-"),
    h("td", { class: "small" }, run.created.replace("T", " ").slice(0, 19))));
  fill(view, 
    h("h1", {}, "Runs"), h("p", { class: "muted small" }, `${data.runs.length} of ${data.total} runs in ${data.store}`),
    h("div", { class: "filters" }, selects, compare),
    data.runs.length ? h("table", { class: "grid fit", testid: "runs-table" },
      h("thead", {}, h("tr", {}, ["", "run", "benchmark", "model / method", "status", "samples", ...scoreNames, "calls", "cost", "created"].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows))
      : h("p", { class: "muted" }, data.total ? "No run matches these filters." : "No runs yet: run a benchmark (for example `incanon demo`)."),
    data.runs.some((r) => r.status === "running") ? h("p", { class: "small muted", testid: "live" }, "Runs in progress: this list refreshes every 5 seconds.") : null);
  refreshWhileRunning(data.runs);
}

function sectionEl(section) {
  const parts = [h("h2", {}, section.title)];
  for (const note of section.notes) parts.push(h("div", { class: "note" }, note));
  for (const block of section.blocks) {
    if (block.kind === "heading") parts.push(h(`h${Math.min(6, block.level + 1)}`, {}, block.text));
    else if (block.kind === "table" && block.table) parts.push(tableEl(block.table, "paper-table"));
    else if (block.kind === "list") parts.push(h("ul", {}, block.items.map((i) => h("li", {}, i))));
    else if (block.kind === "note") parts.push(h("div", { class: "note" }, block.text));
    else parts.push(h("p", {}, block.text));
  }
  if (section.charts.length) {
    parts.push(h("h3", {}, "Charts"), h("div", { class: "charts" }, section.charts.map(chartEl)));
  }
  if (section.scores) parts.push(h("h3", {}, "Scores"), tableEl(section.scores, "scores-table"));
  if (section.costs) parts.push(h("h3", {}, "Calls, tokens and cost"), tableEl(section.costs));
  if (section.configuration.length) {
    parts.push(h("details", {}, h("summary", {}, "Run configuration"), section.configuration.map((b) =>
      b.kind === "list" ? h("ul", { class: "small" }, b.items.map((i) => h("li", {}, i))) : h("p", { class: "small" }, b.text))));
  }
  return h("section", { testid: "report-section" }, parts);
}

export async function reportView(params) {
  const runs = params.getAll("run");
  const report = await api(`/api/report?${runs.map((r) => `run=${encodeURIComponent(r)}`).join("&")}`);
  fill(view, h("p", {}, h("a", { href: "#/runs" }, "← runs")), h("h1", {}, report.title),
    report.sections.map(sectionEl));
}

export async function runView(runId, params) {
  const [run, report] = await Promise.all([api(`/api/runs/${encodeURIComponent(runId)}`),
    api(`/api/report?run=${encodeURIComponent(runId)}`)]);
  const samples = h("div", { testid: "samples" });
  fill(view, h("p", {}, h("a", { href: "#/runs" }, "← runs")),
    h("h1", {}, `${run.id}`), h("p", { class: "muted" }, `${run.benchmark} · ${run.label} · ${run.status} · ${run.ok} ok, ${run.failed} failed of ${run.total ?? "?"}`),
    run.status === "running" ? h("p", { class: "small muted", testid: "live" }, "In progress: this page refreshes every 5 seconds.") : null,
    report.sections.map(sectionEl), h("h2", {}, "Samples"), samples);
  await samplesList(run.id, params, samples);
  refreshWhileRunning([run]);
}

async function samplesList(runId, params, into) {
  const state = { status: params.get("status") || "", type: params.get("type") || "", q: params.get("q") || "",
    offset: Number(params.get("offset") || 0), limit: 50 };
  // Only the newest load, and only while the address is still on this run: two quick filter
  // changes are two requests, and a load that ends after a click elsewhere must neither show its
  // rows nor write the run's address over the page the person went to.
  const stillHere = () => { const { parts } = route(); return parts.length === 2 && parts[0] === "runs" && parts[1] === runId; };
  const samples = latestOnly((query) => api(`/api/runs/${encodeURIComponent(runId)}/samples?${query}`));
  const load = async () => {
    const query = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== "" && v !== null));
    const page = await samples(query);
    if (!page || !stillHere()) return;
    // Keep the filters in the address (no hashchange): a refresh or a shared link shows the same rows.
    const kept = new URLSearchParams(Object.entries(state).filter(([k, v]) => k !== "limit" && v !== "" && v !== 0));
    history.replaceState(null, "", `#/runs/${encodeURIComponent(runId)}${kept.size ? `?${kept}` : ""}`);
    const status = h("select", { testid: "sample-status", onchange: () => { state.status = status.value; state.offset = 0; load(); } },
      h("option", { value: "" }, "all"), Object.keys(page.statuses).map((s) => h("option", { value: s }, `${s} (${page.statuses[s]})`)));
    status.value = state.status;
    const type = h("select", { testid: "sample-type", onchange: () => { state.type = type.value; state.offset = 0; load(); } },
      h("option", { value: "" }, "all"), Object.keys(page.types).sort().map((t) => h("option", { value: t }, `${t} (${page.types[t]})`)));
    type.value = state.type;
    const text = h("input", { type: "search", value: state.q, placeholder: "id, question, answer", testid: "sample-search",
      onkeydown: (e) => { if (e.key === "Enter") { state.q = text.value; state.offset = 0; load(); } } });
    const scores = page.scores.slice(0, 5);
    const rows = page.rows.map((row) => h("tr", { class: "clickable", testid: "sample-row", onclick: () => {
      location.hash = `#/runs/${encodeURIComponent(runId)}/sample?item=${encodeURIComponent(row.item_id)}&epoch=${row.epoch}`;
    } }, h("td", {}, row.item_id), h("td", { class: "question", title: row.question_full || row.question, testid: "sample-question" }, row.question),
      h("td", {}, row.type ?? ""), h("td", { class: `status-${row.status}` }, row.status),
      scores.map((s) => h("td", { class: "num" }, fmt(row.scores[s]))), h("td", { class: "answer" }, row.status === "error" ? row.error : row.answer),
      h("td", { class: "num" }, fmt(row.calls)), h("td", { class: "num" }, fmt(row.tokens))));
    const pager = h("div", { class: "pager small" },
      h("button", { disabled: state.offset === 0, onclick: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } }, "previous"),
      `${page.matched ? state.offset + 1 : 0}–${Math.min(state.offset + state.limit, page.matched)} of ${page.matched} (${page.total} in the run)`,
      h("button", { disabled: state.offset + state.limit >= page.matched, onclick: () => { state.offset += state.limit; load(); } }, "next"));
    into.replaceChildren(h("div", { class: "filters" }, h("label", {}, "status", status), h("label", {}, "type", type),
      h("label", {}, "search", text)),
      h("table", { class: "grid fit", testid: "samples-table" },
        h("thead", {}, h("tr", {}, ["item", "question", "type", "status", ...scores, "answer", "calls", "tokens"].map((c) => h("th", {}, c)))),
        h("tbody", {}, rows)), pager);
  };
  await load();
}

function kvTable(object, testid) {
  return h("table", { class: "grid", testid }, h("tbody", {}, Object.entries(object).map(([k, v]) =>
    h("tr", {}, h("th", {}, k), h("td", {}, typeof v === "object" && v !== null ? JSON.stringify(v, null, 1) : fmt(v))))));
}

// The judges of a sample: each one's score, its reply (the rationale) and, when the run stored
// them, the calls it made (prompt and reply, a repair call too).
function judgesEl(s) {
  if (!s.judges.length) return null;
  return [h("h2", {}, `Judges (${s.judges.length})`), s.judges.map((j) => h("div", { class: "judge", testid: "sample-judge" },
    h("h3", {}, j.name.replace(/_/g, " "), " ", j.score !== null && j.score !== undefined ? h("span", { class: "tag" }, `score ${fmt(j.score)}`) : null),
    j.rationale ? h("pre", { testid: "sample-rationale" }, j.rationale) : null,
    j.calls.map((call, i) => h("details", { testid: "judge-call" }, h("summary", {}, `judge call ${i + 1}${call.step ? ` · ${call.step}` : ""}`),
      (call.messages || []).map((m) => [h("div", { class: "small muted" }, m.role), h("pre", {}, m.content)]),
      h("div", { class: "small muted" }, "output"), h("pre", {}, call.output)))))];
}

export async function sampleView(runId, params) {
  const item = params.get("item");
  const epoch = params.get("epoch") || "0";
  const s = await api(`/api/runs/${encodeURIComponent(runId)}/sample?item=${encodeURIComponent(item)}&epoch=${epoch}`);
  const usage = s.usage;
  fill(view, h("p", {}, h("a", { href: `#/runs/${encodeURIComponent(runId)}` }, `← run ${runId}`)),
    h("h1", { testid: "sample-title" }, s.item_id),
    h("p", { class: "muted" }, `${s.type ? `${s.type} · ` : ""}${s.status} · epoch ${s.epoch} · ${s.attempts} attempt(s) · ${fmt(s.duration_s, 2)} s`),
    s.error ? h("div", { class: "note", testid: "sample-error" }, `${s.error_type}: ${s.error}`) : null,
    s.traceback ? h("details", {}, h("summary", {}, "traceback"), h("pre", {}, s.traceback)) : null,
    h("h2", {}, "Input"), kvTable(s.input, "sample-input"),
    Array.isArray(s.outputs.messages) ? [h("h2", {}, "Conversation"), h("div", { class: "turns compact", testid: "sample-conversation" },
      s.outputs.messages.map((m) => h("div", { class: "turn character" }, h("div", { class: "who" }, `${m.role}${m.source ? ` · ${m.source}` : ""}`), m.content)))]
      : [h("h2", {}, "Answer"), h("pre", { testid: "sample-answer" }, s.answer || "(none)")],
    h("h2", {}, "Scores"), kvTable(s.scores, "sample-scores"),
    judgesEl(s),
    h("h2", {}, `Calls (${s.calls.length})`),
    s.calls.map((call, i) => h("details", { testid: "sample-call", open: i === s.calls.length - 1 },
      h("summary", {}, `${i + 1}. ${call.step}`),
      (call.messages || []).map((m) => [h("div", { class: "small muted" }, m.role), h("pre", {}, m.content)]),
      h("div", { class: "small muted" }, "output"), h("pre", {}, call.output))),
    h("h2", {}, "Usage"), kvTable({ calls: usage.calls, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens,
      cached_calls: usage.cached_calls, cost: usage.cost }, "sample-usage"),
    Object.keys(s.outputs).length ? h("details", { open: !Array.isArray(s.outputs.messages) },
      h("summary", {}, "Outputs"), h("pre", {}, JSON.stringify(s.outputs, null, 2))) : null,
    Object.keys(s.extra).length ? h("details", {}, h("summary", {}, "Everything else the task recorded"), h("pre", {}, JSON.stringify(s.extra, null, 2))) : null);
}

