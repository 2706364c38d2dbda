// A small, safe Markdown subset for replies: paragraphs, line breaks, **bold**, *italic* and
// _italic_, `code`, ``` fenced code ```, and "-" / "*" / "1." lists. It builds DOM nodes from
// text nodes only (never innerHTML), so any HTML in a reply shows as the text it is.

import { h } from "./util.js";

const INLINE = /(`[^`\n]+`)|(\*\*(?=\S)[\s\S]+?\*\*)|(\*(?=[^\s*])[^*\n]+?\*)|(\b_(?=\S)[^_\n]+?_\b)/;

// `text` with inline marks as nodes; a newline inside a paragraph is a line break.
export function inline(text) {
  const nodes = [];
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) { nodes.push(...breaks(rest)); break; }
    if (m.index) nodes.push(...breaks(rest.slice(0, m.index)));
    const token = m[0];
    if (m[1]) nodes.push(h("code", {}, token.slice(1, -1)));
    else if (m[2]) nodes.push(h("strong", {}, inline(token.slice(2, -2))));
    else nodes.push(h("em", {}, inline(token.slice(1, -1))));
    rest = rest.slice(m.index + token.length);
  }
  return nodes;
}

function breaks(text) {
  return text.split("\n").flatMap((part, i) => (i ? [h("br"), part] : [part])).filter((n) => n !== "");
}

const ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;

// The blocks of `text`: fenced code, lists and paragraphs (separated by blank lines).
export function markdown(text) {
  const blocks = [];
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  const endPara = () => { if (para.length) blocks.push(h("p", {}, inline(para.join("\n")))); para = []; };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      endPara();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i += 1) code.push(lines[i]);
      blocks.push(h("pre", {}, h("code", {}, code.join("\n"))));
    } else if (ITEM.test(line) && !/^\s*\*[^\s]/.test(line)) {
      endPara();
      const ordered = /^\s*\d/.test(line);
      const items = [];
      for (; i < lines.length && ITEM.test(lines[i]); i += 1) items.push(h("li", {}, inline(ITEM.exec(lines[i])[2])));
      i -= 1;
      blocks.push(h(ordered ? "ol" : "ul", {}, items));
    } else if (!line.trim()) {
      endPara();
    } else {
      para.push(line);
    }
  }
  endPara();
  return h("div", { class: "md" }, blocks);
}
