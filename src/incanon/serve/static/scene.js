// The Scene tab: two to four characters at one point of the story, each answering from its own
// knowledge scope and hearing only what was said while it was there. Speak as the narrator or as
// one of them; "Next" lets the next speaker answer (CoSER's next-speaker prediction, or round
// robin); every answer opens whose scope made it and its evidence; the slider moves the whole
// scene in story time. Every text goes through text nodes (h(), markdown()), never innerHTML.

import { h, fill, api, showError, clearError, fmt, latestOnly, view } from "./util.js";
import { markdown } from "./markdown.js";
import { storeReader, withReader, readerControl, timelineLoader, isAfter } from "./reader.js";

const MAX_CAST = 4;
const NARRATE = "Narrate, or /why, /to NAME …, /next NAME, /help";
const PICK = "display:flex;gap:.4rem;align-items:center;margin-top:.15rem;color:inherit";
const KEPT_SCENE = "incanon.scene.last";
const state = { works: [], timeline: null, scene: null, selected: null, busy: false, reader: "", ui: null };

function remember(id) {
  try { if (id) localStorage.setItem(KEPT_SCENE, id); else localStorage.removeItem(KEPT_SCENE); } catch { /* private window */ }
}

function lastScene() {
  try { return localStorage.getItem(KEPT_SCENE) || ""; } catch { return ""; }
}

export function sceneShown() {
  return Boolean(state.ui && view.contains(state.ui.lines));
}

export async function sceneView() {
  const works = await api("/api/works");
  state.works = works;
  if (!works.length) {
    fill(view, h("p", {}, "The canon store holds no work: import one with `incanon canon import`."));
    return;
  }
  const workSel = h("select", { testid: "scene-work", onchange: () => loadWork(workSel.value) },
    works.map((w) => h("option", { value: w.id }, w.title)));
  const readerBox = h("div", { testid: "scene-reader-box" });
  const cast = h("div", { class: "cast", testid: "scene-cast" });
  const settingSel = h("select", { testid: "scene-setting" });
  const orderSel = h("select", { testid: "scene-order" },
    h("option", { value: "nsp" }, "CoSER's next-speaker prediction"), h("option", { value: "round-robin" }, "round robin"));
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, step: 1, testid: "scene-timeline",
    "aria-label": "Story time of the scene", oninput: () => { showStop(); settle(); }, onpointerup: () => settle(0) });
  const stopLabel = h("div", { class: "stop-label", testid: "scene-stop-label" });
  const start = h("button", { class: "primary", testid: "scene-start", onclick: () => startScene() }, "Start scene");
  const kept = h("select", { testid: "scene-kept", onchange: () => { if (kept.value) reopen(kept.value); } });
  const header = h("div", { class: "small muted", testid: "scene-header" });
  const lines = h("div", { class: "turns", testid: "scene-lines" },
    h("p", { class: "muted" }, "Choose two to four characters and a point in the story, then start the scene."));
  const asSel = h("select", { testid: "scene-as", "aria-label": "Speak as", onchange: () => {
    input.placeholder = asSel.value ? `Say something as ${asSel.value}` : NARRATE; } });
  const input = h("input", { type: "text", testid: "scene-say", disabled: true, placeholder: NARRATE, title: NARRATE,
    onkeydown: (e) => { if (e.key === "Enter") send(); } });
  const sendBtn = h("button", { class: "primary", testid: "scene-send", disabled: true, onclick: () => send() }, "Send");
  const nextBtn = h("button", { testid: "scene-next", disabled: true, title: "Let the next speaker answer",
    onclick: () => say("/next") }, "Next");
  const saveBtn = h("button", { testid: "scene-save", disabled: true, onclick: () => save() }, "Save");
  const scope = h("div", { class: "scope", testid: "scene-scope" }, h("p", { class: "muted small" }, "No scene yet."));
  const evidence = h("div", { class: "evidence", testid: "scene-evidence" },
    h("p", { class: "muted small" }, "Click an answer to see whose scope made it."));

  fill(view, h("div", { class: "chat" },
    h("section", { class: "panel" }, h("h2", {}, "Who, where and when"),
      h("label", {}, "Work", workSel), h("label", {}, "I have read up to"), readerBox,
      h("label", {}, `Characters (2 to ${MAX_CAST})`), cast,
      h("label", {}, "Set in a scene of the book (optional)", settingSel),
      h("label", {}, "Next speaker", orderSel),
      h("div", { class: "timeline" }, h("label", {}, "Story time"), slider, stopLabel),
      h("p", {}, start), h("label", {}, "Kept scenes", kept)),
    h("section", { class: "panel" }, h("h2", {}, "Scene"), header, lines,
      h("div", { class: "composer" }, asSel, input, sendBtn, nextBtn, saveBtn)),
    h("section", { class: "panel" }, h("h2", {}, "Whose scope answered"), scope, h("h2", {}, "Evidence"), evidence)));
  state.ui = { workSel, readerBox, cast, settingSel, orderSel, slider, stopLabel, start, kept, header, lines, asSel,
    input, sendBtn, nextBtn, saveBtn, scope, evidence };
  await loadWork(workSel.value);
  const last = lastScene();
  if (last) {
    try { shown(await api(withReader(`/api/scenes/${last}`, state.reader))); } catch { remember(""); }
  }
  await refreshKept();
}

// The work's timeline as the reader may see it: nothing after the reader's position is sent.
const loadTimeline = timelineLoader();

async function loadWork(work) {
  const ui = state.ui;
  const timeline = await loadTimeline(work);
  if (!timeline) return;  // a newer choice of work or position is loading: it decides
  state.timeline = timeline;
  state.reader = timeline.reader.at || "";
  ui.readerBox.replaceChildren(readerControl(timeline.reader, (at) => { storeReader(work, at); loadWork(work); }));
  const picked = new Set([...ui.cast.querySelectorAll("input:checked")].map((el) => el.value));
  // Inline layout: the shared stylesheet makes every input in a label a full-width block.
  ui.cast.replaceChildren(...timeline.characters.map((c) => h("label", { class: "pick", style: PICK },
    h("input", { type: "checkbox", value: c.name, testid: "scene-character", checked: picked.has(c.name),
      style: "display:inline;width:auto;margin:0" }), c.name)));
  const scenes = timeline.stops.flatMap((s) => s.scenes.map((x) => ({ ...x, at: s.at })));
  // Without a reader position no scene of the book is named (titles tell what happens): say why.
  const none = scenes.length || state.reader ? "none" : "none: set your reading first";
  ui.settingSel.replaceChildren(h("option", { value: "" }, none),
    ...scenes.map((x) => h("option", { value: x.id }, `${x.at}${x.title ? ` · ${x.title}` : ""}`)));
  ui.slider.max = Math.max(0, timeline.stops.length - 1);
  const scene = state.scene;
  const here = scene ? timeline.stops.findIndex((s) => s.at === scene.at) : -1;
  if (here < 0 && scene && scene.work === work && state.reader && isAfter(scene.at, state.reader)) {
    // The reader stepped back behind the open scene: it moves back with them, to the last point
    // they have read, as a chat does (else the slider and the header disagree and the next line
    // is refused).
    ui.slider.value = ui.slider.max;
    showStop();
    if (state.busy) settle(); else await say(`/at ${currentStop().at}`);
    return;  // the move lists the kept scenes again (shown())
  }
  ui.slider.value = String(Math.max(0, here));
  showStop();
  await refreshKept();
}

function currentStop() {
  const { stops } = state.timeline;
  return stops[Number(state.ui.slider.value)] || stops[0];
}

function showStop() {
  const stop = currentStop();
  state.ui.stopLabel.textContent = stop ? stop.label : "(this work has no scenes)";
}

// The newest list only: a list asked for at an earlier reader position may name later scenes.
const keptScenes = latestOnly(async () => {
  try { return await api(withReader("/api/scenes", state.reader)); } catch { return { scenes: [] }; }  // a convenience
});

async function refreshKept() {
  const ui = state.ui;
  const kept = await keptScenes();
  if (!kept) return;
  // Scenes past the reader's position are not listed; the count says they exist.
  const past = kept.hidden ? ` (${kept.hidden} past your reading)` : "";
  ui.kept.replaceChildren(h("option", { value: "" }, `${kept.scenes.length ? "reopen a kept scene…" : "none yet"}${past}`),
    ...kept.scenes.map((s) => h("option", { value: s.id }, `${s.present.join(", ")} at ${s.at} (${s.lines} lines)`)));
}

async function reopen(id) {
  clearError();
  try { shown(await api(withReader(`/api/scenes/${id}`, state.reader))); } catch (error) { showError(error); }
}

async function startScene() {
  const ui = state.ui;
  clearError();
  const characters = [...ui.cast.querySelectorAll("input:checked")].map((el) => el.value);
  const setting = ui.settingSel.value;
  try {
    const stop = currentStop();
    const body = { work: ui.workSel.value, characters, order: ui.orderSel.value };
    if (setting) body.setting = setting;
    if (stop && !(setting && !characters.length)) body.at = stop.at;
    const scene = await api(withReader("/api/scenes", state.reader), { body });
    state.selected = null;
    shown(scene);
    ui.input.focus();
  } catch (error) { showError(error); }
}

function shown(scene) {
  const ui = state.ui;
  const before = state.scene;
  if (!before || before.id !== scene.id || before.lines.length !== scene.lines.length || before.at !== scene.at) refreshKept();
  state.scene = scene;
  remember(scene.id);
  for (const el of [ui.input, ui.sendBtn, ui.nextBtn, ui.saveBtn]) el.disabled = false;
  ui.start.textContent = "Start a new scene";
  const voices = [h("option", { value: "" }, "narrator"), ...scene.present.map((n) => h("option", { value: n }, n))];
  const keep = ui.asSel.value;
  ui.asSel.replaceChildren(...voices);
  if (scene.present.includes(keep)) ui.asSel.value = keep;
  const index = state.timeline.stops.findIndex((s) => s.at === scene.at);
  if (index >= 0) { ui.slider.value = String(index); showStop(); }
  render();
}

function render(notes = []) {
  const ui = state.ui;
  const scene = state.scene;
  ui.header.textContent = `${scene.present.join(", ")} · ${scene.work_title} · at ${scene.at}`
    + `${scene.place ? ` · ${scene.place}` : ""} · next speaker by ${scene.order === "nsp" ? "prediction" : "round robin"}`;
  ui.lines.replaceChildren(...scene.lines.map((line) => lineEl(line, scene)),
    ...notes.map((n) => h("div", { class: `system ${n.error ? "error" : ""}`, testid: n.error ? "scene-error" : "scene-note" }, n.text)));
  const answered = scene.lines.filter((l) => l.evidence);
  if (state.selected === null && answered.length) state.selected = answered[answered.length - 1].index;
  renderScope();
}

function lineEl(line, scene) {
  const narrator = line.speaker === "narrator";
  const aside = line.to ? ` · aside to ${line.to}` : "";
  const everyone = line.heard_by.length === scene.present.length && !line.to;
  const heard = everyone ? "" : ` · heard by ${line.heard_by.join(", ") || "nobody"}`;
  // "user" as the chooser means the person picked the speaker (/next NAME); the model wrote it.
  const chosen = line.chosen === "user" ? "chosen by you" : line.chosen;
  const who = narrator ? `narrator${aside}` : `${line.speaker}${line.written_by === "user" ? " (written by you)" : ` · ${chosen}`}${aside}`;
  const answered = Boolean(line.evidence);
  return h("div", { class: `turn ${narrator ? "user" : "character"}${state.selected === line.index ? " selected" : ""}`,
    testid: narrator ? "scene-line-narrator" : "scene-line-character",
    onclick: answered ? () => { state.selected = line.index; render(); } : null },
    h("div", { class: "who" }, `${who} · at ${line.at}${heard}`),
    narrator ? h("div", { class: "plain" }, line.text) : markdown(line.text));
}

// Whose scope answered the selected line, and what shaped it.
function renderScope() {
  const ui = state.ui;
  const line = state.scene && state.scene.lines.find((l) => l.index === state.selected);
  const ev = line && line.evidence;
  if (!ev) {
    ui.scope.replaceChildren(h("p", { class: "muted small" }, "No answer yet: Send a line or press Next."));
    ui.evidence.replaceChildren();
    return;
  }
  const s = ev.scope;
  ui.scope.replaceChildren(
    h("p", { class: "small", testid: "scene-scope-who" }, `${line.speaker}'s knowledge scope at ${ev.at} (${ev.when})`),
    s ? h("table", { class: "grid" }, h("tbody", {},
      h("tr", {}, h("td", {}, "witnessed scenes"), h("td", { class: "num" }, fmt(s.visible.witnessed_scenes))),
      h("tr", {}, h("td", {}, "chunks in scope"), h("td", { class: "num" }, fmt(s.visible.chunks))),
      h("tr", {}, h("td", {}, "facts known"), h("td", { class: "num" }, fmt(s.visible.facts))),
      h("tr", {}, h("td", {}, "future scenes hidden"), h("td", { class: "num" }, fmt(s.hidden.future_scenes))),
      h("tr", {}, h("td", {}, "missed scenes hidden"), h("td", { class: "num" }, fmt(s.hidden.missed_scenes))))) : null,
    h("p", { class: "small muted" }, `${line.speaker} heard ${state.scene.lines.filter((l) => l.heard_by.includes(line.speaker) && l.index < line.index).length} earlier lines of this scene.`));
  const parts = [h("dl", { class: "kv" }, h("dt", {}, "method"), h("dd", {}, ev.method), h("dt", {}, "calls"), h("dd", {}, String(ev.calls.length)))];
  if (ev.hints.length) parts.push(h("h3", {}, "Hints"), h("ul", { class: "small" }, ev.hints.map((x) => h("li", {}, x))));
  if (ev.chunks.length) {
    parts.push(h("h3", {}, `Retrieved canon (${ev.chunks.length})`));
    for (const c of ev.chunks) {
      parts.push(h("div", { class: `chunk${c.in_scope ? "" : " hidden-scope"}`, testid: "scene-evidence-chunk" },
        h("div", {}, h("span", { class: "tag" }, c.id), h("span", { class: "tag" }, `at ${c.position}`),
          h("span", { class: `tag ${c.in_scope ? "good" : "bad"}` }, c.label)),
        h("div", { class: "chunk-text" }, c.text.length > 200 ? `${c.text.slice(0, 200)}…` : c.text)));
    }
  }
  if (ev.memories.length) parts.push(h("h3", {}, "Known facts"), h("ul", { class: "small" }, ev.memories.map((m) => h("li", {}, m))));
  parts.push(h("h3", {}, "Calls"));
  ev.calls.forEach((call, i) => parts.push(h("details", { testid: "scene-evidence-call" },
    h("summary", {}, `${i + 1}. ${call.step} (${call.messages} messages)`),
    call.system ? h("pre", {}, call.system) : null, h("pre", {}, call.prompt), h("pre", {}, call.output))));
  ui.evidence.replaceChildren(...parts);
}

// Runs a line; true when it was taken (false: refused or failed, so the caller keeps its text).
async function say(line) {
  const ui = state.ui;
  if (!state.scene || state.busy) return false;
  state.busy = true;
  for (const el of [ui.input, ui.sendBtn, ui.nextBtn]) el.disabled = true;
  ui.lines.append(h("div", { class: "system", testid: "scene-pending" }, line.startsWith("/") ? "…" : "the next speaker is answering…"));
  try {
    const result = await api(withReader(`/api/scenes/${state.scene.id}/say`, state.reader), { body: { line } });
    const outcome = result.outcome;
    const notes = [];
    if (outcome.kind === "error") notes.push({ error: true, text: outcome.message });
    else if (["moved", "cast", "order", "saved"].includes(outcome.kind)) notes.push({ text: outcome.message });
    else if (outcome.kind === "help") notes.push({ text: Object.entries(outcome.data.commands).map(([k, v]) => `${k}: ${v}`).join("\n") });
    else if (outcome.kind === "why" && outcome.data.line) state.selected = outcome.data.line.index;
    const answer = outcome.lines.filter((l) => l.evidence).pop();
    if (answer) state.selected = answer.index;
    shown(result.scene);
    render(notes);
    return outcome.kind !== "error";
  } catch (error) {
    showError(error);
    render();
    return false;
  } finally {
    state.busy = false;
    for (const el of [ui.input, ui.sendBtn, ui.nextBtn]) el.disabled = false;
  }
}

async function send() {
  const ui = state.ui;
  const text = ui.input.value.trim();
  if (!text || !state.scene || state.busy) return;
  clearError();
  ui.input.value = "";
  // Speaking as a character is /as NAME; a slash command is sent as it is.
  const line = !text.startsWith("/") && ui.asSel.value ? `/as ${ui.asSel.value}: ${text}` : text;
  const ok = await say(line);
  if (!ok && !ui.input.value) ui.input.value = text;  // a refused line is not lost: fix it, send again
  ui.input.focus();
}

// The slider moves the whole scene once it settles (one move for several quick steps).
let settleTimer = null;
function settle(delay = 400) {
  clearTimeout(settleTimer);
  settleTimer = setTimeout(async () => {
    settleTimer = null;
    const stop = currentStop();
    if (!state.scene || !stop || stop.at === state.scene.at) return;
    if (state.busy) { settle(); return; }
    await say(`/at ${stop.at}`);
  }, delay);
}

function save() {
  if (!state.scene) return;
  const link = h("a", { href: withReader(`/api/scenes/${state.scene.id}/transcript`, state.reader), download: "" });
  document.body.append(link);
  link.click();
  link.remove();
}
