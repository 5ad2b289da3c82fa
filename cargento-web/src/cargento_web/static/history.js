// The session page's observed record and state-change timeline (issue 17), read from the
// server's local history (GET /api/history), so both survive a restart and a fresh tab and
// caption the window actually observed. The timeline's filter (active, all, decisions) is
// remembered per session in this browser.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { getJSON } from "/static/api.js";
import { feature } from "/static/config.js";
import { STATE_TEXT } from "/static/format.js";
import { fill } from "/static/slots.js";

const html = htm.bind(h);

export const FILTERS = ["active", "all", "decisions"];
const FILTER_WORDS = { active: "active", all: "all", decisions: "decisions" };
// decisions: the waits the session put to you and when each ended; active: everything else
// the session did (state changes, turns, ends, completed tasks); all: both.
const DECISION_KINDS = new Set(["wait_started", "wait_ended"]);

export function filterKey(harness, sid) {
  return `cargento.timeline-filter.${harness}:${sid}`;
}

export function savedFilter(harness, sid) {
  try {
    const v = localStorage.getItem(filterKey(harness, sid));
    return FILTERS.includes(v) ? v : "active";
  } catch (_) {
    return "active";
  }
}

function saveFilter(harness, sid, value) {
  try {
    localStorage.setItem(filterKey(harness, sid), value);
  } catch (_) {
    /* a browser without storage forgets the choice at reload */
  }
}

export function keep(filter, o) {
  if (filter === "all") return true;
  return filter === "decisions" ? DECISION_KINDS.has(o.kind) : !DECISION_KINDS.has(o.kind);
}

const KIND_WORDS = {
  turn_started: "turn started",
  turn_ended: "turn ended",
  wait_started: "began waiting on you",
  wait_ended: "the wait ended",
  session_ended: "session ended",
  task_completed: "task completed",
  subagent_started: "subagent running",
  subagent_ended: "subagent stopped",
};

function words(o) {
  if (o.kind === "state") {
    const to = STATE_TEXT[o.state] || o.state;
    return o.previous ? `${STATE_TEXT[o.previous] || o.previous} → ${to}` : `${to}${o.detail ? ` (${o.detail})` : ""}`;
  }
  const base = KIND_WORDS[o.kind] || o.kind;
  return o.detail && o.kind !== "state" ? `${base}: ${o.detail}` : base;
}

function stamp(at) {
  const d = new Date(at);
  return `${d.toLocaleDateString(undefined, { month: "short", day: "numeric" })} ${d.toLocaleTimeString()}`;
}

export function windowCaption(doc) {
  const w = doc.window || {};
  const days = doc.store_window ? doc.store_window.days : w.days;
  const keeps = `this server keeps ${days} ${days === 1 ? "day" : "days"} of history`;
  if (!w.first) return `Nothing observed of this session yet in this server's history; ${keeps}.${doc.replay ? " This replay (--as-of) adds nothing to it." : ""}`;
  const earlier = Date.parse(w.first) < Date.parse(w.run_started_at) ? "including earlier runs" : "all in this run";
  const dropped = doc.store_window && doc.store_window.evicted ? "; older observations were dropped for age or size" : "";
  const replay = doc.replay ? " This replay (--as-of) adds nothing to it." : "";
  return `Observed from ${stamp(w.first)} to ${stamp(w.last)} (${earlier}); ${keeps}${dropped}.${replay}`;
}

function useHistory(harness, sid, revision) {
  const [doc, setDoc] = useState(null);
  useEffect(() => {
    setDoc(null);
  }, [harness, sid]);
  useEffect(() => {
    let gone = false;
    getJSON(`/api/history?harness=${encodeURIComponent(harness)}&sid=${encodeURIComponent(sid)}`).then((r) => {
      if (!gone) setDoc(r.ok ? r.body : { error: `the history did not answer (${r.status})` });
    });
    return () => {
      gone = true;
    };
  }, [harness, sid, revision]);
  return doc;
}

// Keyed by the session where it is drawn, so another session's timeline starts with its own
// saved filter from its first render (not one render late, from an effect).
function Timeline({ harness, sid, doc }) {
  const [filter, setFilter] = useState(() => savedFilter(harness, sid));
  const pick = (v) => {
    saveFilter(harness, sid, v);
    setFilter(v);
  };
  const shown = doc.observations.filter((o) => keep(filter, o));
  const name = `timeline-filter-${harness}-${sid}`;
  return html`<div class="timeline" data-filter=${filter}>
    <h4>State-change timeline <span class="count">${shown.length}</span></h4>
    <fieldset class="timeline-filter"><legend class="sr-only">Show</legend>
      ${FILTERS.map((v) => html`<label><input type="radio" name=${name} value=${v} checked=${filter === v} onChange=${() => pick(v)} /> ${FILTER_WORDS[v]}</label>`)}
    </fieldset>
    ${shown.length
      ? html`<ol class="timeline-list">${[...shown].reverse().map((o, i) => html`<li key=${i} data-kind=${o.kind}>
          <time datetime=${o.at}>${stamp(o.at)}</time> ${words(o)} <span class="muted">· ${o.source}</span></li>`)}</ol>`
      : html`<p class="empty">${filter === "decisions" ? "No wait on you was observed in this window." : "Nothing of this kind was observed in this window."}</p>`}
  </div>`;
}

// An identifier that may break after its underscores and colons rather than mid-word on a
// narrow screen (turn_started, event:PermissionRequest).
function breakable(text) {
  const parts = String(text).split(/(?<=[_:])/);
  return parts.flatMap((part, i) => (i ? [html`<wbr />`, part] : [part]));
}

function ObservedRecord({ doc }) {
  return html`<div class="observed-record">
    <h4>Observed record <span class="count">${doc.total}</span></h4>
    ${doc.observations.length
      ? html`<table class="record-table"><thead><tr><th>When</th><th>Type</th><th>What</th><th>Published by</th></tr></thead>
          <tbody>${doc.observations.map((o, i) => html`<tr key=${i} data-kind=${o.kind}><td>${stamp(o.at)}</td><td>${breakable(o.kind)}</td><td>${words(o)}</td><td class="mono">${breakable(o.source)}</td></tr>`)}</tbody></table>`
      : html`<p class="empty">No entry names this session in the history.</p>`}
    <p class="muted small">What this server saw on its boards: state changes, turns, waits and their ends, session ends and completed tasks, each with the source that published it. It is never a file, test or deliverable the server inspected.</p>
  </div>`;
}

function HistorySection({ board, route, session }) {
  const conf = feature("history");
  if (!conf) return null;
  const harness = session ? session.harness : route.harness;
  const sid = session ? session.session_id : route.sid;
  const doc = useHistory(harness, sid, board.revision);
  let body;
  if (!conf.on) body = html`<p class="empty">${conf.reason}.</p>`;
  else if (!doc) body = html`<p class="empty" aria-busy="true">Reading the local history…</p>`;
  else if (doc.error) body = html`<p class="empty">${doc.error}.</p>`;
  else if (!doc.on) body = html`<p class="empty">${doc.reason}.</p>`;
  else {
    body = html`<p class="caption window-caption">${windowCaption(doc)}</p>
      <${Timeline} key=${`${harness}:${sid}`} harness=${harness} sid=${sid} doc=${doc} />
      <${ObservedRecord} doc=${doc} />`;
  }
  return html`<section class="history" aria-labelledby="history-h" data-session=${`${harness}:${sid}`}>
    <h3 id="history-h">What the server observed</h3>
    ${body}
  </section>`;
}

fill("session.sections", HistorySection);
