// "Why this state": what a row's state, wait, detail and model rest on, in plain words, and
// whether its store holds records this build does not understand (schema drift).
//
// Each session in /api/data carries `evidence`, a list of what the readers and the state
// precedence decided: the signal (hook event, store record, process table, telemetry, clock
// rule), its source, when it was observed, what it said, and what it overruled (both sides and
// why). The session page shows it after its columns (slot session.sections); the row's state
// badge carries the same words as a tooltip (evidenceTitle, used by StateBadge in views.js).
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";
import { STATE_TEXT, ago, clock } from "/static/format.js";
import { fill } from "/static/slots.js";

const html = htm.bind(h);

const READINGS = [
  ["state", "State"],
  ["wait", "Wait"],
  ["detail", "Now"],
  ["model", "Model"],
];
const SIGNAL_WORDS = {
  "hook event": "a lifecycle event",
  "store record": "the store",
  "process table": "the process table",
  telemetry: "telemetry",
  "clock rule": "a clock rule",
};

function when(stamp, now) {
  if (!stamp) return "";
  const at = new Date(stamp);
  return now == null ? clock(at) : `${clock(at)} (${ago((now - at.getTime()) / 1000)})`;
}

// One side of an item as a phrase: "the pid file says waiting (the store, ~/.claude/… at 10:02:11)".
function side(item, now) {
  const at = when(item.observed_at, now);
  return `${item.said} (${SIGNAL_WORDS[item.signal] || item.signal}: ${item.source}${at ? `, at ${at}` : ""})`;
}

// The sentence an item says, overrules included: "A … at 10:02:11 was overruled by … at 10:02:40: why."
export function sentence(item, now = null) {
  if (!item.overruled) return side(item, now);
  return `${side(item.overruled, now)} was overruled by ${side(item, now)}: ${item.overruled.why}.`;
}

// The item the state rests on first: of the reading that decides it (the wait for Needs input,
// the state otherwise), an overrule first, else the first item.
function deciding(session) {
  const ev = session.evidence || [];
  const reading = session.state === "needs_input" ? "wait" : "state";
  return ev.find((e) => e.reading === reading && e.overruled) || ev.find((e) => e.reading === reading) || ev[0] || null;
}

// A wait that was overruled on a row that is not waiting: why no wait is shown.
function noWait(session) {
  if (session.state === "needs_input") return null;
  return (session.evidence || []).find((e) => e.reading === "wait" && e.overruled) || null;
}

// The state badge's tooltip: the state, then what it rests on, one line each.
export function evidenceTitle(session) {
  const ev = (session.evidence || []).filter((e) => e.reading === "state" || e.reading === "wait");
  const head = STATE_TEXT[session.state] || session.state;
  if (!ev.length) return `${head}: no evidence recorded`;
  const first = deciding(session);
  const rest = ev.filter((e) => e !== first);
  return [`${head} because:`, ...[first, ...rest].slice(0, 4).map((e) => `• ${sentence(e)}`)].join("\n");
}

// The sentence saying a store holds records this build does not understand, or null.
export function driftSentence(session) {
  const unknown = session.unknown_records || [];
  if (!unknown.length) return null;
  const total = unknown.reduce((n, u) => n + u.count, 0);
  const names = unknown.slice(0, 4).map((u) => `${u.name} (${u.count})`).join(", ");
  const who = `${session.harness_label}${session.harness_version ? ` ${session.harness_version}` : ""}`;
  return `This store holds ${total} record${total === 1 ? "" : "s"} this build does not understand: ${names}${unknown.length > 4 ? ", …" : ""}. `
    + `Written by ${who}; a newer harness version is the usual reason, and readings that rest on them may be missing.`;
}

function WhyThisState({ session, ctx }) {
  if (!session) return null;
  const ev = session.evidence || [];
  const now = ctx && ctx.boardNow != null ? ctx.boardNow : null;
  const first = deciding(session);
  const dropped = noWait(session);
  return html`<section class="evidence" aria-labelledby="why-h" data-count=${ev.length}>
    <h3 id="why-h">Why this state</h3>
    ${first
      ? html`<p class="why-lead">Reads <b>${STATE_TEXT[session.state] || session.state}</b> because ${sentence(first, now)}</p>`
      : html`<p class="muted">Nothing recorded what this state rests on.</p>`}
    ${dropped ? html`<p class="why-nowait">No wait is shown: ${sentence(dropped, now)}</p>` : null}
    ${driftSentence(session) ? html`<p class="drift" role="note">${driftSentence(session)}</p>` : null}
    ${READINGS.map(([key, label]) => {
      const items = ev.filter((e) => e.reading === key);
      if (!items.length) return null;
      return html`<div class="why-group" data-reading=${key}>
        <h4>${label}</h4>
        <ul>${items.map((e) => html`<li class=${e.overruled ? "why-item overrule" : "why-item"} data-signal=${e.signal}>
          ${e.overruled ? html`<span class="why-tag">overruled</span> ` : null}${sentence(e, now)}</li>`)}</ul>
      </div>`;
    })}
  </section>`;
}

fill("session.sections", WhyThisState);
