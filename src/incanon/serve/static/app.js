// incanon web app: chat with a character at a point on the story's timeline, and browse runs.
// Plain ES modules, no build step: util.js (helpers), markdown.js (replies), runs.js and
// charts.js (the runs pages). Every text from the server goes through text nodes (h(),
// markdown()), never innerHTML, so canon text and model output cannot inject markup.

import { h, fill, api, showError, clearError, fmt, snippet, route, hooks, view } from "./util.js";
import { markdown } from "./markdown.js";
import { runsView, runView, reportView, sampleView } from "./runs.js";
import { storeReader, withReader, isAfter, readerControl, timelineLoader } from "./reader.js";
import { savedChats, rememberChat, lastChat } from "./saved.js";
import { sceneView, sceneShown } from "./scene.js";

// -- chat -----------------------------------------------------------------------------------------

const chatState = { works: [], methods: [], timeline: null, chat: null, selected: null, busy: false, reader: "" };

async function chatView() {
  const [works, methods] = await Promise.all([api("/api/works"), api("/api/methods")]);
  chatState.works = works;
  chatState.methods = methods;
  if (!works.length) {
    fill(view, h("p", {}, "The canon store holds no work: import one with `incanon canon import`."));
    return;
  }
  // The title alone fits the panel; the id only tells apart works of one title.
  const titled = (w) => works.filter((o) => o.title === w.title).length > 1 ? `${w.title} (${w.id})` : w.title;
  const workSel = h("select", { testid: "work", onchange: () => loadWork(workSel.value) },
    works.map((w) => h("option", { value: w.id, title: w.id }, titled(w))));
  const charSel = h("select", { testid: "character", onchange: () => { updateMarks(); toStartingStop(); } });
  const methodSel = h("select", { testid: "method", onchange: () => changeMethod(methodSel.value) },
    methods.map((m) => h("option", { value: m.name, title: m.description }, m.name)));
  const methodHelp = h("p", { class: "small muted", testid: "method-help" });
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, step: 1, testid: "timeline",
    "aria-label": "Story time", oninput: () => { showStop(); settleMove(); }, onchange: () => settleMove(),
    onpointerup: () => settleMove(0) });
  const stopLabel = h("div", { class: "stop-label", testid: "stop-label" });
  const stopInfo = h("div", { class: "small muted" });
  const marks = h("div", { class: "marks", testid: "marks" });
  const readerBox = h("div", { testid: "reader-box" });
  const readerHelp = h("p", { class: "small muted", testid: "reader-help" });
  const start = h("button", { class: "primary", testid: "start", onclick: () => startChat() }, "Start chat");
  const turns = h("div", { class: "turns", testid: "turns" },
    h("p", { class: "muted" }, "Choose a character and a point in the story, then start the chat."));
  const input = h("input", { type: "text", placeholder: "Say something, or /why, /at 2-4, /method rag-cutoff", title: "/help lists the commands",
    testid: "say", disabled: true, onkeydown: (e) => { if (e.key === "Enter") send(); } });
  const sendBtn = h("button", { class: "primary", testid: "send", disabled: true, onclick: () => send() }, "Send");
  const saveBtn = h("button", { testid: "save", disabled: true, onclick: () => save() }, "Save");
  const header = h("div", { class: "small muted", testid: "chat-header" });
  const scope = h("div", { class: "scope", testid: "scope" }, h("p", { class: "muted small" }, "No chat yet."));
  const evidence = h("div", { class: "evidence", testid: "evidence" },
    h("p", { class: "muted small" }, "Click a reply to see the evidence behind it."));
  const kept = savedChats(() => chatState.reader, (chat) => reopened(chat), showError);

  fill(view, h("div", { class: "chat" },
    h("section", { class: "panel" }, h("h2", {}, "Who and when"),
      h("label", {}, "Work", workSel), h("label", {}, "I have read up to"), readerBox, readerHelp,
      h("label", {}, "Character", charSel), h("label", {}, "Method", methodSel),
      methodHelp,
      h("div", { class: "timeline" }, h("label", {}, "Story time"), slider, stopLabel, stopInfo,
        h("div", { class: "small muted" }, "Time points of the character:"), marks),
      h("p", {}, start), h("label", {}, "Kept chats", kept.select)),
    h("section", { class: "panel" }, h("h2", {}, "Conversation"), header, turns,
      h("div", { class: "composer" }, input, sendBtn, saveBtn)),
    h("section", { class: "panel" }, h("h2", {}, "Knowledge scope"), scope, h("h2", {}, "Evidence"), evidence)));

  const ui = { workSel, charSel, methodSel, methodHelp, slider, stopLabel, stopInfo, marks, start, turns, input,
    sendBtn, saveBtn, header, scope, evidence, readerBox, readerHelp, kept };
  chatState.ui = ui;
  methodSel.value = "in-canon";
  describeMethod();
  await loadWork(workSel.value);  // lists the kept chats too
  const last = lastChat();
  if (last) {  // reopening lists them again, with this one chosen (renderChat)
    try { await reopened(await api(withReader(`/api/chats/${last}`, chatState.reader))); } catch { rememberChat(""); }
  }
}

// A kept chat, reopened where it was. The left panel (work, character, method, story time)
// follows it: "Restart chat" starts from those controls, so left on the previous chat's values
// it would replace the reopened chat with another character's.
async function reopened(chat) {
  const ui = chatState.ui;
  chatState.selected = null;
  renderChat(chat, [{ kind: "system", text: `Reopened: ${chat.character} at ${chat.at}` }]);
  for (const el of [ui.input, ui.sendBtn, ui.saveBtn]) el.disabled = false;
  ui.start.textContent = "Restart chat";
  if (chat.work && ui.workSel.value !== chat.work) {
    ui.workSel.value = chat.work;
    await loadWork(chat.work);  // puts the slider on the chat's stop
  }
  if (![...ui.charSel.options].some((o) => o.value === chat.character)) {
    ui.charSel.append(h("option", { value: chat.character }, chat.character));
  }
  ui.charSel.value = chat.character;
  updateMarks();
  syncControls(chat);
}

function describeMethod() {
  const { methodSel, methodHelp } = chatState.ui;
  const method = chatState.methods.find((m) => m.name === methodSel.value);
  methodHelp.textContent = method ? method.description : "";
}

// The work's timeline as the reader may see it: the server sends nothing after the reader's
// position (kept per work in this browser).
const loadTimeline = timelineLoader();

async function loadWork(work) {
  const ui = chatState.ui;
  const timeline = await loadTimeline(work);
  if (!timeline) return;  // a newer choice of work or position is loading: it decides
  const keep = ui.charSel.value;
  chatState.timeline = timeline;
  chatState.reader = timeline.reader.at || "";
  ui.readerBox.replaceChildren(readerControl(timeline.reader, (at) => { storeReader(work, at); loadWork(work); }));
  ui.readerHelp.textContent = chatState.reader
    ? "Nothing after this point is shown or sent: characters, time points, scenes, titles. Chats stay at or before it."
    : "Not set: every point is named by its position only (no titles, labels or who was there).";
  ui.charSel.replaceChildren(...timeline.characters.map((c) => h("option", { value: c.name }, c.name)));
  if (timeline.characters.some((c) => c.name === keep)) ui.charSel.value = keep;
  ui.slider.max = Math.max(0, timeline.stops.length - 1);
  // The /at example is a position of this work (a one-book work has no "2-4").
  const example = timeline.stops[Math.min(1, timeline.stops.length - 1)];
  ui.input.placeholder = `Say something, or /why${example ? `, /at ${example.at}` : ""}, /method rag-cutoff`;
  updateMarks();
  ui.kept.refresh(chatState.chat && chatState.chat.id);  // the kept chats the reader may see from here
  const chat = chatState.chat;
  const here = chat ? timeline.stops.findIndex((s) => s.at === chat.at) : -1;
  if (here >= 0) { ui.slider.value = String(here); showStop(); }
  else if (chat && chatState.reader && isAfter(chat.at, chatState.reader)) {
    // The reader stepped back behind the chat: it moves to the last point they have read.
    ui.slider.value = ui.slider.max; showStop(); moveTo();
  } else toStartingStop();
}

// A new character starts at its first time point (else where it first appears, else the
// story's start): never at the end, where the character knows the most.
function toStartingStop() {
  const ui = chatState.ui;
  const { stops, characters } = chatState.timeline;
  const character = characters.find((c) => c.name === ui.charSel.value);
  let index = 0;
  if (character) {
    // The character's first time point; but one whose first point is the end of the story
    // opens where a reader first meets it, not at the most spoiled point.
    const at = (wanted) => (wanted ? stops.findIndex((s) => s.at === wanted) : -1);
    const firstPoint = character.time_points[0];
    const point = at(firstPoint && firstPoint.at), met = at(character.first);
    index = point >= 0 && !(point === stops.length - 1 && met >= 0) ? point : Math.max(0, met);
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
  // A time point named only by its position says whose it is once, not "NAME: “1-3”" per character.
  const bare = stop.marks.filter((m) => m.label === stop.at).map((m) => m.character);
  if (bare.length) bits.push(`time point of ${bare.join(", ")}`);
  for (const mark of stop.marks) if (mark.label !== stop.at) bits.push(`${mark.character}: “${mark.label}”`);
  ui.stopInfo.textContent = bits.join(" · ");
}

function updateMarks() {
  const ui = chatState.ui;
  const character = chatState.timeline.characters.find((c) => c.name === ui.charSel.value);
  ui.marks.replaceChildren();
  if (!character) return;
  for (const tp of character.time_points) {
    const index = chatState.timeline.stops.findIndex((s) => s.at === tp.at);
    ui.marks.append(h("button", { testid: "time-point", title: tp.description || tp.at, onclick: () => {
      ui.slider.value = String(index); showStop(); if (chatState.chat) moveTo();
    } }, tp.label === tp.at ? tp.at : `${tp.label} (${tp.at})`));
  }
  if (character.first) ui.marks.append(h("span", { class: "small muted" }, `first appears at ${character.first}`));
}

async function startChat() {
  const ui = chatState.ui;
  clearError();
  try {
    if (chatState.chat) await api(`/api/chats/${chatState.chat.id}`, { method: "DELETE" });
    chatState.chat = null;
    const chat = await api(withReader("/api/chats", chatState.reader), { body: { work: ui.workSel.value, character: ui.charSel.value,
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
  rememberChat(chat.id);
  // A move changes which kept chats the reader may see (the open one, moved back with them).
  if (!previous || previous.id !== chat.id || previous.turns.length !== chat.turns.length
    || previous.at !== chat.at) ui.kept.refresh(chat.id);
  chatState.log = previous && previous.id === chat.id ? chatState.log : [];
  // "Preparing: embedding ..." says what the first reply waits for; gone once it is ready.
  if (!chat.preparing) chatState.log = chatState.log.filter((n) => n.kind !== "preparing");
  chatState.log.push(...notes.map((n) => ({ ...n, after: chat.turns.length })));
  ui.header.textContent = `${chat.character} · ${chat.work_title} · at ${chat.at}${chat.time_label ? ` (${chat.time_label})` : ""} · method ${chat.method} · model ${chat.model}`;
  ui.turns.replaceChildren();
  const notesAfter = (count) => chatState.log.filter((n) => n.after === count).map((n) =>
    h("div", { class: `system ${n.kind === "error" ? "error" : ""}`, testid: n.kind === "error" ? "chat-error" : "chat-note" }, n.text));
  ui.turns.append(...notesAfter(0));
  const lastIndex = chat.turns.length - 1;
  chat.turns.forEach((turn, i) => {
    const mine = turn.speaker === "user";
    const again = !mine && i === lastIndex && i > 0 && chat.turns[i - 1].speaker === "user"
      ? h("button", { class: "regenerate", testid: "regenerate", title: "Ask the last line again for a new reply",
        onclick: (e) => { e.stopPropagation(); regenerate(); } }, "↻ regenerate") : null;
    const el = h("div", { class: `turn ${mine ? "user" : "character"}${chatState.selected === turn.index ? " selected" : ""}`,
      testid: mine ? "turn-user" : "turn-character", onclick: mine ? null : () => selectTurn(turn.index) },
      h("div", { class: "who" }, mine ? "you" : `${turn.speaker} · ${turn.method} · at ${turn.at}`),
      mine ? h("div", { class: "plain" }, turn.text) : markdown(turn.text), again);
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
        chunkText(c.text)));
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

// A chunk shows its first ~200 characters; the whole text opens below them.
const SNIPPET_CHARS = 200;

function chunkText(text) {
  if (text.length <= SNIPPET_CHARS) return h("div", { class: "chunk-text" }, text);
  return h("details", { class: "chunk-text", testid: "chunk-more" },
    h("summary", {}, h("span", { class: "snip", testid: "chunk-snippet" }, snippet(text, SNIPPET_CHARS)),
      h("span", { class: "more small" }, ` show all ${text.length} characters`)),
    h("div", { testid: "chunk-full" }, text));
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

// Runs a line; true when it was taken (false: refused or failed, so send() keeps its text).
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
    const result = await api(withReader(`/api/chats/${chatState.chat.id}/say`, chatState.reader), { body: { line } });
    const outcome = result.outcome;
    const notes = [];
    if (outcome.kind === "error") notes.push({ kind: "error", text: outcome.message });
    else if (["moved", "method", "saved"].includes(outcome.kind)) notes.push({ kind: "system", text: outcome.message });
    else if (outcome.kind === "help") notes.push({ kind: "system", text: Object.entries(outcome.data.commands).map(([k, v]) => `${k}: ${v}`).join("\n") });
    else if (outcome.kind === "why" && !outcome.evidence) notes.push({ kind: "system", text: "no reply yet" });
    if (outcome.kind === "reply") chatState.selected = outcome.turn.index;
    renderChat(result.chat, notes);
    syncControls(result.chat);
    return outcome.kind !== "error";
  } catch (error) {
    showError(error);
    renderChat(chatState.chat);  // drop the pending line; the server kept the history whole
    return false;
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

async function regenerate() {
  const ui = chatState.ui;
  if (!chatState.chat || chatState.busy) return;
  clearError();
  chatState.busy = true;
  for (const el of [ui.input, ui.sendBtn]) el.disabled = true;
  const old = ui.turns.querySelector("[data-testid=regenerate]");
  if (old) old.replaceWith(h("div", { class: "system", testid: "pending" }, `${chatState.chat.character} is answering again…`));
  try {
    const result = await api(withReader(`/api/chats/${chatState.chat.id}/regenerate`, chatState.reader), { body: {} });
    chatState.selected = result.outcome.turn.index;
    renderChat(result.chat);
  } catch (error) {
    showError(error);
    renderChat(chatState.chat);
  } finally {
    chatState.busy = false;
    for (const el of [ui.input, ui.sendBtn]) el.disabled = false;
  }
}

async function send() {
  const ui = chatState.ui;
  const line = ui.input.value.trim();
  if (!line || !chatState.chat || chatState.busy) return;
  clearError();
  ui.input.value = "";
  if (!(await say(line)) && !ui.input.value) ui.input.value = line;  // a refused line is not lost
  ui.input.focus();
}

// The slider moves the chat once it settles: ~400 ms after the last step (arrow keys, dragging)
// or at once when the pointer is released, so five quick steps are one move, not five.
const SETTLE_MS = 400;
let settleTimer = null;

function settleMove(delay = SETTLE_MS) {
  clearTimeout(settleTimer);
  settleTimer = setTimeout(() => { settleTimer = null; moveTo(); }, delay);
}

async function moveTo() {
  if (!chatState.chat) return;
  const stop = currentStop();
  if (chatState.busy) { settleMove(); return; }  // a reply is on its way: move after it
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

// -- router ---------------------------------------------------------------------------------------

// One render at a time, the last address wins. A page waits for the server before it fills the
// view, so without this a slow first page (the chat, loading its works) could finish after a
// quicker one the address moved on to, and cover it. A change of address during a render
// asks for one more render of wherever the address is then.
let rendering = null;
let renderAgain = false;

function render() {
  if (rendering) { renderAgain = true; return rendering; }
  rendering = (async () => {
    try {
      do { renderAgain = false; await renderPage(); } while (renderAgain);
    } finally { rendering = null; }
  })();
  return rendering;
}

async function renderPage() {
  const { parts, params } = route();
  clearError();
  for (const link of document.querySelectorAll("[data-nav]")) link.classList.toggle("active", link.dataset.nav === parts[0]);
  try {
    if (parts[0] === "runs" && parts.length === 1) await runsView(params);
    else if (parts[0] === "runs" && parts[2] === "sample") await sampleView(parts[1], params);
    else if (parts[0] === "runs") await runView(parts[1], params);
    else if (parts[0] === "report") await reportView(params);
    else if (parts[0] === "scene") { if (!sceneShown()) await sceneView(); }
    else if (parts[0] === "chat" && chatState.ui && view.contains(chatState.ui.turns)) return;
    else await chatView();
  } catch (error) {
    fill(view, h("p", { class: "muted" }, "This page could not be shown."));
    showError(error);
  }
  document.body.dataset.ready = parts[0] || "chat";
}

hooks.render = render;
window.addEventListener("hashchange", render);
api("/api/info").then((info) => {
  document.getElementById("about").textContent = `incanon ${info.version} · model ${info.model}`;
}).catch(showError);
render();
