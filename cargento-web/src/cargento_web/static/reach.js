// Reach nudges: one line in Attention's coverage details saying where nudges go while you are
// away (the shape and host only: the URL is a secret), or why none are posted.
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";
import { feature } from "/static/config.js";
import { fill } from "/static/slots.js";

const html = htm.bind(h);
const REACH = feature("reach");

function minutes(s) {
  const m = Math.round(s / 60);
  return m === 1 ? "1 minute" : `${m} minutes`;
}

function Coverage() {
  if (!REACH) return null;
  if (!REACH.enabled) return html`<p class="reach-coverage">Reach nudges: none are posted: ${REACH.reason}.</p>`;
  const shape = REACH.shape === "ntfy" ? "an ntfy topic" : "a JSON webhook";
  return html`<p class="reach-coverage">Reach nudges: to ${shape} on ${REACH.host}, when a session needs you and no
    dashboard tab has been visible for ${minutes(REACH.away_after_s)}; at most one per session every
    ${minutes(REACH.cooldown_s)} and ${REACH.daily_cap} a day. A finished turn is nudged only where the harness's own
    lifecycle hooks report its turn stop; quiet hours hold nudges until they end. A nudge names the harness, the title
    and the kind of wait, never the prompt, a command or a path.</p>`;
}

fill("attention.coverage", Coverage);
