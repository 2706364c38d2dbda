// incanon web app: chat with a character at a point on the story's timeline, and browse runs.
// Plain ES module, no build step. Every text from the server goes through textContent (h()),
// never innerHTML, so canon text and model output cannot inject markup.

const view = document.getElementById("view");
const flash = document.getElementById("flash");

// -- helpers ------------------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "testid") el.dataset.testid = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function fill(el, ...children) {
  // replaceChildren() with h()'s flattening: arrays nest, null and false are skipped.
  el.replaceChildren(...h("div", {}, ...children).childNodes);
}

async function api(path, options = {}) {
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

function showError(error) {
  flash.textContent = error instanceof Error ? error.message : String(error);
  flash.hidden = false;
}

function clearError() { flash.hidden = true; flash.textContent = ""; }

function fmt(value, digits = 3) {
  if (value === null || value === undefined) return "-";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(digits);
  return String(value);
}

function meanSem(stat) {
  if (!stat || stat.mean === null || stat.mean === undefined) return "-";
  return stat.sem === null || stat.sem === undefined ? fmt(stat.mean) : `${fmt(stat.mean)} ± ${fmt(stat.sem)}`;
}

const NUMERIC = /^[+-]?[\d,]*\.?\d+%?( ± [\d.]+%?)?( \(.*\))?$/;

function tableEl(table, testid) {
  return h("table", { class: "grid", testid },
    table.caption ? h("caption", {}, table.caption) : null,
    h("thead", {}, h("tr", {}, table.columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, table.rows.map((row) => h("tr", {},
      row.map((cell) => h("td", { class: NUMERIC.test(String(cell).trim()) ? "num" : null }, cell))))));
}

function route() {
  const hash = location.hash.replace(/^#/, "") || "/chat";
  const [path, query = ""] = hash.split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

// -- chat -----------------------------------------------------------------------------------------

const chatState = { works: [], methods: [], timeline: null, chat: null, selected: null, busy: false };

async function chatView() {
  const [works, methods] = await Promise.all([api("/api/works"), api("/api/methods")]);
  chatState.works = works;
  chatState.methods = methods;
  if (!works.length) {
    fill(view, h("p", {}, "The canon store holds no work: import one with `incanon canon import`."));
    return;
  }
  const workSel = h("select", { testid: "work", onchange: () => loadWork(workSel.value) },
    works.map((w) => h("option", { value: w.id }, `${w.title} (${w.id})`)));
  const charSel = h("select", { testid: "character", onchange: () => { updateMarks(); toStartingStop(); } });
  const methodSel = h("select", { testid: "method", onchange: () => changeMethod(methodSel.value) },
    methods.map((m) => h("option", { value: m.name, title: m.description }, m.name)));
  const methodHelp = h("p", { class: "small muted", testid: "method-help" });
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, step: 1, testid: "timeline",
    "aria-label": "Story time", oninput: () => showStop(), onchange: () => moveTo() });
  const stopLabel = h("div", { class: "stop-label", testid: "stop-label" });
  const stopInfo = h("div", { class: "small muted" });
  const marks = h("div", { class: "marks", testid: "marks" });
  const start = h("button", { class: "primary", testid: "start", onclick: () => startChat() }, "Start chat");
  const turns = h("div", { class: "turns", testid: "turns" },
    h("p", { class: "muted" }, "Choose a character and a point in the story, then start the chat."));
  const input = h("input", { type: "text", placeholder: "Say something, or /why, /at 2-4, /method rag-cutoff",
    testid: "say", disabled: true, onkeydown: (e) => { if (e.key === "Enter") send(); } });
  const sendBtn = h("button", { class: "primary", testid: "send", disabled: true, onclick: () => send() }, "Send");
  const saveBtn = h("button", { testid: "save", disabled: true, onclick: () => save() }, "Save");
  const header = h("div", { class: "small muted", testid: "chat-header" });
  const scope = h("div", { class: "scope", testid: "scope" }, h("p", { class: "muted small" }, "No chat yet."));
  const evidence = h("div", { class: "evidence", testid: "evidence" },
    h("p", { class: "muted small" }, "Click a reply to see the evidence behind it."));

  fill(view, h("div", { class: "chat" },
    h("section", { class: "panel" }, h("h2", {}, "Who and when"),
      h("label", {}, "Work", workSel), h("label", {}, "Character", charSel), h("label", {}, "Method", methodSel),
      methodHelp,
      h("div", { class: "timeline" }, h("label", {}, "Story time"), slider, stopLabel, stopInfo,
        h("div", { class: "small muted" }, "Time points of the character:"), marks),
      h("p", {}, start)),
    h("section", { class: "panel" }, h("h2", {}, "Conversation"), header, turns,
      h("div", { class: "composer" }, input, sendBtn, saveBtn)),
    h("section", { class: "panel" }, h("h2", {}, "Knowledge scope"), scope, h("h2", {}, "Evidence"), evidence)));

  const ui = { workSel, charSel, methodSel, methodHelp, slider, stopLabel, stopInfo, marks, start, turns, input,
    sendBtn, saveBtn, header, scope, evidence };
  chatState.ui = ui;
  methodSel.value = "in-canon";
  describeMethod();
  await loadWork(workSel.value);
}

function describeMethod() {
  const { methodSel, methodHelp } = chatState.ui;
  const method = chatState.methods.find((m) => m.name === methodSel.value);
  methodHelp.textContent = method ? method.description : "";
}

async function loadWork(work) {
  const ui = chatState.ui;
  const timeline = await api(`/api/works/${encodeURIComponent(work)}/timeline`);
  chatState.timeline = timeline;
  ui.charSel.replaceChildren(...timeline.characters.map((c) => h("option", { value: c.name }, c.name)));
  ui.slider.max = Math.max(0, timeline.stops.length - 1);
  updateMarks();
  toStartingStop();
}

// A new character starts at its first time point (else where it first appears, else the
// story's start): never at the end, where the character knows the most.
function toStartingStop() {
  const ui = chatState.ui;
  const { stops, characters } = chatState.timeline;
  const character = characters.find((c) => c.name === ui.charSel.value);
  let index = 0;
  if (character) {
    const firstPoint = character.time_points[0];
    const wanted = firstPoint ? firstPoint.at : character.first;
    const found = wanted ? stops.findIndex((s) => s.at === wanted) : -1;
    if (found >= 0) index = found;
  }
  ui.slider.value = String(index);
  showStop();
}

function currentStop() {
  const { stops } = chatState.timeline;
  return stops[Number(chatState.ui.slider.value)] || stops[0];
}

function showStop() {
  const stop = currentStop();
  const ui = chatState.ui;
  if (!stop) { ui.stopLabel.textContent = "(this work has no scenes)"; return; }
  ui.stopLabel.textContent = stop.label;
  const bits = [];
  if (stop.scenes.length > 1) bits.push(stop.scenes.map((s) => s.title || s.id).join(" / "));
  if (stop.date) bits.push(stop.date);
  if (stop.participants.length) bits.push(`present: ${stop.participants.join(", ")}`);
  for (const mark of stop.marks) bits.push(`${mark.character}: “${mark.label}”`);
  ui.stopInfo.textContent = bits.join(" · ");
}

function updateMarks() {
  const ui = chatState.ui;
  const character = chatState.timeline.characters.find((c) => c.name === ui.charSel.value);
  ui.marks.replaceChildren();
  if (!character) return;
  for (const tp of character.time_points) {
    const index = chatState.timeline.stops.findIndex((s) => s.at === tp.at);
    ui.marks.append(h("button", { title: tp.description || tp.at, onclick: () => {
      ui.slider.value = String(index); showStop(); if (chatState.chat) moveTo();
    } }, `${tp.label} (${tp.at})`));
  }
  if (character.first) ui.marks.append(h("span", { class: "small muted" }, `first appears at ${character.first}`));
}

async function startChat() {
  const ui = chatState.ui;
  clearError();
  try {
    if (chatState.chat) await api(`/api/chats/${chatState.chat.id}`, { method: "DELETE" });
    chatState.chat = null;
    const chat = await api("/api/chats", { body: { work: ui.workSel.value, character: ui.charSel.value,
      at: currentStop().at, method: ui.methodSel.value } });
    chatState.selected = null;
    const notes = [{ kind: "system", text: `${chat.character} at ${chat.at}${chat.time_label ? ` (${chat.time_label})` : ""}` }];
    if (chat.preparing) notes.push({ kind: "preparing", text: `Preparing: ${preparingText(chat.preparing)}; the first reply waits for it, everything else works meanwhile.` });
    renderChat(chat, notes);
    for (const el of [ui.input, ui.sendBtn, ui.saveBtn]) el.disabled = false;
    ui.start.textContent = "Restart chat";
    ui.input.focus();
  } catch (error) { showError(error); }
}

function renderChat(chat, notes = []) {
  const ui = chatState.ui;
  const previous = chatState.chat;
  chatState.chat = chat;
  chatState.log = previous && previous.id === chat.id ? chatState.log : [];
  chatState.log.push(...notes.map((n) => ({ ...n, after: chat.turns.length })));
  ui.header.textContent = `${chat.character} · ${chat.work_title} · at ${chat.at}${chat.time_label ? ` (${chat.time_label})` : ""} · method ${chat.method} · model ${chat.model}`;
  ui.turns.replaceChildren();
  const notesAfter = (count) => chatState.log.filter((n) => n.after === count).map((n) =>
    h("div", { class: `system ${n.kind === "error" ? "error" : ""}`, testid: n.kind === "error" ? "chat-error" : "chat-note" }, n.text));
  ui.turns.append(...notesAfter(0));
  chat.turns.forEach((turn, i) => {
    const mine = turn.speaker === "user";
    const el = h("div", { class: `turn ${mine ? "user" : "character"}${chatState.selected === turn.index ? " selected" : ""}`,
      testid: mine ? "turn-user" : "turn-character", onclick: mine ? null : () => selectTurn(turn.index) },
      h("div", { class: "who" }, mine ? "you" : `${turn.speaker} · ${turn.method} · at ${turn.at}`), turn.text);
    ui.turns.append(el, ...notesAfter(i + 1));
  });
  renderScope(chat.scope);
  const last = [...chat.turns].reverse().find((t) => t.evidence);
  if (chatState.selected === null && last) chatState.selected = last.index;
  renderEvidence();
}

function renderScope(scope) {
  const ui = chatState.ui;
  if (!scope) { ui.scope.replaceChildren(h("p", { class: "muted small" }, "No knowledge scope (the whole work is visible).")); return; }
  const kinds = Object.keys(scope.visible || {});
  ui.scope.replaceChildren(
    h("p", { class: "small" }, `${scope.character} at ${scope.at}${scope.witnessed_only ? " (only scenes they witnessed)" : ""}`),
    h("table", { class: "grid", testid: "scope-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "visible"), h("th", {}, "hidden"))),
      h("tbody", {}, kinds.map((k) => h("tr", {}, h("td", {}, k.replace("_", " ")),
        h("td", { class: "num" }, fmt(scope.visible[k])), h("td", { class: "num" }, fmt(scope.hidden[k] ?? "")))),
        h("tr", {}, h("td", {}, "future scenes"), h("td", {}, ""), h("td", { class: "num" }, fmt(scope.hidden.future_scenes))),
        h("tr", {}, h("td", {}, "missed scenes"), h("td", {}, ""), h("td", { class: "num" }, fmt(scope.hidden.missed_scenes))))));
}

function selectTurn(index) {
  chatState.selected = index;
  renderChat(chatState.chat);
}

function renderEvidence() {
  const ui = chatState.ui;
  const turn = chatState.chat && chatState.chat.turns.find((t) => t.index === chatState.selected);
  const ev = turn && turn.evidence;
  if (!ev) { ui.evidence.replaceChildren(h("p", { class: "muted small" }, "Click a reply to see the evidence behind it.")); return; }
  const parts = [h("dl", { class: "kv" }, h("dt", {}, "method"), h("dd", {}, ev.method), h("dt", {}, "at"),
    h("dd", {}, `${ev.at} — ${ev.when}`), h("dt", {}, "calls"), h("dd", {}, String(ev.calls.length)))];
  if (ev.hints.length) parts.push(h("h3", {}, "Hints"), h("ul", { class: "small" }, ev.hints.map((x) => h("li", {}, x))));
  if (ev.chunks.length) {
    parts.push(h("h3", {}, `Retrieved canon (${ev.chunks.length})`));
    for (const c of ev.chunks) {
      parts.push(h("div", { class: `chunk${c.in_scope ? "" : " hidden-scope"}`, testid: "evidence-chunk" },
        h("div", {}, h("span", { class: "tag" }, c.id), h("span", { class: "tag" }, `at ${c.position}`),
          c.score !== null ? h("span", { class: "tag" }, `score ${fmt(c.score)}`) : null,
          h("span", { class: `tag ${c.shown ? "good" : ""}` }, c.shown ? "in the prompt" : "not shown"),
          c.in_scope ? null : h("span", { class: "tag bad" }, c.label || "outside the scope")),
        h("div", {}, c.text)));
    }
  }
  const graph = ev.graph || {};
  if ((graph.nodes || []).length || (graph.relations || []).length) {
    parts.push(h("h3", {}, "Graph facts"),
      h("ul", { class: "small" }, (graph.nodes || []).map((n) => h("li", {}, String(n))),
        (graph.relations || []).map((r) => h("li", {}, typeof r === "object" ? `${r.source} — ${r.target}: ${r.description || ""}` : String(r)))));
  }
  if (ev.memories.length) parts.push(h("h3", {}, "Memories"), h("ul", { class: "small" }, ev.memories.map((m) => h("li", {}, m))));
  if (ev.examples.length) parts.push(h("h3", {}, "Examples shown"), h("pre", {}, JSON.stringify(ev.examples, null, 2)));
  parts.push(h("h3", {}, "Calls"));
  ev.calls.forEach((call, i) => parts.push(h("details", { testid: "evidence-call" },
    h("summary", {}, `${i + 1}. ${call.step} (${call.messages} messages)`),
    call.system ? h("pre", {}, call.system) : null, h("pre", {}, call.prompt), h("pre", {}, call.output))));
  ui.evidence.replaceChildren(...parts);
}

function preparingText(job) {
  const done = job.total ? ` (${job.done}/${job.total} chunks)` : "";
  return `embedding ${job.work} for retrieval, once${done}`;
}

async function watchPreparing(pending, work) {
  // While the work's first embedding runs, the pending line says how far it is.
  while (pending.isConnected) {
    let job = null;
    try { job = ((await api("/api/status")).embedding || []).find((j) => j.work === work); } catch { job = null; }
    if (!pending.isConnected) return;
    if (job && job.state === "embedding") pending.textContent = `${chatState.chat.character} is answering… (${preparingText(job)})`;
    else if (job) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function say(line) {
  const ui = chatState.ui;
  chatState.busy = true;
  for (const el of [ui.input, ui.sendBtn]) el.disabled = true;
  if (!line.startsWith("/")) {
    // The user's line shows at once; the reply (a local model can take a while) replaces this.
    const pending = h("div", { class: "system", testid: "pending" }, `${chatState.chat.character} is answering…`);
    ui.turns.append(h("div", { class: "turn user" }, h("div", { class: "who" }, "you"), line), pending);
    if (chatState.chat.preparing) watchPreparing(pending, chatState.chat.work);
  }
  try {
    const result = await api(`/api/chats/${chatState.chat.id}/say`, { body: { line } });
    const outcome = result.outcome;
    const notes = [];
    if (outcome.kind === "error") notes.push({ kind: "error", text: outcome.message });
    else if (["moved", "method", "saved"].includes(outcome.kind)) notes.push({ kind: "system", text: outcome.message });
    else if (outcome.kind === "help") notes.push({ kind: "system", text: Object.entries(outcome.data.commands).map(([k, v]) => `${k}: ${v}`).join("\n") });
    else if (outcome.kind === "why" && !outcome.evidence) notes.push({ kind: "system", text: "no reply yet" });
    if (outcome.kind === "reply") chatState.selected = outcome.turn.index;
    renderChat(result.chat, notes);
    syncControls(result.chat);
  } catch (error) {
    showError(error);
    renderChat(chatState.chat);  // drop the pending line; the server kept the history whole
  } finally {
    chatState.busy = false;
    for (const el of [ui.input, ui.sendBtn]) el.disabled = false;
  }
}

function syncControls(chat) {
  const ui = chatState.ui;
  ui.methodSel.value = chat.method;
  describeMethod();
  const index = chatState.timeline.stops.findIndex((s) => s.at === chat.at);
  if (index >= 0) { ui.slider.value = String(index); showStop(); }
}

async function send() {
  const ui = chatState.ui;
  const line = ui.input.value.trim();
  if (!line || !chatState.chat || chatState.busy) return;
  clearError();
  ui.input.value = "";
  await say(line);
  ui.input.focus();
}

async function moveTo() {
  if (!chatState.chat) return;
  const stop = currentStop();
  if (stop.at !== chatState.chat.at) await say(`/at ${stop.at}`);
}

async function changeMethod(method) {
  describeMethod();
  if (chatState.chat && method !== chatState.chat.method) await say(`/method ${method}`);
}

async function save() {
  if (!chatState.chat) return;
  const link = h("a", { href: `/api/chats/${chatState.chat.id}/transcript`, download: "" });
  document.body.append(link);
  link.click();
  link.remove();
}

// -- runs -----------------------------------------------------------------------------------------

// Runs ticked for comparison, kept across refreshes of the list.
const chosenRuns = new Set();
const REFRESH_MS = 5000;

function refreshWhileRunning(runs) {
  // A run in progress: show its new samples and scores without a manual reload.
  if (!runs.some((r) => r.status === "running")) return;
  // The page, not its filters: filters live in the query part and a refresh keeps them.
  const page = () => location.hash.split("?")[0];
  const shown = page();
  setTimeout(() => { if (page() === shown && !document.hidden) render(); }, REFRESH_MS);
}

async function runsView(params) {
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
    h("td", {}, run.label), h("td", {}, run.status),
    h("td", { class: "num" }, `${run.ok}${run.failed ? ` + ${run.failed} failed` : ""} / ${run.total ?? "?"}`),
    scoreNames.map((name) => h("td", { class: "num" }, meanSem(run.scores[name]))),
    h("td", { class: "num" }, fmt(run.usage.calls)), h("td", { class: "num" }, run.usage.cost ? `$${run.usage.cost.toFixed(4)}` : "-"),
    h("td", { class: "small" }, run.created.replace("T", " ").slice(0, 19))));
  fill(view, 
    h("h1", {}, "Runs"), h("p", { class: "muted small" }, `${data.runs.length} of ${data.total} runs in ${data.store}`),
    h("div", { class: "filters" }, selects, compare),
    data.runs.length ? h("table", { class: "grid", testid: "runs-table" },
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
    parts.push(h("h3", {}, "Charts"), h("div", { class: "charts" }, section.charts.map((chart) =>
      h("figure", { testid: "chart" }, h("img", { src: chart.image, alt: chart.title }), h("figcaption", {}, chart.title)))));
  }
  if (section.scores) parts.push(h("h3", {}, "Scores"), tableEl(section.scores, "scores-table"));
  if (section.costs) parts.push(h("h3", {}, "Calls, tokens and cost"), tableEl(section.costs));
  if (section.configuration.length) {
    parts.push(h("details", {}, h("summary", {}, "Run configuration"), section.configuration.map((b) =>
      b.kind === "list" ? h("ul", { class: "small" }, b.items.map((i) => h("li", {}, i))) : h("p", { class: "small" }, b.text))));
  }
  return h("section", { testid: "report-section" }, parts);
}

async function reportView(params) {
  const runs = params.getAll("run");
  const report = await api(`/api/report?${runs.map((r) => `run=${encodeURIComponent(r)}`).join("&")}`);
  fill(view, h("p", {}, h("a", { href: "#/runs" }, "← runs")), h("h1", {}, report.title),
    report.sections.map(sectionEl));
}

async function runView(runId, params) {
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
  const load = async () => {
    const query = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== "" && v !== null));
    const page = await api(`/api/runs/${encodeURIComponent(runId)}/samples?${query}`);
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
    } }, h("td", {}, row.item_id), h("td", {}, row.type ?? ""), h("td", { class: `status-${row.status}` }, row.status),
      scores.map((s) => h("td", { class: "num" }, fmt(row.scores[s]))), h("td", {}, row.status === "error" ? row.error : row.answer),
      h("td", { class: "num" }, fmt(row.calls)), h("td", { class: "num" }, fmt(row.tokens))));
    const pager = h("div", { class: "pager small" },
      h("button", { disabled: state.offset === 0, onclick: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } }, "previous"),
      `${page.matched ? state.offset + 1 : 0}–${Math.min(state.offset + state.limit, page.matched)} of ${page.matched} (${page.total} in the run)`,
      h("button", { disabled: state.offset + state.limit >= page.matched, onclick: () => { state.offset += state.limit; load(); } }, "next"));
    into.replaceChildren(h("div", { class: "filters" }, h("label", {}, "status", status), h("label", {}, "type", type),
      h("label", {}, "search", text)),
      h("table", { class: "grid", testid: "samples-table" },
        h("thead", {}, h("tr", {}, ["item", "type", "status", ...scores, "answer", "calls", "tokens"].map((c) => h("th", {}, c)))),
        h("tbody", {}, rows)), pager);
  };
  await load();
}

function kvTable(object, testid) {
  return h("table", { class: "grid", testid }, h("tbody", {}, Object.entries(object).map(([k, v]) =>
    h("tr", {}, h("th", {}, k), h("td", {}, typeof v === "object" && v !== null ? JSON.stringify(v, null, 1) : fmt(v))))));
}

async function sampleView(runId, params) {
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
    Object.keys(s.rationales).length ? [h("h2", {}, "Judge rationale"), Object.entries(s.rationales).map(([k, v]) =>
      [h("h3", {}, k.replace(/_/g, " ")), h("pre", { testid: "sample-rationale" }, v)])] : null,
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

// -- router ---------------------------------------------------------------------------------------

async function render() {
  const { parts, params } = route();
  clearError();
  for (const link of document.querySelectorAll("[data-nav]")) link.classList.toggle("active", link.dataset.nav === parts[0]);
  try {
    if (parts[0] === "runs" && parts.length === 1) await runsView(params);
    else if (parts[0] === "runs" && parts[2] === "sample") await sampleView(parts[1], params);
    else if (parts[0] === "runs") await runView(parts[1], params);
    else if (parts[0] === "report") await reportView(params);
    else if (parts[0] === "chat" && chatState.ui && view.contains(chatState.ui.turns)) return;
    else await chatView();
  } catch (error) {
    fill(view, h("p", { class: "muted" }, "This page could not be shown."));
    showError(error);
  }
  document.body.dataset.ready = parts[0] || "chat";
}

window.addEventListener("hashchange", render);
api("/api/info").then((info) => {
  document.getElementById("about").textContent = `incanon ${info.version} · model ${info.model}`;
}).catch(showError);
render();
