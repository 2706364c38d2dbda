// The reader's position: how far the person has read, per work, kept in this browser
// (localStorage) and sent with every request that shows or moves story (?reader_at=POS). The
// server sends nothing after it (no stop, button, label, title or name), so the page has
// nothing to hide; the choices are positions only (chapters, or dates), which tell no event.

import { h, api, latestOnly } from "./util.js";

const key = (work) => `incanon.reader.${work}`;

export function storedReader(work) {
  try { return localStorage.getItem(key(work)) || ""; } catch { return ""; }
}

export function storeReader(work, at) {
  try {
    if (at) localStorage.setItem(key(work), at);
    else localStorage.removeItem(key(work));
  } catch { /* private windows may refuse storage: the choice then lasts for this page only */ }
}

// `path` with the reader's position as ?reader_at= (unchanged without one).
export function withReader(path, at) {
  if (!at) return path;
  return `${path}${path.includes("?") ? "&" : "?"}reader_at=${encodeURIComponent(at)}`;
}

// Story positions in order: "2024-03-07" by date; "1-3" after every scene of chapter 1-3.
function parts(at) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(at)) return [at];
  return at.split("-").map(Number).concat([Infinity, Infinity, Infinity]).slice(0, 3);
}

export function isAfter(a, b) {
  const x = parts(a), y = parts(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
}

// "1-3" → "book 1, chapter 3": how the control names a choice (a date stays a date).
export function positionName(at) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(at)) return at;
  const [book, chapter, scene] = at.split("-");
  return [book && `book ${book}`, chapter && `chapter ${chapter}`, scene && `scene ${scene}`].filter(Boolean).join(", ");
}

// The "I have read up to" control: a menu of the choices the server sent, and ‹ › to step
// back and forward. `onchange(at)` gets the new position ("" for none, when allowed).
export function readerControl(reader, onchange) {
  const unset = !reader.cap || reader.spoilers;  // under a cap a reader position always applies
  const options = [];
  // Short enough for the panel; the help under it says what "not set" means.
  if (unset) options.push(h("option", { value: "", title: "not set: points by position only" }, "not set"));
  for (const at of reader.choices) options.push(h("option", { value: at }, positionName(at)));
  const select = h("select", { testid: "reader", "aria-label": "I have read up to",
    onchange: () => onchange(select.value) }, options);
  select.value = reader.at || "";
  const step = (by) => {
    const next = select.selectedIndex + by;
    if (next < 0 || next >= select.options.length) return;
    select.selectedIndex = next;
    onchange(select.value);
  };
  return h("div", { class: "reader" },
    h("button", { testid: "reader-back", title: "Back one chapter", onclick: () => step(-1) }, "‹"),
    select,
    h("button", { testid: "reader-forward", title: "Forward one chapter", onclick: () => step(1) }, "›"));
}

// A loader of a work's timeline as the reader may see it, for one page. A kept position the
// server no longer allows (its --reader-at moved back) is dropped, and the server's own applies.
// Only the newest load answers (latestOnly): two quick steps back (‹ ‹) are two requests, and
// the first one's answer, arriving last, would show points the reader has just said they have
// not read. A load overtaken by a newer one gives null.
export function timelineLoader() {
  return latestOnly(async (work) => {
    const path = `/api/works/${encodeURIComponent(work)}/timeline`;
    const wanted = storedReader(work);
    try {
      return await api(withReader(path, wanted));
    } catch (error) {
      if (!wanted) throw error;
      storeReader(work, "");
      return await api(path);
    }
  });
}
