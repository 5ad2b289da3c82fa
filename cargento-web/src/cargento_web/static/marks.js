// Each harness's mark: a monogram on a shape and hue of its own (drawn here, not any vendor's
// logo). The page lists no harness itself: it learns every harness's label, mark and
// resumability from the board document's `harnesses` list (learnHarnesses), and derives a
// mark for a harness that declares none.
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";

const html = htm.bind(h);

const KNOWN = new Map();

// Take the board document's `harnesses` rows as the page's knowledge of each harness.
export function learnHarnesses(rows) {
  for (const x of rows || []) KNOWN.set(x.key, x);
}

function hueOf(key) {
  let n = 0;
  for (const c of key) n = (n * 31 + c.charCodeAt(0)) % 360;
  return n;
}

const SHAPES = {
  circle: html`<circle cx="12" cy="12" r="11" />`,
  square: html`<rect x="1.5" y="1.5" width="21" height="21" rx="5" />`,
  diamond: html`<path d="M12 0.8 L23.2 12 L12 23.2 L0.8 12 Z" />`,
  hex: html`<path d="M6.5 1.5 H17.5 L23 12 L17.5 22.5 H6.5 L1 12 Z" />`,
  triangle: html`<path d="M12 1 L23.5 22 H0.5 Z" />`,
};

export function harnessMeta(key, label) {
  const row = KNOWN.get(key);
  const name = (row && row.label) || label || key;
  const mark = row && row.mark;
  const resumable = Boolean(row && row.resumable);
  const promptAsGoal = Boolean(row && row.prompt_as_goal);
  if (mark && mark.monogram) {
    return { key, label: name, mono: mark.monogram, hue: Number(mark.hue) || 0, shape: SHAPES[mark.shape] ? mark.shape : "circle", resumable, promptAsGoal };
  }
  return { key, label: name, mono: name.slice(0, 2).toUpperCase(), hue: hueOf(key), shape: "circle", resumable, promptAsGoal };
}

// A small inline mark; the label is given to screen readers by the caller's text.
export function Mark({ harness, label, dim, size }) {
  const m = harnessMeta(harness, label);
  const px = size || 18;
  const fill = dim ? "hsl(220 8% 30%)" : `hsl(${m.hue} 55% 42%)`;
  return html`<svg class="mark" width=${px} height=${px} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <g fill=${fill}>${SHAPES[m.shape]}</g>
    <text x="12" y=${m.shape === "triangle" ? 18.5 : 16} text-anchor="middle" font-size=${m.mono.length > 1 ? 9 : 12}
      font-weight="700" fill=${dim ? "hsl(220 8% 65%)" : "white"}>${m.mono}</text>
  </svg>`;
}
