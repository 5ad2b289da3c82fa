// The project cockpit (#n=project:<p>): a Scope rail, a persistent briefing, and the Now /
// Course / Decisions / Console tabs. It replaces the filtered Sessions list a project page was.
//
// Fragment: #n=project:<p>[:<harness>:<sid>][:<tab>], each part percent-encoded, so a project
// label holding ":" stays one part. A link ending in the retired held-to tab opens that
// session's page instead.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { STATE_TEXT, ago, clock, plural, sessionHash, sessionLabels } from "/static/format.js";
import { CopyButton, SessionRow, ViewHeading, detailText, resumable, since, stateSummary } from "/static/views.js";
import { Slot, fill, view } from "/static/slots.js";
import { feature } from "/static/config.js";
import { getJSON } from "/static/api.js";
import { StageStrip, workflowsIn } from "/static/spacedock.js";
import { Tripwires, tripwiresOf } from "/static/tripwires.js";
import { Outcome, readingOf } from "/static/endings.js";
import { FILTERS, filterKey, keep, savedFilter, windowCaption } from "/static/history.js";
import { QuestionCard, questionsFrom } from "/static/ask.js";

const html = htm.bind(h);

export const TABS = [
  ["now", "Now", "Now: current activity, observed session endings and workflow evidence"],
  ["course", "Course", "Course: observed state changes, semantic history, completed tasks and stage conditions"],
  ["decisions", "Decisions", "Decisions: recorded decisions and whether each was applied"],
  ["console", "Console", "Console: the operations rail, and how the server was started"],
];
const TAB_KEYS = TABS.map(([k]) => k);
//: The retired tab a project link may still end in; it now opens the session's own page.
const RETIRED = ["held-to", "held"];

const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
const dec = (s) => {
  try {
    return decodeURIComponent(s);
  } catch (_) {
    return null;
  }
};

// The cockpit's own reading of the fragment: {project, harness, sid, tab, retired}.
export function parseCockpit(hash) {
  const raw = (hash || "").replace(/^#/, "");
  const m = raw.match(/(?:^|&)n=project:([^&]*)/);
  if (!m) return null;
  const parts = m[1].split(":").map(dec);
  if (parts.some((p) => p == null)) return null;
  const [project, ...rest] = parts;
  let tab = null;
  let retired = false;
  if (rest.length && (TAB_KEYS.includes(rest[rest.length - 1]) || RETIRED.includes(rest[rest.length - 1]))) {
    const last = rest.pop();
    if (RETIRED.includes(last)) retired = true;
    else tab = last;
  }
  const [harness, sid] = rest.length === 2 && rest[0] && rest[1] ? rest : [null, null];
  return { project, harness, sid, tab, retired };
}

export function cockpitHash(project, session, tab) {
  let out = `#n=project:${enc(project)}`;
  if (session) out += `:${enc(session.harness)}:${enc(session.sid || session.session_id)}`;
  if (tab && tab !== "now") out += `:${tab}`;
  return out;
}

// Pushed rather than assigned, so a tab or scope pick does not move focus to the heading the
// way a view change does; back and forward still walk the picks (hashchange re-renders).
let rerender = () => {};
function navigate(hash) {
  if (location.hash === hash) return;
  history.pushState(null, "", hash);
  rerender();
}

// -- small readings -----------------------------------------------------------------------------

const ORDER = { needs_input: 0, working: 1, starting: 2, idle: 3 };
function scopeSessions(board, project) {
  return board.sessions
    .filter((s) => (s.project || "") === project)
    .sort((a, b) => ORDER[a.state] - ORDER[b.state] || Date.parse(b.last_active_at || 0) - Date.parse(a.last_active_at || 0));
}

const titleText = (s) => s.title || null;

// Rows of one harness that would render alike (same title, or both unpublished) carry the key.
function ambiguous(list) {
  const seen = new Map();
  for (const s of list) {
    const k = `${s.harness}\u0000${titleText(s) || ""}`;
    seen.set(k, (seen.get(k) || 0) + 1);
  }
  return (s) => seen.get(`${s.harness}\u0000${titleText(s) || ""}`) > 1;
}


const SOURCE_TEXT = { prompt: "your newest request", "earlier prompt": "your earlier request (the newest only continued)", agent: "the agent's own statement" };

// -- the Scope rail -------------------------------------------------------------------------------

function ScopeRail({ project, list, selected, tab, ctx }) {
  const alike = ambiguous(list);
  const link = (s) => cockpitHash(project, s ? { harness: s.harness, sid: s.session_id } : null, tab);
  const click = (s) => (ev) => {
    if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    navigate(link(s));
  };
  return html`<nav class="scope" aria-label="Scope">
    <h3 class="scope-h">Scope</h3>
    <ul>
      <li class=${"scope-row" + (!selected ? " on" : "")} data-scope="project">
        <a href=${link(null)} aria-current=${!selected ? "true" : undefined} onClick=${click(null)}>
          <span class="sc-title">Whole project</span>
          <span class="sc-cap">${plural(list.length, "session")} · ${stateSummary(list, "no sessions")}</span></a>
      </li>
      ${list.map((s) => {
        const on = selected && selected.key === s.key;
        return html`<li class=${"scope-row" + (on ? " on" : "")} data-scope=${s.key} key=${s.key}>
          <a href=${link(s)} aria-current=${on ? "true" : undefined} onClick=${click(s)}>
            <span class="sc-title">${titleText(s) || html`<span class="muted">title never published</span>`}</span>
            <span class="sc-cap">${s.harness_label} · ${STATE_TEXT[s.state] || s.state} · ${s.last_active_at ? ago(since(ctx, s.last_active_at)) : "age unknown"}${alike(s)
              ? html` · <span class="mono sc-key">${s.key}</span>`
              : null}</span></a>
        </li>`;
      })}
    </ul>
  </nav>`;
}

// -- the briefing -------------------------------------------------------------------------------------

function Assignment({ scope, selected, ctx }) {
  // A project's assignment is its lead's: a first officer's goal first, a worker's last.
  const rank = (s) => (s.role === "spacedock:first-officer" ? 0 : s.role === "spacedock:ensign" ? 2 : 1);
  const withGoal = scope.filter((s) => s.instruction && s.instruction.source !== "agent").sort((a, b) => rank(a) - rank(b));
  const pick = selected ? (selected.instruction && selected.instruction.source !== "agent" ? selected : null) : withGoal[0];
  if (!pick) {
    const why = selected
      ? "this session published no request Cargento can attribute, so no goal is available"
      : scope.length
        ? `none of the ${plural(scope.length, "session")} of this project published a request Cargento can attribute`
        : "no session of this project is on the board";
    return html`<div class="bf-part" data-part="assignment"><h3>ASSIGNMENT</h3><p class="muted" data-goal="none">No goal available: ${why}.</p></div>`;
  }
  const i = pick.instruction;
  return html`<div class="bf-part" data-part="assignment"><h3>ASSIGNMENT</h3>
    <p class="bf-goal" data-goal="stated">${i.text}</p>
    <p class="muted small">Source: ${SOURCE_TEXT[i.source] || i.source}${selected ? "" : ` in ${pick.title || pick.display_id}`} · ${i.at ? ago(since(ctx, i.at)) : "time unknown"}</p>
  </div>`;
}

function Execution({ scope, selected, board, project, ctx }) {
  const newest = selected || scope.find((s) => s.state !== "idle") || scope[0];
  const flows = workflowsIn(board, project, selected ? selected.key : null);
  const direction = (selected || newest) && (selected || newest).instruction && (selected || newest).instruction.source === "agent" ? (selected || newest).instruction : null;
  return html`<div class="bf-part" data-part="execution"><h3>EXECUTION</h3>
    ${newest
      ? html`<p data-evidence="latest"><b>${newest.title || newest.display_id}</b> (${newest.harness_label}): ${detailText(newest, ctx)}
          <span class="muted small"> · ${newest.last_active_at ? ago(since(ctx, newest.last_active_at)) : "time unknown"}</span></p>`
      : html`<p class="muted">No evidence: no session of this project is on the board.</p>`}
    ${flows.length ? html`<p class="small">${flows.map((w) => `${w.name}: ${w.stages ? plural(w.entities.length, "entity", "entities") + " across " + plural(w.stages.length, "stage") : "stage list unreadable"}`).join(" · ")}</p>` : null}
    <p class="small" data-direction=${direction ? "agent" : "none"}>Direction: ${direction ? html`${direction.text} <span class="muted">(the agent's own statement${direction.at ? `, ${ago(since(ctx, direction.at))}` : ""})</span>` : html`<span class="muted">no direction published</span>`}</p>
  </div>`;
}

function Command({ scope, board, ctx }) {
  const waiting = scope.filter((s) => s.state === "needs_input");
  // A question asked through the ask lane waits on you as much as a row that needs input.
  const asked = questionsFrom(board, ctx, scope);
  return html`<div class="bf-part" data-part="command"><h3>COMMAND</h3>
    ${asked.length
      ? html`<div class="bf-asked">${asked.map((q) => html`<${QuestionCard} key=${q.id} question=${q} board=${board} ctx=${ctx} />`)}</div>`
      : null}
    ${waiting.length
      ? html`<ul class="bf-waiting">${waiting.map((s) => html`<li data-key=${s.key}>
          <a href=${sessionHash(s)}>${s.title || html`<span class="muted">title never published</span>`}</a> <span class="muted small">${s.harness_label}</span>
          <div class="question"><b>${s.waiting ? s.waiting.kind : "input"}</b>: ${s.waiting && s.waiting.text ? s.waiting.text : s.detail}
            ${s.waiting && s.waiting.since ? html` <span class="muted">· waiting ${ago(since(ctx, s.waiting.since)).replace(" ago", "")}</span>` : null}</div>
          <div class="controls"><${Slot} name="session.controls" board=${board} ctx=${ctx} session=${s} />${resumable(s)
            ? html`<${CopyButton} text=${s.resume_command} label="COPY RESUME" what="resume command" />`
            : null}</div>
        </li>`)}</ul>`
      : asked.length
        ? null
        : html`<p class="muted" data-waiting="0">Nothing in this project waits on you.</p>`}
  </div>`;
}

// -- the note to yourself (project header) -----------------------------------------------------

const NOTE_KEY = (p) => `cargento:note:${p}`;
function readNotes(p) {
  try {
    const v = JSON.parse(localStorage.getItem(NOTE_KEY(p)) || "[]");
    return Array.isArray(v) ? v.filter((n) => n && typeof n.text === "string") : [];
  } catch (_) {
    return [];
  }
}
function NoteComposer({ project }) {
  const [notes, setNotes] = useState(() => readNotes(project));
  const [text, setText] = useState("");
  useEffect(() => setNotes(readNotes(project)), [project]);
  const keep = (next) => {
    setNotes(next);
    try {
      localStorage.setItem(NOTE_KEY(project), JSON.stringify(next.slice(-20)));
    } catch (_) {
      /* a browser that keeps nothing still shows the note for this tab */
    }
  };
  return html`<form class="note-composer" onSubmit=${(ev) => {
    ev.preventDefault();
    if (!text.trim()) return;
    keep([...notes, { text: text.trim().slice(0, 2000), at: new Date().toISOString() }]);
    setText("");
  }}>
    <label for="note-to-self" class="small muted">Note to yourself (kept in this browser; written into no session, and it instructs no agent)</label>
    <div class="note-line"><input id="note-to-self" type="text" value=${text} maxlength="2000" onInput=${(ev) => setText(ev.currentTarget.value)} />
      <button type="submit" class="btn small">Keep note</button></div>
    ${notes.length
      ? html`<ul class="notes-self">${notes.map((n, i) => html`<li key=${n.at + i}>${n.text} <span class="muted small">${clock(new Date(n.at))}</span>
          <button type="button" class="btn small" aria-label=${`Remove the note “${n.text}”`} onClick=${() => keep(notes.filter((_, j) => j !== i))}>×</button></li>`)}</ul>`
      : null}
  </form>`;
}

// -- the local history (GET /api/history) ------------------------------------------------------

function historyOn() {
  const f = feature("history");
  return f ? f.on !== false : false;
}

function useHistory(project, selected, revision) {
  const [rec, setRec] = useState({ status: historyOn() ? "loading" : "off" });
  const key = selected ? `${selected.harness}\u0000${selected.session_id}` : `p\u0000${project}`;
  useEffect(() => {
    if (historyOn()) setRec({ status: "loading" });
  }, [key]);
  useEffect(() => {
    if (!historyOn()) return undefined;
    let gone = false;
    const q = selected ? new URLSearchParams({ harness: selected.harness, sid: selected.session_id }) : new URLSearchParams({ project });
    getJSON("/api/history?" + q).then((r) => {
      if (gone) return;
      if (r.ok && r.body && r.body.on) setRec({ status: "ok", doc: r.body });
      else if (r.ok && r.body && r.body.on === false) setRec({ status: "off", reason: r.body.reason });
      else setRec((old) => (old.status === "ok" ? old : { status: "absent", reason: `HTTP ${r.status}` }));
    });
    return () => {
      gone = true;
    };
  }, [key, revision]);
  return rec;
}

function stateChanges(rec) {
  return rec.status === "ok" ? rec.doc.observations.filter((o) => o.kind === "state") : null;
}

// A cue on a tab: a number, "…" while loading, "·" where nothing published it; spelled out.
function Cue({ value, what, loading, unpublished }) {
  if (loading) return html`<span class="cue" data-cue="loading"><span aria-hidden="true">…</span><span class="sr-only">, ${what}: still loading</span></span>`;
  if (value == null) return html`<span class="cue" data-cue="unpublished" title=${unpublished}><span aria-hidden="true">·</span><span class="sr-only">, ${what}: ${unpublished}</span></span>`;
  return html`<span class="cue" data-cue=${value}><span aria-hidden="true">${value}</span><span class="sr-only">, ${plural(value, what.replace(/s$/, ""), what)}</span></span>`;
}

// -- the tabs ---------------------------------------------------------------------------------------

// Observed session endings with their outcome glyphs and git readings (the endings feature's
// readings; a store-recorded end with no reading says so).
function Endings({ scope, board, ctx }) {
  const on = Boolean(board.endings);
  const ended = scope.filter((s) => readingOf(board, s) || s.ended);
  const label = sessionLabels(board.sessions);
  return html`<section class="ck-part" aria-labelledby="h-endings"><h3 id="h-endings">Observed session endings</h3>
    ${!on ? html`<p class="muted">This dashboard publishes no observed endings, so no outcome or git reading is shown.</p>` : null}
    ${ended.length
      ? html`<ul class="endings">${ended.map((s) => {
          const r = readingOf(board, s);
          return html`<li class="ending" data-key=${s.key} data-outcome=${r ? r.outcome : "unobserved"}>
            <a href=${sessionHash(s)}>${s.title ? label(s) : s.display_id}</a> <span class="muted small">${s.harness_label}</span> ·
            ${r ? html`<${Outcome} board=${board} r=${r} />${r.at ? html` <span class="muted small">${ago(since(ctx, r.at))}</span>` : null}${r.conflict ? html`<div class="fault small">${r.conflict}</div>` : null}`
              : html`<span class="muted">its store records that it ended; no ending was observed by this server, so no git reading</span>`}
          </li>`;
        })}</ul>`
      : html`<p class="muted">No session of this scope has been observed stopping or ending.</p>`}
  </section>`;
}

function NowTab({ scope, board, ctx, project, selected }) {
  const [, setN] = useState(0);
  const active = scope.filter((s) => s.state !== "idle");
  const flows = workflowsIn(board, project, selected ? selected.key : null);
  const sd = board.cockpit ? board.cockpit.spacedock : null;
  return html`<section class="ck-part" aria-labelledby="h-activity"><h3 id="h-activity">Current activity</h3>
      ${active.length
        ? html`<div class="table"><ul class="rows">${active.map((s) => html`<${SessionRow} key=${s.key} session=${s} ctx=${ctx} onToggle=${() => setN((n) => n + 1)} />`)}</ul></div>`
        : html`<p class="muted">Nothing in this scope is working or waiting on you.</p>`}
    </section>
    <${Endings} scope=${scope} board=${board} ctx=${ctx} />
    <section class="ck-part" aria-labelledby="h-workflow"><h3 id="h-workflow">Workflow evidence</h3>
      ${sd && !sd.enabled ? html`<p class="muted">${sd.reason}.</p>` : null}
      ${flows.length ? flows.map((w) => html`<${StageStrip} workflow=${w} key=${w.id} />`) : sd && sd.enabled ? html`<p class="muted">No fresh first officer of this scope has booted a Spacedock workflow; a missing strip is not a claim that none exists.</p>` : null}
    </section>`;
}

// The timeline's filter (active, all, decisions), remembered per session as the session page
// remembers it; the whole project keeps its own choice.
function scopeIds(scopeKey) {
  const i = scopeKey.indexOf(":");
  return [scopeKey.slice(0, i), scopeKey.slice(i + 1)];
}

function Timeline({ rec, board, scopeKey }) {
  const [h1, h2] = scopeIds(scopeKey);
  const [filter, setFilter] = useState(() => savedFilter(h1, h2));
  useEffect(() => setFilter(savedFilter(h1, h2)), [scopeKey]);
  const pick = (v) => {
    setFilter(v);
    try {
      localStorage.setItem(filterKey(h1, h2), v);
    } catch (_) {
      /* remembered for this tab only */
    }
  };
  if (rec.status === "off") return html`<p class="muted">${rec.reason || "This dashboard keeps no local history, so no state change is on record."}</p>`;
  if (rec.status === "loading") return html`<p class="muted" aria-busy="true">Reading the local history…</p>`;
  if (rec.status !== "ok") return html`<p class="muted">The local history could not be read: ${rec.reason}.</p>`;
  const shown = rec.doc.observations.filter((o) => keep(filter, o)).slice(-200).reverse();
  const label = sessionLabels(board.sessions);
  const names = new Map(board.sessions.map((s) => [`${s.harness}:${s.session_id}`, label(s)]));
  return html`<div class="timeline">
    <div class="tl-filter" role="radiogroup" aria-label="Timeline filter">${FILTERS.map((k) => html`<label class="small"><input type="radio" name=${"tl-" + scopeKey} value=${k} checked=${filter === k} onChange=${() => pick(k)} /> ${k}</label>`)}</div>
    <p class="muted small window-caption">${windowCaption(rec.doc)}</p>
    ${shown.length
      ? html`<ol class="tl">${shown.map((o) => html`<li data-kind=${o.kind}><time datetime=${o.at}>${clock(new Date(o.at))}</time> ${names.get(`${o.harness}:${o.sid}`) || o.sid.slice(0, 8)}:${" "}${o.kind === "state" ? `${o.previous ? (STATE_TEXT[o.previous] || o.previous) + " → " : ""}${STATE_TEXT[o.state] || o.state}` : o.kind.replace(/_/g, " ")}${o.detail ? ` (${o.detail})` : ""} <span class="muted small">from ${o.source}</span></li>`)}</ol>`
      : html`<p class="muted">Nothing under “${filter}” in the observed window.</p>`}
  </div>`;
}

function Semantic({ board, project, selected }) {
  const sem = board.cockpit ? board.cockpit.semantic : null;
  if (!sem) return html`<p class="muted">The semantic history is not published by this dashboard.</p>`;
  const entries = (sem.projects[project] || []).filter((e) => !selected || e.key === selected.key);
  return entries.length
    ? html`<ol class="semantic">${entries.slice(0, 30).map((e) => html`<li><time datetime=${e.at}>${clock(new Date(e.at))}</time> ${e.title || e.key}: ${e.doing}</li>`)}</ol>
        <p class="muted small">A prototype record kept ${sem.window_h} h; --forget does not delete it.</p>`
    : html`<p class="muted">Nothing observed for this scope in the last ${sem.window_h} hours.</p>`;
}

function CourseTab({ scope, board, ctx, project, selected, rec }) {
  // Completed tasks: those the rows publish now, then those the local history observed
  // completing (which outlive a row that left the board).
  const label = sessionLabels(board.sessions);
  const done = scope.flatMap((s) => s.tasks.filter((t) => t.status === "completed").map((t) => ({ subject: t.subject, who: label(s), source: "on the board" })));
  const names = new Map(board.sessions.map((s) => [`${s.harness}:${s.session_id}`, label(s)]));
  const seen = new Set(done.map((d) => `${d.who}\u0000${d.subject}`));
  for (const o of rec.status === "ok" ? rec.doc.observations : []) {
    if (o.kind !== "task_completed" || !o.detail) continue;
    const who = names.get(`${o.harness}:${o.sid}`) || o.sid.slice(0, 8);
    if (seen.has(`${who}\u0000${o.detail}`)) continue;
    seen.add(`${who}\u0000${o.detail}`);
    done.push({ subject: o.detail, who, source: `observed ${clock(new Date(o.at))}` });
  }
  const flows = workflowsIn(board, project, selected ? selected.key : null);
  return html`<section class="ck-part" aria-labelledby="h-changes"><h3 id="h-changes">Observed state changes</h3>
      <${Timeline} rec=${rec} board=${board} scopeKey=${selected ? selected.key : "project:" + project} /></section>
    <section class="ck-part" aria-labelledby="h-semantic"><h3 id="h-semantic">Semantic history</h3><${Semantic} board=${board} project=${project} selected=${selected} /></section>
    <section class="ck-part" aria-labelledby="h-tasks"><h3 id="h-tasks">Completed tasks</h3>
      ${done.length ? html`<ul class="done-tasks">${done.map((d) => html`<li><span aria-hidden="true">✓</span> ${d.subject} <span class="muted small">${d.who} · ${d.source}</span></li>`)}</ul>` : html`<p class="muted">No completed task is published or observed for this scope.</p>`}</section>
    <section class="ck-part" aria-labelledby="h-conditions"><h3 id="h-conditions">Workflow stage conditions</h3>
      <${Tripwires} board=${board} workflows=${flows} /></section>`;
}

function DecisionsTab() {
  return html`<section class="ck-part" aria-labelledby="h-decisions"><h3 id="h-decisions">Recorded decisions</h3>
    <p class="muted" data-decisions="unpublished">No source on this board records decisions, so none is shown and none is counted. When one does, each appears here with whether it was applied; Cargento approves nothing.</p></section>`;
}

// Delegation: who is working for whom now, and over the observed window how much of the
// scope's work was handed out (subagents started, turns run in ensign sessions).
function Delegation({ scope, rec }) {
  const agents = scope.flatMap((s) => s.subagents);
  const ensigns = scope.filter((s) => s.role === "spacedock:ensign");
  const obs = rec.status === "ok" ? rec.doc.observations : null;
  const workerKeys = new Set(ensigns.map((s) => `${s.harness}:${s.session_id}`));
  const turns = obs ? obs.filter((o) => o.kind === "turn_started") : null;
  const delegated = turns ? turns.filter((o) => workerKeys.has(`${o.harness}:${o.sid}`)).length : null;
  const started = obs ? obs.filter((o) => o.kind === "subagent_started").length : null;
  return html`<div class="rail-part" data-rail="delegation"><h4>Delegation</h4>
    <p>${plural(agents.length, "subagent")} observed now (${agents.filter((a) => a.running).length} running) · ${plural(ensigns.length, "ensign session")}</p>
    ${obs == null
      ? html`<p class="small muted">${rec.status === "loading" ? "reading the local history…" : "no local history, so no delegation over time"}</p>`
      : html`<p class="small" data-figure="delegation">${plural(started, "subagent start")} and ${delegated} of ${plural(turns.length, "turn start")} in ensign sessions observed</p>
          <p class="muted small">${windowCaption(rec.doc)}</p>`}
  </div>`;
}

// The allowance the scope's sessions draw on: the capacity strip's windows of the harnesses they
// run under (a window is an account's, not a session's), else what the sessions' own records
// name when no strip is published.
function Capacity({ scope, board }) {
  const harnesses = new Set(scope.map((s) => s.harness));
  const windows = ((board.capacity && board.capacity.windows) || []).filter((w) => harnesses.has(w.harness));
  const limits = windows.length ? [] : scope.flatMap((s) => s.rate_limits.map((r) => ({ s, r })));
  const rates = scope.filter((s) => s.output_tokens_per_min != null);
  return html`<div class="rail-part" data-rail="capacity"><h4>Capacity</h4>
    ${windows.length
      ? html`<ul>${windows.map((w) => html`<li data-window=${w.key}>${w.harness_label} ${w.name}: ${w.used_percent == null ? "level unknown" : `${Math.round(w.used_percent)}% spent`}${w.elapsed_percent == null ? "" : ` · ${Math.round(w.elapsed_percent)}% of its time gone`}${w.source === "demo" ? html` <span class="muted small">(a demo stand-in)</span>` : null}</li>`)}</ul>`
      : limits.length
        ? html`<ul>${limits.map(({ s, r }) => html`<li>${s.harness_label} ${r.name}: ${Math.round(r.used_percent)}% used</li>`)}</ul>`
        : html`<p class="muted small">No quota window is published for the harnesses of this scope.</p>`}
    <p class="small">${rates.length ? `${Math.round(rates.reduce((a, s) => a + s.output_tokens_per_min, 0))} tok/min across ${plural(rates.length, "measured session")}` : html`<span class="muted">no output rate measured</span>`}</p>
  </div>`;
}

// The prototype terminal: only for the one session the flags name, once a request from inside
// its tmux pane registered it. The output is framed from /terminal; nothing is ever typed in.
function TerminalPart({ terminal, selected }) {
  const key = selected ? `${selected.harness}:${selected.session_id}` : null;
  const command = `curl -s -X POST -H 'Content-Type: application/json' --data "{\\"capability\\":\\"$(cat ${terminal.registration_file})\\",\\"session\\":\\"${terminal.session}\\",\\"tmux\\":\\"$TMUX\\",\\"pane\\":\\"$TMUX_PANE\\"}" ${location.origin}/api/terminal/register`;
  if (key !== terminal.session) {
    return html`<p class="small">Offered for ${terminal.session} only; select that session in the Scope rail to see it. It accepts no input.</p>`;
  }
  return html`<p class="small">${terminal.registered ? "Registered from inside the session's tmux pane." : "Not registered yet: run this inside the session's tmux pane (it reads the capability from the private file):"} It accepts no input.</p>
    ${terminal.registered ? null : html`<pre class="mono reg-cmd">${command}</pre>`}
    ${terminal.registered ? html`<iframe class="terminal-frame" src="/terminal" title="Read-only terminal of the selected session" sandbox="allow-scripts allow-same-origin"></iframe>` : null}`;
}

function ConsoleTab({ scope, board, ctx, selected, rec }) {
  const c = feature("cockpit") || {};
  const waiting = scope.filter((s) => s.state === "needs_input");
  const asked = questionsFrom(board, ctx, scope);
  const label = sessionLabels(board.sessions);
  const tw = tripwiresOf(board);
  const terminal = (board.cockpit && board.cockpit.terminal) || c.terminal || { offered: false };
  const terminalOn = terminal.offered;
  const observerOn = c.observer_model === true;
  const terminalPart = html`<div class="cap" data-capability="terminal"><h4>Read-only terminal</h4>${terminalOn
    ? html`<${TerminalPart} terminal=${terminal} selected=${selected} />`
    : html`<p class="muted small">Off: it needs both --interaction-origin-session and --interaction-origin-registration-file.</p>`}</div>`;
  const observerPart = html`<div class="cap" data-capability="observer"><h4>Observer model</h4><p class=${observerOn ? "" : "muted small"}>${c.observer_model === true
    ? "Offered for goal summaries (--observer-model); each use keeps its own consent."
    : c.observer_model === false ? "Refused for this run (--no-observer-model): no model call is made." : "Off by default: no goal summary is offered."}</p></div>`;
  const status = html`<p class="small muted" data-status-line="">Status: ${ctx.stalled ? "stalled" : "live"} · board revision ${board.revision} · generated ${clock(new Date(board.generated_at))}</p>`;
  const summary = `How the server was started — terminal ${terminalOn ? "on" : "off"}, observer model ${observerOn ? "on" : c.observer_model === false ? "refused" : "off"}`;
  return html`<section class="ck-part rail" aria-labelledby="h-rail"><h3 id="h-rail">Operations</h3>
      <${Delegation} scope=${scope} rec=${rec} />
      <div class="rail-part" data-rail="waiting"><h4>Waiting on you</h4>${waiting.length || asked.length
        ? html`<ul>${waiting.map((s) => html`<li><a href=${sessionHash(s)}>${label(s)}</a>: ${s.waiting && s.waiting.text ? s.waiting.text : s.detail}</li>`)}${asked.map((q) => {
            const s = scope.find((x) => x.harness === q.harness && x.session_id === q.session_id);
            return html`<li data-question=${q.id}>${s ? html`<a href=${sessionHash(s)}>${label(s)}</a>` : "a session"} asks: ${q.text}</li>`;
          })}</ul>`
        : html`<p class="muted small">Nothing in this scope waits on you.</p>`}</div>
      <${Capacity} scope=${scope} board=${board} />
      <div class="rail-part" data-rail="tripwires"><h4>Tripwires</h4>${!tw
        ? html`<p class="muted small">Not published by this dashboard.</p>`
        : !tw.enabled ? html`<p class="muted small">${tw.reason}.</p>`
          : html`<p class="small">${plural(tw.rules.length, "condition")} saved · ${tw.rules.filter((r) => r.state === "tripped").length} tripped${tw.suspended ? " · suspended (--no-spacedock)" : ""}</p>`}</div>
    </section>
    ${terminalOn ? terminalPart : null}
    ${observerOn ? observerPart : null}
    <details class="started"><summary>${summary}</summary>
      <p class="small">${c.started && c.started.length ? html`Started with <span class="mono">${c.started.join(" ")}</span>` : "Started with no run switch: every default."}</p>
      ${terminalOn ? null : terminalPart}
      ${observerOn ? null : observerPart}
      ${status}
    </details>`;
}

// -- the view -----------------------------------------------------------------------------------------

function Cockpit({ board, ctx }) {
  const [, setTick] = useState(0);
  useEffect(() => {
    rerender = () => setTick((n) => n + 1);
    const onPop = () => setTick((n) => n + 1);
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const at = parseCockpit(location.hash) || { project: "", harness: null, sid: null, tab: null, retired: false, broken: true };
  const { project } = at;
  const list = scopeSessions(board, project);
  const selected = at.harness ? board.sessions.find((s) => s.harness === at.harness && s.session_id === at.sid) || null : null;
  useEffect(() => {
    if (at.retired && at.harness) location.replace(`#n=session:${enc(project)}:${enc(at.harness)}:${enc(at.sid)}`);
  }, [at.retired, at.harness, at.sid]);
  const tab = at.tab || "now";
  const scope = selected ? [selected] : list;
  const rec = useHistory(project, selected, board.revision);
  if (at.broken) return html`<p class="empty">This project link cannot be read.</p>`;
  if (at.retired && at.harness) return html`<p class="muted">Opening that session's page…</p>`;
  const changes = stateChanges(rec);
  const cockpitDoc = board.cockpit;
  const panel = TABS.find(([k]) => k === tab);
  const pickTab = (k) => (ev) => {
    if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    navigate(cockpitHash(project, selected ? { harness: selected.harness, sid: selected.session_id } : at.harness ? { harness: at.harness, sid: at.sid } : null, k));
  };
  const onTabKey = (ev) => {
    const i = TAB_KEYS.indexOf(tab);
    const to = ev.key === "ArrowRight" ? (i + 1) % TAB_KEYS.length : ev.key === "ArrowLeft" ? (i + TAB_KEYS.length - 1) % TAB_KEYS.length : -1;
    if (to < 0) return;
    ev.preventDefault();
    navigate(cockpitHash(project, selected ? { harness: selected.harness, sid: selected.session_id } : null, TAB_KEYS[to]));
    setTimeout(() => {
      const el = document.getElementById("tab-" + TAB_KEYS[to]);
      if (el) el.focus();
    });
  };
  return html`<nav class="crumbs" aria-label="Breadcrumbs"><a href="#n=projects">Projects</a> / ${selected
    ? html`<a href=${cockpitHash(project, null, tab)} onClick=${(ev) => { ev.preventDefault(); navigate(cockpitHash(project, null, tab)); }}>${project || "no project label"}</a> / <span>${selected.title || "title never published"}</span>`
    : html`<span>${project || "no project label"}</span>`}</nav>
  <div class="cockpit" data-project=${project}>
    <${ScopeRail} project=${project} list=${list} selected=${selected} tab=${tab} ctx=${ctx} />
    <div class="ck-main">
      <header class="ck-head">
        <${ViewHeading}>${project || "no project label"} <span class="count">${list.length}</span> <span class="muted small">${stateSummary(list, "no sessions")}<${Slot} name="projects.summary" board=${board} ctx=${ctx} sessions=${list} /></span></${ViewHeading}>
        ${selected ? html`<p class="small">Scope: <a href=${sessionHash(selected)}>${selected.title || "title never published"}</a> <span class="muted">(${selected.harness_label} · ${STATE_TEXT[selected.state]}) — its own page holds what you typed for it</span></p>` : null}
        ${at.harness && !selected ? html`<p class="note">The selected session (${at.harness} ${at.sid}) is not in the current payload; showing the whole project.</p>` : null}
        <${NoteComposer} project=${project} />
      </header>
      <section class="briefing" aria-label="Briefing">
        <${Assignment} scope=${scope} selected=${selected} ctx=${ctx} />
        <${Execution} scope=${scope} selected=${selected} board=${board} project=${project} ctx=${ctx} />
        <${Command} scope=${list} board=${board} ctx=${ctx} />
      </section>
      <${Slot} name="project.goals" board=${board} ctx=${ctx} project=${project} sessions=${scope} />
      <div class="ck-tabs" role="tablist" aria-label="Cockpit" onKeyDown=${onTabKey}>
        ${TABS.map(([k, label]) => html`<a role="tab" id=${"tab-" + k} data-tab=${k} href=${cockpitHash(project, selected ? { harness: selected.harness, sid: selected.session_id } : null, k)}
          aria-selected=${tab === k ? "true" : "false"} aria-controls="ck-panel" tabindex=${tab === k ? "0" : "-1"} class=${tab === k ? "on" : ""} onClick=${pickTab(k)}>${label}${k === "course"
            ? html` <${Cue} value=${changes ? changes.length : null} what="observed state changes" loading=${rec.status === "loading"} unpublished=${rec.reason || "no local history publishes state changes here"} />`
            : k === "decisions"
              ? html` <${Cue} value=${null} what="recorded decisions" loading=${!cockpitDoc && feature("cockpit") != null} unpublished="no source on this board publishes decisions" />`
              : null}</a>`)}
      </div>
      <p class="panel-name" id="ck-panel-name">${panel[2]}</p>
      <div class="ck-panel" id="ck-panel" role="tabpanel" aria-labelledby=${"tab-" + tab} aria-describedby="ck-panel-name" data-panel=${tab}>
        ${tab === "now" ? html`<${NowTab} scope=${scope} board=${board} ctx=${ctx} project=${project} selected=${selected} />` : null}
        ${tab === "course" ? html`<${CourseTab} scope=${scope} board=${board} ctx=${ctx} project=${project} selected=${selected} rec=${rec} />` : null}
        ${tab === "decisions" ? html`<${DecisionsTab} />` : null}
        ${tab === "console" ? html`<${ConsoleTab} scope=${scope} board=${board} ctx=${ctx} selected=${selected} rec=${rec} />` : null}
      </div>
    </div>
  </div>`;
}

view("project", Cockpit);

// Escape from one selected session returns to its whole project (as Escape from a session's
// page returns to its project), under the page's focus and modifier rules; from the whole
// project the page's own handler returns to Sessions.
window.addEventListener(
  "keydown",
  (ev) => {
    if (ev.key !== "Escape" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    const at = parseCockpit(location.hash);
    if (!at || !at.harness) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    navigate(cockpitHash(at.project, null, at.tab));
  },
  true,
);

// Projects keeps each project's stage conditions, including Remove for a rule whose workflow no
// source session reads any more.
function ProjectConditions({ board, project }) {
  const sd = board && board.cockpit ? board.cockpit.spacedock : null;
  const tw = tripwiresOf(board);
  const flows = sd && sd.enabled ? sd.workflows.filter((w) => (w.project || "") === project) : [];
  if (!tw || (!flows.length && !tw.rules.some((r) => (r.project || "") === project))) return null;
  return html`<div class="project-conditions"><h4 class="small muted">Workflow stage conditions</h4>
    <${Tripwires} board=${board} workflows=${flows} orphans=${true} project=${project} /></div>`;
}
fill("projects.project", ProjectConditions);
