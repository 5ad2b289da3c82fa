// The dashboard's views: the harness strip, Sessions, Projects, Attention and the session page.
import { Component, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import {
  BROWSER_NOTIFY_TEXT, LONG_TURN_NOTE, NO_ESTIMATE_NOTE, SCANNING_NOTE, STATE_TEXT, ago, clock, duration, pillLabels, plural,
  projectHash, rate, sessionHash, sessionLabels, shortAge,
} from "/static/format.js";
import { evidenceTitle } from "/static/evidence.js";
import { Mark, harnessMeta } from "/static/marks.js";
import { Slot, claimsFrom, offCountFrom, raised, rowSlotReads, waitsBeyondGates, waitsOnReader } from "/static/slots.js";
import { same } from "/static/sameness.js";

const html = htm.bind(h);

// Seconds since an ISO stamp, on the board's clock advanced by the time since it was fetched.
export function since(ctx, stamp) {
  if (!stamp) return null;
  return (ctx.boardNow - Date.parse(stamp)) / 1000;
}

function StateBadge({ state, session }) {
  return html`<span class=${"badge state-" + state} data-state=${state} title=${session ? evidenceTitle(session) : null}>${STATE_TEXT[state] || state}</span>`;
}

function HarnessBadge({ session }) {
  return html`<span class="hbadge" title=${session.harness_label}>
    <${Mark} harness=${session.harness} label=${session.harness_label} />
    <span class="hname">${session.harness_label}</span>
  </span>`;
}

// The heading each view opens on; focus moves to it on a route change.
export function ViewHeading({ children, id }) {
  return html`<h2 class="view-h" id=${id || "view-h"} tabindex="-1">${children}</h2>`;
}

// -- the strip ------------------------------------------------------------------------------

export function Strip({ board }) {
  const items = harnessRows(board);
  return html`<section class="strip" aria-label="Discovered harnesses">
    <h2 class="strip-title">Discovered harnesses</h2>
    <ul>
      ${items.map((x) => {
        let cls = "off";
        let status = "no local session data";
        if (x.absent && !x.error) status = `plugin ${x.plugin.status}`;
        else if (x.error) {
          cls = "fault";
          status = `fault: ${x.error}`;
        } else if (x.discovered) {
          cls = "on";
          status = `local session data found · ${plural(x.sessions, "session")} shown`;
        }
        const starting = (x.starting || []).length;
        if (starting) status += ` · ${starting} starting (a running process with no session yet: ${x.starting.map((p) => p.cwd).join(", ")})`;
        return html`<li class=${"harness " + cls} data-harness=${x.key} title=${status}>
          <${Mark} harness=${x.key} label=${x.label} dim=${cls === "off"} size=${16} />
          <span class="hl">${x.label}</span>
          ${x.discovered && !x.error ? html`<span class="hcount" aria-hidden="true">${x.sessions}</span>` : null}
          ${starting ? html`<span class="hstarting" aria-hidden="true">+${starting} starting</span>` : null}
          <span class="sr-only">: ${status}</span>
          ${x.error ? html`<span class="hfault">${x.error}</span>` : null}
        </li>`;
      })}
    </ul>
  </section>`;
}

// -- pieces of a row ------------------------------------------------------------------------

function turnFigures(turn, ctx) {
  // eta_s is the estimated time remaining when the board was built; both figures advance
  // with the time since.
  const elapsed = turn.elapsed_s + ctx.drift;
  const total = turn.eta_s == null ? null : turn.elapsed_s + turn.eta_s;
  const left = total == null ? null : Math.max(0, total - elapsed);
  const pct = total ? Math.min(100, Math.round((elapsed / total) * 100)) : null;
  return { elapsed, left, pct };
}

function LongWarning({ turn }) {
  if (!turn || !turn.long) return null;
  return html`<span class="long" title=${LONG_TURN_NOTE}><span aria-hidden="true">⚠</span> 15 min+<span class="sr-only">: ${LONG_TURN_NOTE}</span></span>`;
}

// The full turn bar, as the session page and an opened row show it.
function TurnBar({ turn, ctx }) {
  if (!turn) return null;
  const { elapsed, left, pct } = turnFigures(turn, ctx);
  const text = left == null
    ? `${duration(elapsed)} · ${NO_ESTIMATE_NOTE}`
    : `${duration(elapsed)} · est. ${duration(left)} remaining`;
  return html`<div class="turn">
    <div class="bar" role="progressbar" aria-label="Current turn" aria-valuemin="0" aria-valuemax="100"
      aria-valuenow=${pct == null ? undefined : pct} aria-valuetext=${"current turn " + text}>
      <div class=${"fill" + (pct == null ? " unknown" : "")} style=${{ width: pct == null ? "100%" : pct + "%" }}></div>
    </div>
    <span class="turn-text">${text}</span>
    <${LongWarning} turn=${turn} />
  </div>`;
}

// The compact bar of a one-line row: elapsed time, and the estimate when there is one.
function MiniTurn({ turn, ctx }) {
  if (!turn) return html`<span class="c-turn"></span>`;
  const { elapsed, left, pct } = turnFigures(turn, ctx);
  const words = left == null
    ? `current turn ${duration(elapsed)}, ${NO_ESTIMATE_NOTE}`
    : `current turn ${duration(elapsed)}, est. ${duration(left)} remaining`;
  return html`<span class="c-turn" title=${words}>
    <span class="bar mini" role="progressbar" aria-label="Current turn" aria-valuemin="0" aria-valuemax="100"
      aria-valuenow=${pct == null ? undefined : pct} aria-valuetext=${words}>
      <span class=${"fill" + (pct == null ? " unknown" : "")} style=${{ width: pct == null ? "100%" : pct + "%" }}></span>
    </span>
    <span class="turn-text" aria-hidden="true">${duration(elapsed)}${left == null ? "" : ` / ${duration(left)} left`}</span>
    <${LongWarning} turn=${turn} />
  </span>`;
}

function Pills({ subagents, ctx }) {
  if (!subagents || !subagents.length) return null;
  const labels = pillLabels(subagents);
  return html`<ul class="pills" aria-label="Subagents">
    ${subagents.map((a, i) => {
      const label = a.running ? "running" : "no longer running";
      const extra = [a.role, a.model, a.session_id].filter(Boolean).join(" · ");
      return html`<li class=${"pill " + (a.running ? "run" : "done")}
        title=${`${a.name}${extra ? " (" + extra + ")" : ""}: ${label}${a.last_active_at ? ", last active " + ago(since(ctx, a.last_active_at)) : ""}`}>
        <span aria-hidden="true">${a.running ? "●" : "○"}</span> ${labels[i]}<span class="sr-only">, ${label}</span>
      </li>`;
    })}
  </ul>`;
}

const TASK_GLYPH = { completed: "✓", in_progress: "▸", pending: "·" };
const TASK_TEXT = { completed: "completed", in_progress: "in progress", pending: "pending" };

function Tasks({ session, ctx }) {
  if (!session.tasks.length) return null;
  return html`<ul class="tasks" aria-label=${`Tasks, ${session.tasks_done} of ${session.tasks.length} done`}>
    ${session.tasks.map(
      (t) => html`<li class=${"task " + t.status}>
        <span class="tg" aria-hidden="true">${TASK_GLYPH[t.status] || "·"}</span>
        <span class="sr-only">${TASK_TEXT[t.status] || t.status}: </span>
        <span class="tsub">${t.status === "in_progress" && t.active_form ? t.active_form : t.subject}</span>
        ${t.age_s != null
          ? html`<span class="tage">${duration(t.status === "completed" ? t.age_s : t.age_s + ctx.drift)}</span>`
          : null}
      </li>`,
    )}
  </ul>`;
}

function Instruction({ instruction, ctx }) {
  if (!instruction) return null;
  const age = instruction.at ? ago(since(ctx, instruction.at)) : "age unknown";
  return html`<div class="instruction">
    <span class="itext">“${instruction.text}”</span>
    <span class="imeta"> — ${instruction.source}, ${age}</span>
  </div>`;
}

function Model({ session }) {
  if (!session.model_display) {
    return html`<span class="model empty-slot" title="no model recorded"><span class="sr-only">no model recorded</span></span>`;
  }
  return html`<span class="model" title=${[session.model, session.authority].filter(Boolean).join(" · ")}>${session.model_display}${session.authority
    ? html` <span class="authority">${session.authority}</span>`
    : null}</span>`;
}

function Rate({ session }) {
  const r = rate(session.output_tokens_per_min);
  return html`<span class=${"rate" + (session.output_tokens_per_min == null ? " empty-slot" : "")} title=${r.label}>
    <span aria-hidden="true">${r.text}</span><span class="sr-only">${r.label}</span>
  </span>`;
}

// What is particular to one session (never the harness-wide caveats, which are the legend's).
function Notes({ session, full }) {
  return html`
    ${full && session.read_by_scanning ? html`<div class="note scanning">${SCANNING_NOTE}</div>` : null}
    ${session.missing.length ? html`<div class="note missing">Source not fully read: ${session.missing.join(", ")}</div>` : null}
    ${session.loop ? html`<div class="note risk">Loop: ${session.loop.note}</div>` : null}
    ${session.faults.length ? html`<div class="note fault">Reading failed: ${session.faults.join("; ")}</div>` : null}`;
}

export function detailText(session, ctx) {
  if (session.state === "idle") {
    const last = ago(since(ctx, session.last_active_at));
    return session.ended ? `session ended · last active ${last}` : `last active ${last}`;
  }
  return session.detail;
}

// What the one-line row says the session is doing now.
function nowText(s, ctx) {
  if (s.state === "needs_input" && s.waiting) {
    const stood = s.waiting.since ? ` · ${shortAge(since(ctx, s.waiting.since))}` : "";
    return html`<span class="wait-kind">${s.waiting.kind}:</span> ${s.waiting.text || s.detail}<span class="wait-age">${stood}</span>`;
  }
  if (s.state === "idle") return s.ended ? "session ended" : "";
  return s.detail;
}

// The now column's tooltip: the whole line, and the tool's full recorded name (an MCP tool's
// wire string) where the board carries one beside its display name.
function nowTitle(s) {
  const line = s.state === "needs_input" && s.waiting ? `${s.waiting.kind}: ${s.waiting.text || s.detail}` : s.detail;
  return s.last_tool_raw && s.state !== "idle" ? `${line} (${s.last_tool_raw})` : line;
}

// Which rows are opened, kept across re-renders (and views) for the life of the tab.
const opened = new Set();

function hasMore(s) {
  return Boolean(s.instruction || s.tasks.length || s.subagents.length || s.missing.length || s.loop || s.faults.length || s.turn);
}

// What a row without a title says in its place: a starting row has written nothing yet.
function untitled(s) {
  return s.state === "starting" ? "new session, nothing written yet" : "untitled session";
}

export function SessionRow({ session, ctx, onToggle }) {
  const s = session;
  const needs = s.state === "needs_input";
  const open = needs || opened.has(s.key);
  const more = hasMore(s) || needs;
  const id = "more-" + s.key.replace(/[^A-Za-z0-9_-]/g, "_");
  const toggle = () => {
    if (needs) return; // a session waiting on you always shows its details
    if (opened.has(s.key)) opened.delete(s.key);
    else opened.add(s.key);
    onToggle();
  };
  const age = since(ctx, s.last_active_at);
  const now = nowText(s, ctx);
  return html`<li class=${"row st-" + s.state + (open ? " open" : "")} data-key=${s.key} data-state=${s.state}>
    <div class="line" onClick=${(ev) => {
      if (ev.target.closest("a, button")) return;
      if (more) toggle();
    }}>
      <span class="c-state"><${StateBadge} state=${s.state} session=${s} />${s.read_by_scanning
        ? html`<span class="scan-mark" title=${SCANNING_NOTE}><span aria-hidden="true">◌</span><span class="sr-only">read by scanning</span></span>`
        : null}</span>
      <span class="c-mark hbadge" title=${s.harness_label}><${Mark} harness=${s.harness} label=${s.harness_label} /><span class="hname sr-only">${s.harness_label}</span></span>
      <span class="c-title"><span class="title-line"><a class="title" href=${sessionHash(s)}>${s.title || html`<span class="muted">${untitled(s)}</span>`}</a>${s.role
        ? html` <span class="role" title=${s.role}>${s.role}</span>` : null}${s.loop ? html` <span class="risk-chip" title=${s.loop.note}>loop</span>` : null}<${Slot} name="row.marks" session=${s} ctx=${ctx} /></span>
        <span class="sid" title=${s.session_id}>${s.display_id}</span></span>
      <span class="c-proj proj" title=${s.project || "no project label"}>${s.project || html`<span class="sr-only">no project label</span>`}</span>
      <span class=${"c-now detail" + (now ? "" : " bare")} title=${nowTitle(s)}>${needs
        ? html`${now}<span class="now-after"><span class="goal-sep" aria-hidden="true"> · </span><${Slot} name="row.now" session=${s} ctx=${ctx} /></span>`
        : html`<${Slot} name="row.now" session=${s} ctx=${ctx} />${now}`}</span>
      ${s.state === "working" ? html`<${MiniTurn} turn=${s.turn} ctx=${ctx} />` : html`<span class="c-turn"></span>`}
      <span class="c-model"><${Model} session=${s} /></span>
      <span class="c-rate"><${Rate} session=${s} /></span>
      <span class="c-age age" title=${s.last_active_at ? "last active " + ago(age) : "last activity not recorded"}>${shortAge(age)}<span class="sr-only">${s.last_active_at ? " since last activity" : "last activity not recorded"}</span></span>
      <span class="c-more">${more && !needs
        ? html`<button type="button" class="more-btn" aria-expanded=${open ? "true" : "false"} aria-controls=${id}
            onClick=${toggle} title=${open ? "Hide details" : "Show details"}><span aria-hidden="true">${open ? "▾" : "▸"}</span><span class="sr-only">details of ${s.title || s.display_id}</span></button>`
        : null}</span>
    </div>
    ${open
      ? html`<div class="more" id=${id}>
          ${s.state === "working" && s.turn ? html`<${TurnBar} turn=${s.turn} ctx=${ctx} />` : null}
          <${Instruction} instruction=${s.instruction} ctx=${ctx} />
          <${Pills} subagents=${s.subagents} ctx=${ctx} />
          <${Tasks} session=${s} ctx=${ctx} />
          <${Notes} session=${s} />
          <${Slot} name="row.more" session=${s} ctx=${ctx} />
        </div>`
      : null}
  </li>`;
}

function ColumnHeads() {
  return html`<div class="line heads" aria-hidden="true">
    <span class="c-state">state</span><span class="c-mark"></span><span class="c-title">session</span><span class="c-proj">project</span>
    <span class="c-now">now</span><span class="c-turn">turn</span><span class="c-model">model</span><span class="c-rate">rate</span>
    <span class="c-age">age</span><span class="c-more"></span>
  </div>`;
}

// The time a row shows, at the grain it shows it: a working, waiting or opened row's figures
// (turn, wait age, details) move every second; an idle row's only when its age's wording does.
function rowClock(s, ctx, open) {
  if (open || s.state === "working" || s.state === "needs_input") return Math.floor(ctx.boardNow / 1000);
  const age = since(ctx, s.last_active_at);
  return `${shortAge(age)}|${ago(age)}`;
}

// One row, drawn again only when what it shows moved: its session (the same object while its
// value stands, see sameness.js), its clock, what the features' parts of it read (slots.js
// rowSlotReads), or the page's own state it reads. A board of 640 rows where one moved
// redraws one.
class MemoRow extends Component {
  shouldComponentUpdate(next) {
    const a = this.props;
    return !(
      a.session === next.session && a.open === next.open && a.clock === next.clock &&
      a.reads !== null && same(a.reads, next.reads) && a.ctx.stalled === next.ctx.stalled &&
      a.ctx.browserNotify === next.ctx.browserNotify && a.ctx.native === next.ctx.native
    );
  }

  render({ session, ctx, onToggle }) {
    return html`<${SessionRow} session=${session} ctx=${ctx} onToggle=${onToggle} />`;
  }
}

function Rows({ sessions, ctx, empty, heads = true }) {
  const [, setN] = useState(0);
  if (!sessions.length) return html`<p class="empty">${empty}</p>`;
  const onToggle = () => setN((n) => n + 1);
  return html`<div class="table">${heads ? html`<${ColumnHeads} />` : null}<ul class="rows">${sessions.map((s) => {
    const open = s.state === "needs_input" || opened.has(s.key);
    return html`<${MemoRow} key=${s.key} session=${s} ctx=${ctx} open=${open} clock=${rowClock(s, ctx, open)}
      reads=${rowSlotReads(s, ctx)} onToggle=${onToggle} />`;
  })}</ul></div>`;
}

// -- caveats, said once per view -------------------------------------------------------------

export function Legend({ sessions }) {
  const scanning = [...new Set(sessions.filter((s) => s.read_by_scanning).map((s) => s.harness_label))];
  const noEstimate = sessions.some((s) => s.state === "working" && s.turn && s.turn.eta_s == null);
  const unmeasured = sessions.some((s) => s.output_tokens_per_min == null || !s.model_display);
  if (!scanning.length && !noEstimate && !unmeasured) return null;
  return html`<p class="legend" aria-label="What the rows cannot show">
    ${scanning.length
      ? html`<span class="lg"><span class="scan-mark" aria-hidden="true">◌</span> read by scanning (${scanning.join(", ")}): no turn end can be observed, so Working means recent writes.</span>`
      : null}
    ${noEstimate ? html`<span class="lg"><span class="bar mini legend-bar" aria-hidden="true"><span class="fill unknown" style=${{ width: "100%" }}></span></span> striped: ${NO_ESTIMATE_NOTE}.</span>` : null}
    ${unmeasured ? html`<span class="lg">An empty slot is a figure nobody published; hover it for which.</span>` : null}
  </p>`;
}

// -- the empty board: where Cargento looked ---------------------------------------------------

function EmptyBoard({ board }) {
  const looked = board.harnesses.filter((x) => x.locations && x.locations.length);
  return html`<div class="empty-board">
    <p class="empty">No agent session is on this board${board.all ? "" : ` (idle within the last ${board.window_hours} h)`}. Cargento looked here:</p>
    <ul class="looked">
      ${looked.map((x) => html`<li data-harness=${x.key}><b>${x.label}</b>: ${x.locations.map(
        (l, i) => html`${i ? ", " : ""}<span class="mono">${l.path}</span> <span class="muted">(${l.status}${l.detail ? ": " + l.detail : ""})</span>`,
      )}</li>`)}
      ${board.harnesses.filter((x) => x.error).map((x) => html`<li class="fault"><b>${x.label}</b>: ${x.error}</li>`)}
    </ul>
    <p>To see what a busy board looks like, run <code>cargento --demo</code>. For what each harness found and why,
      run <code>cargento --diagnose</code>.</p>
  </div>`;
}

// -- Sessions -------------------------------------------------------------------------------

export function SessionsView({ board, ctx }) {
  // A raised session (a departure on record) sits after the blocked ones and before the
  // working ones, even when idle; the Active figure still counts only what is not idle.
  const up = (s) => s.state !== "needs_input" && raised(s, board);
  const active = [
    ...board.sessions.filter((s) => s.state === "needs_input"),
    ...board.sessions.filter(up),
    ...board.sessions.filter((s) => s.state !== "idle" && s.state !== "needs_input" && !up(s)),
  ];
  const recent = board.sessions.filter((s) => s.state === "idle" && !up(s));
  const activeCount = active.filter((s) => s.state !== "idle").length;
  const windowNote = board.all ? "every session ever" : `idle within the last ${board.window_hours} h`;
  if (!board.sessions.length) {
    // No row, but what the features say above and below the rows still stands (the capacity
    // strip and its consent question above all: an allowance matters on a quiet board too).
    return html`<${ViewHeading}>Sessions</${ViewHeading}>
      <${Slot} name="sessions.above" board=${board} ctx=${ctx} />
      <${EmptyBoard} board=${board} />
      <${Slot} name="sessions.below" board=${board} ctx=${ctx} />`;
  }
  return html`<${ViewHeading}>Sessions</${ViewHeading}>
    <${Slot} name="sessions.above" board=${board} ctx=${ctx} />
    <${Legend} sessions=${board.sessions} />
    <section aria-labelledby="h-active">
      <h3 id="h-active" class="group-h">Active <span class="count">${activeCount}</span></h3>
      <${Rows} sessions=${active} ctx=${ctx} empty="Nothing is working or waiting on you right now." />
    </section>
    <section aria-labelledby="h-recent">
      <h3 id="h-recent" class="group-h">Recent <span class="count">${recent.length}</span> <span class="muted small">${windowNote}</span></h3>
      <${Rows} sessions=${recent} ctx=${ctx} empty="No recent sessions in the display window." />
    </section>
    <${Slot} name="sessions.below" board=${board} ctx=${ctx} />`;
}

// -- Projects -------------------------------------------------------------------------------

// Projects in a stable order: by label (sessions without one last), whatever their rows do.
export function groupByProject(sessions) {
  const groups = new Map();
  for (const s of sessions) {
    const key = s.project || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  return [...groups.entries()].sort(([a], [b]) => (a === "") - (b === "") || a.localeCompare(b));
}

// "1 need you · 2 working · 1 starting · 3 idle" of some rows; *empty* when there are none.
export function stateSummary(list, empty = "") {
  const n = (st) => list.filter((s) => s.state === st).length;
  const parts = [];
  if (n("needs_input")) parts.push(`${n("needs_input")} need you`);
  if (n("working")) parts.push(`${n("working")} working`);
  if (n("starting")) parts.push(`${n("starting")} starting`);
  if (n("idle")) parts.push(`${n("idle")} idle`);
  return parts.join(" · ") || empty;
}

export function ProjectsView({ board, ctx }) {
  const groups = groupByProject(board.sessions);
  if (!groups.length) return html`<${ViewHeading}>Projects</${ViewHeading}><p class="empty">No sessions in the display window.</p>`;
  return html`<${ViewHeading}>Projects</${ViewHeading}>
    <${Legend} sessions=${board.sessions} />
    <section aria-label="Projects">${groups.map(
    ([project, list], index) => html`<div class="project" data-project=${project}>
      <h3 class="group-h">${project ? html`<a href=${projectHash(project)}>${project}</a>` : html`<span class="muted">no project label</span>`}
        <span class="count">${list.length}</span> <span class="muted small">${stateSummary(list)}<${Slot} name="projects.summary" board=${board} ctx=${ctx} sessions=${list} /></span></h3>
      <${Rows} sessions=${list} ctx=${ctx} empty="" heads=${index === 0} />
      <${Slot} name="projects.project" board=${board} ctx=${ctx} project=${project} />
    </div>`,
  )}</section>`;
}

export function ProjectView({ board, ctx, project }) {
  const list = board.sessions.filter((s) => (s.project || "") === project);
  return html`<nav class="crumbs" aria-label="Breadcrumbs"><a href="#n=projects">Projects</a> / <span>${project}</span></nav>
    <${ViewHeading}>${project} <span class="count">${list.length}</span> <span class="muted small">${stateSummary(list)}<${Slot} name="projects.summary" board=${board} ctx=${ctx} sessions=${list} /></span></${ViewHeading}>
    <${Legend} sessions=${list} />
    <${Slot} name="project.goals" board=${board} ctx=${ctx} project=${project} sessions=${list} />
    <${Rows} sessions=${list} ctx=${ctx} empty="No session of this project is in the current payload." />`;
}

// -- Attention ------------------------------------------------------------------------------

// A harness row as the page reads it: `absent` when its plugin did not load (blocked, invalid…).
function harnessRows(board) {
  return (board ? board.harnesses : []).map((x) => ({ ...x, absent: Boolean(x.plugin && x.plugin.status !== "loaded") }));
}

//: Quota evidence raises a board item at this level of a window's allowance.
const QUOTA_PERCENT = 70;

// Subjects at risk that are not sessions: never part of the session count.
export function offCountItems(board) {
  // Quota pressure comes from the capacity feature (static/capacity.js) through offCount.
  const items = [];
  const byLabel = new Map();
  for (const s of board.sessions) {
    if (!s.title) continue;
    if (!byLabel.has(s.title)) byLabel.set(s.title, []);
    byLabel.get(s.title).push(s);
  }
  for (const [label, list] of byLabel) {
    if (list.length > 1) {
      items.push({ kind: "label", key: `label:${label}`, text: `“${label}” is the display label of ${list.length} sessions (${list.map((s) => `${s.harness_label} ${s.display_id}`).join(", ")}); pick by id.` });
    }
  }
  items.push(...offCountFrom(board));
  return items;
}

//: What Attention's categories would hold, but no source on this board reads yet.
export const NOT_YET = [
  "Requests whose session ownership is not established.",
];

// Every irreversible-command report of this run (GET /api/reports), refetched on each board
// revision and on the heartbeat; null while loading or when the dashboard keeps no record.
function useReports(revision, everyMs, kept) {
  const [doc, setDoc] = useState(null);
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setBeat((n) => n + 1), Math.max(1000, everyMs || 5000));
    return () => clearInterval(timer);
  }, [everyMs]);
  useEffect(() => {
    if (!kept) return undefined;
    let gone = false;
    fetch("/api/reports", { cache: "no-store", headers: { Accept: "application/json" } })
      .then((r) => r.json())
      .then((body) => {
        if (!gone) setDoc(body);
      })
      .catch(() => {
        /* keep what was shown; the header says when the server stops answering */
      });
    return () => {
      gone = true;
    };
  }, [revision, beat, kept]);
  return doc;
}

function ReportedCommands({ board, ctx }) {
  const doc = useReports(board.revision, ctx.recordEveryMs, ctx.recordKept);
  const names = new Map(board.sessions.map((s) => [`${s.harness}:${s.session_id}`, s]));
  const label = sessionLabels(board.sessions);
  let body;
  if (!ctx.recordKept) body = html`<p class="empty">This dashboard runs without its event lane, so no command is reported.</p>`;
  else if (!doc) body = html`<p class="empty" aria-busy="true">Reading the reports…</p>`;
  else if (doc.error) body = html`<p class="empty">${doc.error}.</p>`;
  else if (!doc.enabled) body = html`<p class="empty">${doc.reason}.</p>`;
  else if (!doc.reports.length) body = html`<p class="empty">No irreversible command shape was reported in this run.</p>`;
  else {
    body = html`<ul class="reports">${doc.reports.map((r) => {
      const s = names.get(`${r.harness}:${r.session_id}`);
      return html`<li class="report" data-shape=${r.shape} data-session=${`${r.harness}:${r.session_id}`}>
        <b>${r.shape_words}</b> · ${s ? html`<a href=${sessionHash(s)}>${label(s)}</a>` : html`<span class="mono">${r.harness} ${r.session_id}</span>`}
        · <${When} at=${r.at} ctx=${ctx} />
        <div class="mono" title=${r.tool ? `reported by the ${r.tool} tool` : "reported by an after-tool hook"}>${r.command}</div></li>`;
    })}</ul>`;
  }
  const count = doc && doc.reports ? doc.reports.length : null;
  return html`<h3 class="group-h">REPORTED IRREVERSIBLE COMMANDS ${count != null ? html`<span class="count">${count}</span>` : null}</h3>
    ${body}
    ${doc && doc.note ? html`<p class="muted small">${doc.note}</p>` : null}`;
}

export function AttentionView({ board, ctx }) {
  // Features' claims (slots.js claim): marked-handled sessions leave every count; at-risk
  // evidence joins AT RISK; CLOSE THE LOOP is counted here and listed by its feature.
  const claims = claimsFrom(board);
  const category = (s) => (claims.get(s.key) || {}).category;
  const live = board.sessions.filter((s) => category(s) !== "handled");
  const handled = board.sessions.length - live.length;
  // Waiting on the reader: a native gate, or a feature's needs_you (an open question).
  const waits = (s) => waitsOnReader(s, claims);
  const needs = live.filter(waits);
  const gates = needs.filter((s) => s.state === "needs_input");
  const beyond = waitsBeyondGates(board, claims);
  const looping = live.filter((s) => s.loop && !waits(s));
  const long = live.filter((s) => s.turn && s.turn.long && !waits(s) && !s.loop);
  const risky = live.filter((s) => category(s) === "at_risk" && !waits(s) && !s.loop && !(s.turn && s.turn.long));
  const claimed = new Set([...needs, ...looping, ...long, ...risky].map((s) => s.key));
  const closing = live.filter((s) => category(s) === "close_the_loop" && !claimed.has(s.key));
  for (const s of closing) claimed.add(s.key);
  const rest = live.filter((s) => !claimed.has(s.key));
  const moving = rest.filter((s) => s.state === "working").length;
  const ended = rest.filter((s) => s.state === "idle" && s.ended).length;
  const quiet = rest.filter((s) => s.state === "idle" && !s.ended).length;
  const uncounted = rest.length - moving - ended - quiet;
  const hs = harnessRows(board);
  const waiters = hs.filter((x) => !x.absent && x.reports_waits);
  const blind = hs.filter((x) => x.absent || !x.reports_waits);
  const faults = board.harnesses.filter((x) => x.error);
  const partial = board.sessions.filter((s) => s.missing.length);
  const label = sessionLabels(board.sessions);
  const off = offCountItems(board);
  return html`<section class="attention" aria-labelledby="view-h">
    <${ViewHeading}>Attention</${ViewHeading}>
    <p class="brief">
      ${plural(needs.length, "session needs", "sessions need")} you now, ${plural(looping.length + long.length + risky.length, "session is", "sessions are")} at risk${closing.length ? `, ${closing.length} to close the loop` : ""};
      of the other ${rest.length}: ${moving} moving, ${quiet} quiet, ${ended} ended${uncounted ? `, ${uncounted} without a counted state` : ""}.${handled ? ` ${plural(handled, "session is", "sessions are")} marked handled and not counted.` : ""}
    </p>
    <h3 class="needs-h group-h">NEEDS YOU NOW <span class="count">${needs.length + beyond.offBoard}</span></h3>
    <${Slot} name="attention.needs" board=${board} ctx=${ctx} />
    ${gates.length
      ? html`<ul class="rows">${gates.map((s) => html`<${NeedsItem} key=${s.key} session=${s} board=${board} ctx=${ctx} label=${label} />`)}</ul>`
      : needs.length || beyond.offBoard
        ? html`<p class="empty">No harness that can report a wait reports one beside the questions above. That is not an all-clear: see the coverage details below.</p>`
        : html`<p class="empty">No harness that can report a wait reports one. That is not an all-clear: see the coverage details below.</p>`}
    <h3 class="group-h">AT RISK <span class="count">${looping.length + long.length + risky.length}</span></h3>
    ${looping.length || long.length || risky.length
      ? html`<${Rows} sessions=${[...looping, ...long, ...risky]} ctx=${ctx} empty="" />`
      : html`<p class="empty">No failed-tool loop and no turn at 15 minutes or more observed.</p>`}
    <${Slot} name="attention.groups" board=${board} ctx=${ctx} />
    <h3 class="group-h">ALSO AT RISK, OFF THE SESSION COUNT <span class="count">${off.length}</span></h3>
    ${off.length
      ? html`<ul class="off-count">${off.map((x) => html`<li data-kind=${x.kind} key=${x.key}>${x.text}</li>`)}</ul>`
      : html`<p class="empty">No quota window at ${QUOTA_PERCENT}% or more or projected to run out before its reset, and no display label shared by two sessions.</p>`}
    <${ReportedCommands} board=${board} ctx=${ctx} />
    <h3 class="group-h">NOT ON THIS BOARD YET</h3>
    <ul class="not-yet">${NOT_YET.map((t) => html`<li>${t}</li>`)}</ul>
    <h3 class="group-h">COVERAGE DETAILS</h3>
    <div class="coverage">
      ${blind.length
        ? html`<p>Not covered: a quiet row is not proof that nothing waits on these, which cannot report a wait here:</p>
          <ul>${blind.map((x) => html`<li data-harness=${x.key}><${Mark} harness=${x.key} label=${x.label} dim=${true} /> <b>${x.label}</b>: ${x.absent ? `plugin ${x.plugin.status}` : x.wait_coverage}</li>`)}</ul>`
        : html`<p>Not covered: no harness on this board is blind to waits, but each reports them only within the conditions stated below.</p>`}
      ${faults.length
        ? html`<p>Collector errors (these harnesses were not read):</p>
          <ul>${faults.map((x) => html`<li class="fault"><b>${x.label}</b>: ${x.error}</li>`)}</ul>`
        : null}
      ${partial.length
        ? html`<p>Sessions whose source was not fully read:</p>
          <ul>${partial.map((s) => html`<li><a href=${sessionHash(s)}>${label(s)}</a> (${s.harness_label}): ${s.missing.join(", ")}</li>`)}</ul>`
        : null}
      <p>Without lifecycle events, a harness with no turn-end signal reads a quiet session as idle; it may still be waiting on you.</p>
      <p>Covered: ${waiters.length ? `${plural(waiters.length, "installed harness", "installed harnesses")} can report that a session waits on you, within these conditions:` : "no installed harness can report that a session waits on you."}</p>
      <ul>${waiters.map((x) => html`<li data-harness=${x.key}><${Mark} harness=${x.key} label=${x.label} /> <b>${x.label}</b>: ${x.wait_coverage}</li>`)}</ul>
      <p>Process liveness: what of each harness's running CLI can be tied to a session.</p>
      <ul class="liveness">${(board.harnesses || []).filter((x) => x.process_coverage).map((x) => html`<li data-harness=${x.key}><b>${x.label}</b>: ${x.process_coverage}${(x.starting || []).length
        ? html` <span class="starting">Starting (a running process with no session yet): ${x.starting.map((p) => `pid ${p.pid} in ${p.cwd}`).join("; ")}.</span>`
        : null}</li>`)}</ul>
      <p class=${"native-coverage native-" + ctx.native.state} data-native=${ctx.native.state}>${ctx.native.long}${" "}
        Browser notifications: ${BROWSER_NOTIFY_TEXT[ctx.browserNotify] || ctx.browserNotify}.</p>
      <${Slot} name="attention.coverage" board=${board} ctx=${ctx} />
    </div>
  </section>`;
}

function NeedsItem({ session, board, ctx, label }) {
  const s = session;
  const w = s.waiting;
  return html`<li class="row st-needs_input needs" data-key=${s.key} data-state=${s.state}>
    <div class="row-head">
      <${HarnessBadge} session=${s} />
      <${StateBadge} state=${s.state} session=${s} />
      <a class="title" href=${sessionHash(s)}>${s.title ? label(s) : html`<span class="muted">${untitled(s)}</span>`}</a>
      <span class="proj">${s.project || "no project"}</span>
    </div>
    <div class="question">${w ? html`<b>${w.kind}</b>: ${w.text || s.detail}` : s.detail}
      ${w && w.since ? html` <span class="muted">· waiting ${ago(since(ctx, w.since)).replace(" ago", "")}</span>` : null}
      ${w ? html` <span class="muted">· from ${w.source}</span>` : null}</div>
    <p class="muted small">Answer it in that session's terminal; Cargento does not answer on its behalf.</p>
    ${resumable(s) ? html`<${CopyButton} text=${s.resume_command} label="COPY RESUME" what="resume command" />` : null}
    <${Slot} name="attention.item" board=${board} ctx=${ctx} session=${s} />
  </li>`;
}

// -- the session page -----------------------------------------------------------------------

// COPY RESUME only where the harness declares that its CLI resumes a session by id, and the
// row carries the command.
export function resumable(s) {
  return Boolean(s.resume_command) && harnessMeta(s.harness, s.harness_label).resumable;
}

export function CopyButton({ text, label, what }) {
  const onClick = async (ev) => {
    const btn = ev.currentTarget;
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch (_) {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      try {
        ok = document.execCommand("copy");
      } catch (_e) {
        ok = false;
      }
      area.remove();
    }
    btn.dataset.copied = ok ? "yes" : "no";
    const status = btn.nextElementSibling;
    if (status) status.textContent = ok ? `copied the ${what}` : `could not copy; the ${what} is: ${text}`;
  };
  return html`<span class="copy"><button type="button" class="btn" onClick=${onClick} data-copy=${text}>${label}</button><span class="copied" role="status" aria-live="polite"></span></span>`;
}

export function SessionPage({ board, ctx, route }) {
  const s = board.sessions.find((x) => x.harness === route.harness && x.session_id === route.sid);
  const crumbs = html`<nav class="crumbs" aria-label="Breadcrumbs"><a href="#n=sessions">Sessions</a>${route.project
    ? html` / <a href=${projectHash(route.project)}>${route.project}</a>`
    : null} / <span>${s ? s.title || s.display_id : route.sid}</span></nav>`;
  if (!s) {
    const m = harnessMeta(route.harness);
    return html`${crumbs}<section class="session-page missing-session">
      <h2 class="view-h" id="view-h" tabindex="-1">${m.label} session ${route.sid}</h2>
      <p>This session is not in the current payload${board.all ? "" : " (it may be idle outside the display window; try ?all=1)"}.</p>
      <${Slot} name="session.waiting" board=${board} ctx=${ctx} route=${route} session=${null} />
      <${Slot} name="session.first" board=${board} ctx=${ctx} route=${route} session=${null} />
      <${Slot} name="session.sections" board=${board} ctx=${ctx} route=${route} session=${null} />
      <${SessionRecord} harness=${route.harness} sid=${route.sid} revision=${board.revision} ctx=${ctx} />
    </section>`;
  }
  const w = s.waiting;
  return html`${crumbs}<section class="session-page" data-key=${s.key}>
    <header class="sp-head">
      <${HarnessBadge} session=${s} />
      <h2 class="view-h" id="view-h" tabindex="-1">${s.title || html`<span class="muted">${untitled(s)}</span>`}</h2>
      <${StateBadge} state=${s.state} session=${s} />
      ${s.role ? html`<span class="role">${s.role}</span>` : null}
    </header>
    ${s.state === "needs_input"
      ? html`<div class="question big" role="alert"><b>Waiting on you — ${w ? w.kind : "input"}</b>: ${w && w.text ? w.text : s.detail}
          ${w && w.since ? html`<div class="muted small">since ${ago(since(ctx, w.since))} · from ${w.source}</div>` : null}</div>`
      : null}
    <${Slot} name="session.waiting" board=${board} ctx=${ctx} route=${route} session=${s} />
    <div class="controls">
      <${CopyButton} text=${s.session_id} label="COPY ID" what="session id" />
      <${CopyButton} text=${location.href} label="COPY LINK" what="link" />
      ${resumable(s) ? html`<${CopyButton} text=${s.resume_command} label="COPY RESUME" what="resume command" />` : null}
      <${Slot} name="session.controls" board=${board} ctx=${ctx} route=${route} session=${s} />
    </div>
    <div class="columns">
      <${Slot} name="session.first" board=${board} ctx=${ctx} route=${route} session=${s} />
      <div class="col">
        <h3>Session activity</h3>
        <p class="detail">${detailText(s, ctx)}</p>
        <${Instruction} instruction=${s.instruction} ctx=${ctx} />
        ${s.state === "working" ? html`<${TurnBar} turn=${s.turn} ctx=${ctx} />` : null}
        ${s.state === "working" && s.turn && s.turn.eta_s == null ? html`<p class="note">The estimate needs a comparable finished turn of this session; none is on record yet.</p>` : null}
        <dl class="facts">
          <dt>Project</dt><dd>${s.project || "no project label"}</dd>
          <dt>Working directory</dt><dd>${s.cwd || "not recorded"}</dd>
          <dt>Session id</dt><dd class="mono">${s.session_id}</dd>
          <dt>Started</dt><dd>${s.started_at ? ago(since(ctx, s.started_at)) : "not recorded"}</dd>
          <dt>Last active</dt><dd>${s.last_active_at ? ago(since(ctx, s.last_active_at)) : "not recorded"}</dd>
          <dt>State from</dt><dd>${s.state_source}</dd>
          ${resumable(s) ? html`<dt>Resume</dt><dd class="mono">${s.resume_command}</dd>` : null}
        </dl>
        <${Notes} session=${s} full=${true} />
        ${s.notes.length ? html`<ul class="notes">${s.notes.map((n) => html`<li>${n}</li>`)}</ul>` : null}
      </div>
      <div class="col">
        <h3>Tasks ${s.tasks.length ? html`<span class="count">${s.tasks_done}/${s.tasks.length}</span>` : null}</h3>
        ${s.tasks.length ? html`<${Tasks} session=${s} ctx=${ctx} />` : html`<p class="muted">No tracked tasks.</p>`}
        <h3>Subagents</h3>
        ${s.subagents.length ? html`<${Pills} subagents=${s.subagents} ctx=${ctx} />` : html`<p class="muted">No subagents observed.</p>`}
        <h3>Token measurements</h3>
        <dl class="facts">
          <dt>Model</dt><dd><${Model} session=${s} /></dd>
          <dt>Output rate (10 min)</dt><dd><${Rate} session=${s} /></dd>
          <dt>Output tokens, total</dt><dd>${s.output_tokens_total == null ? html`<span class="muted" title="unmeasured">—</span>` : s.output_tokens_total.toLocaleString()}</dd>
          ${s.ai_units != null ? html`<dt>AI Units</dt><dd>${s.ai_units}</dd>` : null}
          ${s.rate_limits.map((r) => html`<dt>${r.name}</dt><dd>${Math.round(r.used_percent)}% used${r.resets_at ? `, resets ${new Date(r.resets_at).toLocaleString()}` : ""}</dd>`)}
        </dl>
      </div>
    </div>
    <${Slot} name="session.sections" board=${board} ctx=${ctx} route=${route} session=${s} />
    <${SessionRecord} harness=${s.harness} sid=${s.session_id} revision=${board.revision} ctx=${ctx} />
  </section>`;
}

// -- the session's record: notifications raised about it, reported commands, lifecycle marks ---

// Fetches /api/session-record for one session on open, on every new board revision, and on
// the heartbeat (a delivery's outcome lands after the board that raised it).
function useSessionRecord(harness, sid, revision, everyMs) {
  const [rec, setRec] = useState({ status: "loading" });
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setBeat((n) => n + 1), Math.max(1000, everyMs || 5000));
    return () => clearInterval(timer);
  }, [everyMs]);
  useEffect(() => {
    setRec({ status: "loading" });
  }, [harness, sid]);
  useEffect(() => {
    let gone = false;
    const q = new URLSearchParams({ harness, sid });
    fetch("/api/session-record?" + q, { cache: "no-store", headers: { Accept: "application/json" } })
      .then(async (r) => {
        const body = await r.json().catch(() => null);
        if (gone) return;
        if (r.ok && body) setRec({ status: "ok", doc: body });
        else setRec({ status: "absent", reason: (body && body.error) || `HTTP ${r.status}` });
      })
      .catch((e) => {
        // Keep what was shown; the header says when the server stops answering.
        if (!gone) setRec((old) => (old.status === "ok" ? old : { status: "absent", reason: String(e.message || e) }));
      });
    return () => {
      gone = true;
    };
  }, [harness, sid, revision, beat]);
  return rec;
}

function When({ at, ctx }) {
  if (!at) return html`<span class="muted">time unknown</span>`;
  return html`<time datetime=${at} title=${new Date(at).toLocaleString()}>${clock(new Date(at))} (${ago(since(ctx, at))})</time>`;
}

// Two deliveries the service treated alike: the same outcome, detail and tab-lane statement.
function sameOutcome(a, b) {
  return Boolean(a && b) && a.outcome === b.outcome && a.outcome_words === b.outcome_words && a.detail === b.detail
    && a.backend === b.backend && a.tab_lane.reported === b.tab_lane.reported && a.tab_lane.words === b.tab_lane.words;
}

// One delivery; *repeat* when the one above it had the same outcome, which is then said once
// (a machine with no backend otherwise reads the same three lines at every raise).
function Delivery({ d, ctx, repeat = false }) {
  return html`<li class=${"delivery outcome-" + d.outcome + (repeat ? " repeat" : "")} data-outcome=${d.outcome}>
    <div><${When} at=${d.raised_at} ctx=${ctx} /> · <span class="dkind">${d.kind_words}</span>${d.title
      ? html` · <span class="dtitle">“${d.title}”</span>`
      : null}</div>
    ${repeat
      ? html`<div class="doutcome muted small">the same outcome as the one above</div>`
      : html`<div class="doutcome">${d.outcome_words}${d.detail
          ? html` <span class="muted">(${d.outcome === "no-backend" ? d.detail : `${d.backend}: ${d.detail}`})</span>`
          : null}</div>
        <div class="dtab muted small" data-tab-lane=${d.tab_lane.reported ? "reported" : "none"}>${d.tab_lane.words}</div>`}
  </li>`;
}

function SessionRecord({ harness, sid, revision, ctx }) {
  if (!ctx.recordKept) {
    return html`<div class="record record-absent"><h3>Notifications</h3><p class="muted">This dashboard runs without its notification lane, so nothing is recorded about sessions.</p></div>`;
  }
  return html`<${KeptRecord} harness=${harness} sid=${sid} revision=${revision} ctx=${ctx} />`;
}

function KeptRecord({ harness, sid, revision, ctx }) {
  const rec = useSessionRecord(harness, sid, revision, ctx.recordEveryMs);
  if (rec.status === "loading") {
    return html`<div class="record" aria-busy="true"><h3>Notifications</h3><p class="muted">Reading this session's record…</p></div>`;
  }
  if (rec.status !== "ok") {
    return html`<div class="record record-absent"><h3>Notifications</h3><p class="muted">No record is kept here: ${rec.reason}</p></div>`;
  }
  const d = rec.doc;
  const ir = d.irreversible;
  const marks = d.marks;
  return html`<div class="record columns">
    <section class="col notifications" aria-labelledby="h-notifications">
      <h3 id="h-notifications">Notifications <span class="count">${d.deliveries.length}</span></h3>
      <p class=${"muted small native-" + ctx.native.state}>${ctx.native.long}</p>
      ${d.deliveries.length
        ? html`<ul class="deliveries">${d.deliveries.map((x, i) => html`<${Delivery} d=${x} ctx=${ctx} repeat=${sameOutcome(x, d.deliveries[i - 1])} />`)}</ul>
          <p class="muted small">${d.deliveries_note}</p>`
        : html`<p class="muted">No notification has been raised about this session.</p>`}
      ${d.withheld && d.withheld.length
        ? html`<h4>Not sent as it arose <span class="count">${d.withheld.length}</span></h4>
          <ul class="withheld">${d.withheld.map((w) => html`<li data-rule=${w.rule}><${When} at=${w.at} ctx=${ctx} /> · <span class="dkind">${w.kind_words}</span> · ${w.words}</li>`)}</ul>`
        : null}
      ${d.problems.length ? html`<p class="note fault">${d.problems.join("; ")}</p>` : null}
    </section>
    <section class="col commands" aria-labelledby="h-reported">
      <h3 id="h-reported">Reported commands ${ir.enabled ? html`<span class="count">${ir.reports.length}</span>` : null}</h3>
      ${!ir.enabled
        ? html`<p class="muted">${ir.reason}.</p>`
        : ir.reports.length
          ? html`<ul class="reports">${ir.reports.map((r) => html`<li class="report" data-shape=${r.shape}>
              <b>${r.shape_words}</b> · <${When} at=${r.at} ctx=${ctx} />${r.tool ? html` · <span class="muted">${r.tool}</span>` : null}
              <div class="mono">${r.command}</div></li>`)}</ul>`
          : html`<p class="muted">No irreversible command shape was reported for this session in this run.</p>`}
      <p class="muted small">${ir.note}</p>
      <h3>Lifecycle marks</h3>
      ${!marks.enabled
        ? html`<p class="muted">${marks.reason}.</p>`
        : html`<dl class="facts marks">
            <dt>Turn ended</dt><dd data-mark="turn">${marks.turn_ended_at ? html`an event said so <${When} at=${marks.turn_ended_at} ctx=${ctx} />` : html`<span class="muted">no turn-end event received</span>`}</dd>
            <dt>Session ended</dt><dd data-mark="session">${marks.session_ended
              ? html`an event said so <${When} at=${marks.session_ended.at} ctx=${ctx} />${marks.session_ended.reason ? ` (${marks.session_ended.reason})` : ""}`
              : html`<span class="muted">no session-end event received</span>`}</dd>
          </dl>`}
    </section>
  </div>`;
}
