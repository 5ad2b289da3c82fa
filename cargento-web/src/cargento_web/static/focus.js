// The terminal raise: RAISE TERMINAL on a session whose own tmux terminal Cargento can reach
// (config.features.focus, /api/data's focus.raisable), in NEEDS YOU NOW and on the session
// page, and one coverage line saying how far the feature reached. The raise selects the
// session's tmux window and pane (on macOS also its Terminal.app or iTerm2 tab): it types
// nothing and brings no window in front.
import { h } from "preact";
import { useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { feature } from "/static/config.js";
import { fill } from "/static/slots.js";

const html = htm.bind(h);
const FOCUS = feature("focus");

function raisable(board, session) {
  return Boolean(FOCUS && FOCUS.enabled && board && board.focus && board.focus.raisable.includes(session.key));
}

async function raiseTerminal(session) {
  try {
    const r = await fetch("/api/focus", {
      method: "POST",
      cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/json", [FOCUS.header]: FOCUS.capability },
      body: JSON.stringify({ harness: session.harness, session_id: session.session_id }),
    });
    const body = await r.json().catch(() => null);
    if (r.ok && body && body.raised) {
      // On macOS the terminal application's tab is a second part, said whatever became of it.
      const tab = body.tab && body.tab.outcome !== "tmux-only" ? body.tab : null;
      if (!tab) return "Raised: the terminal shows this session's pane.";
      return tab.outcome === "selected"
        ? `Raised: the terminal shows this session's pane, and ${tab.detail}.`
        : `Raised: the terminal shows this session's pane; its tab was not selected (${tab.detail}).`;
    }
    const why = body && (body.reason || body.detail || body.error);
    return `Not raised${why ? ` (${why})` : ""}.`;
  } catch (e) {
    return `Not raised: ${String(e.message || e)}.`;
  }
}

export function RaiseTerminal({ board, session }) {
  const [said, setSaid] = useState("");
  if (!raisable(board, session)) return null; // outside the reach: no control at all
  // A session blocked on you gives the page's primary to the raise.
  const primary = session.state === "needs_input";
  return html`<span class="focus-raise">
    <button type="button" class=${primary ? "primary" : ""} data-focus=${session.key}
      title="Select this session's window and pane in its tmux terminal (nothing is typed)"
      onClick=${async () => setSaid(await raiseTerminal(session))}>RAISE TERMINAL</button>
    <span class="muted small" role="status">${said}</span>
  </span>`;
}

function Coverage({ board }) {
  if (!FOCUS || !board || !board.focus) return null;
  return html`<p class="focus-coverage">${board.focus.coverage}</p>`;
}

fill("attention.item", RaiseTerminal);
fill("session.controls", RaiseTerminal);
fill("attention.coverage", Coverage);
