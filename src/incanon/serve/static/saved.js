// Kept chats: the server keeps every chat (SQLite under INCANON_HOME) until it is closed, so a
// restart or a closed tab loses none. The list shows those standing at or before the reader's
// position; choosing one reopens it where it was (position, method, every turn). The last chat
// of this browser is remembered and reopened when the page loads.

import { h, api, latestOnly } from "./util.js";
import { withReader } from "./reader.js";

const LAST = "incanon.lastChat";

export function rememberChat(id) {
  try { if (id) localStorage.setItem(LAST, id); else localStorage.removeItem(LAST); } catch { /* private mode */ }
}

export function lastChat() {
  try { return localStorage.getItem(LAST) || ""; } catch { return ""; }
}

// A <select> of the kept chats; onOpen(chat) gets the reopened chat's state.
export function savedChats(reader, onOpen, onError) {
  const select = h("select", { testid: "saved-chats", "aria-label": "Kept chats" });
  // The newest list only: a list asked for at an earlier reader position may name later chats.
  const listed = latestOnly(() => api(withReader("/api/chats", reader())));
  async function refresh(current) {
    try {
      const got = await listed();
      if (!got) return;
      const { chats, hidden } = got;
      const label = (c) => `${c.character} · at ${c.at} · ${c.turns} turn${c.turns === 1 ? "" : "s"} · ${c.updated.slice(0, 16).replace("T", " ")}`;
      const past = hidden ? ` (${hidden} past your reading)` : "";
      select.replaceChildren(
        h("option", { value: "" }, chats.length ? `${chats.length} kept chat${chats.length === 1 ? "" : "s"}${past}` : `no kept chats${past}`),
        ...chats.map((c) => h("option", { value: c.id }, label(c))));
      select.value = current && chats.some((c) => c.id === current) ? current : "";
    } catch (error) { onError(error); }
  }
  select.onchange = async () => {
    if (!select.value) return;
    try { onOpen(await api(withReader(`/api/chats/${select.value}`, reader()))); } catch (error) { onError(error); }
  };
  return { select, refresh };
}
