// The dashboard's views: the harness strip, Sessions, Projects, Attention and the session page.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import {
  BROWSER_NOTIFY_TEXT, LONG_TURN_NOTE, SCANNING_NOTE, STATE_TEXT, ago, clock, duration, plural, projectHash, rate, sessionHash,
} from "/static/format.js";
import { Mark, harnessMeta } from "/static/marks.js";

const html = htm.bind(h);

// Seconds since an ISO stamp, on the board's clock advanced by the time since it was fetched.
export function since(ctx, stamp) {
  if (!stamp) return null;
  return (ctx.boardNow - Date.parse(stamp)) / 1000;
}

function StateBadge({ state }) {
  return html`<span class=${"badge state-" + state} data-state=${state}>${STATE_TEXT[state] || state}</span>`;
}

function HarnessBadge({ session }) {
  return html`<span class="hbadge" title=${session.harness_label}>
    <${Mark} harness=${session.harness} label=${session.harness_label} />
    <span class="hname">${session.harness_label}</span>
  </span>`;
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
        return html`<li class=${"harness " + cls} data-harness=${x.key} title=${status}>
          <${Mark} harness=${x.key} label=${x.label} dim=${cls === "off"} />
          <span class="hl">${x.label}</span>
          ${x.discovered && !x.error ? html`<span class="hcount" aria-hidden="true">${x.sessions}</span>` : null}
          <span class="sr-only">: ${status}</span>
          ${x.error ? html`<span class="hfault">${x.error}</span>` : null}
        </li>`;
      })}
    </ul>
  </section>`;
}

// -- pieces of a row ------------------------------------------------------------------------

function TurnBar({ turn, ctx }) {
  if (!turn) return null;
  // eta_s is the estimated time remaining when the board was built; both figures advance
  // with the time since.
  const elapsed = turn.elapsed_s + ctx.drift;
  const total = turn.eta_s == null ? null : turn.elapsed_s + turn.eta_s;
  const left = total == null ? null : Math.max(0, total - elapsed);
  const pct = total ? Math.min(100, Math.round((elapsed / total) * 100)) : null;
  const text = total == null
    ? `${duration(elapsed)} · no estimate (no comparable finished turn)`
    : `${duration(elapsed)} · est. ${duration(left)} remaining`;
  return html`<div class="turn">
    <div class="bar" role="progressbar" aria-label="Current turn" aria-valuemin="0" aria-valuemax="100"
      aria-valuenow=${pct == null ? undefined : pct} aria-valuetext=${"current turn " + text}>
      <div class=${"fill" + (pct == null ? " unknown" : "")} style=${{ width: pct == null ? "100%" : pct + "%" }}></div>
    </div>
    <span class="turn-text">${text}</span>
    ${turn.long
      ? html`<span class="long" title=${LONG_TURN_NOTE}><span aria-hidden="true">⚠️</span><span class="sr-only">${LONG_TURN_NOTE}</span></span>`
      : null}
  </div>`;
}

function Pills({ subagents, ctx }) {
  if (!subagents || !subagents.length) return null;
  return html`<ul class="pills" aria-label="Subagents">
    ${subagents.map((a) => {
      const label = a.running ? "running" : "no longer running";
      const extra = [a.role, a.model].filter(Boolean).join(" · ");
      return html`<li class=${"pill " + (a.running ? "run" : "done")}
        title=${`${a.name}${extra ? " (" + extra + ")" : ""}: ${label}${a.last_active_at ? ", last active " + ago(since(ctx, a.last_active_at)) : ""}`}>
        <span aria-hidden="true">${a.running ? "●" : "○"}</span> ${a.name}<span class="sr-only">, ${label}</span>
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
  if (!session.model_display) return html`<span class="model muted" title="no model recorded">model —</span>`;
  return html`<span class="model" title=${session.model || ""}>${session.model_display}${session.authority
    ? html` <span class="authority">${session.authority}</span>`
    : null}</span>`;
}

function Rate({ session }) {
  const r = rate(session.output_tokens_per_min);
  return html`<span class=${"rate" + (session.output_tokens_per_min == null ? " muted" : "")} title=${r.label}>
    <span aria-hidden="true">${r.text}</span><span class="sr-only">${r.label}</span>
  </span>`;
}

function Notes({ session }) {
  return html`
    ${session.read_by_scanning ? html`<div class="note scanning">${SCANNING_NOTE}</div>` : null}
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

export function SessionRow({ session, ctx, compact }) {
  const s = session;
  return html`<li class=${"row st-" + s.state} data-key=${s.key} data-state=${s.state}>
    <div class="row-head">
      <${HarnessBadge} session=${s} />
      <${StateBadge} state=${s.state} />
      <a class="title" href=${sessionHash(s)}>${s.title || html`<span class="muted">untitled session</span>`}</a>
      ${s.role ? html`<span class="role">${s.role}</span>` : null}
      <span class="proj">${s.project || "no project"}</span>
      <span class="sid" title=${s.session_id}>${s.display_id}</span>
      <span class="spacer"></span>
      <${Model} session=${s} />
      <${Rate} session=${s} />
    </div>
    <div class="detail">${s.state === "needs_input" && s.waiting
      ? html`<span class="wait-kind">${s.waiting.kind}:</span> `
      : null}${detailText(s, ctx)}</div>
    ${compact ? null : html`<${Instruction} instruction=${s.instruction} ctx=${ctx} />`}
    ${s.state === "working" ? html`<${TurnBar} turn=${s.turn} ctx=${ctx} />` : null}
    <${Pills} subagents=${s.subagents} ctx=${ctx} />
    ${compact ? null : html`<${Tasks} session=${s} ctx=${ctx} />`}
    <${Notes} session=${s} />
  </li>`;
}

function Rows({ sessions, ctx, compact, empty }) {
  if (!sessions.length) return html`<p class="empty">${empty}</p>`;
  return html`<ul class="rows">${sessions.map((s) => html`<${SessionRow} key=${s.key} session=${s} ctx=${ctx} compact=${compact} />`)}</ul>`;
}

// -- Sessions -------------------------------------------------------------------------------

export function SessionsView({ board, ctx }) {
  const active = board.sessions.filter((s) => s.state !== "idle");
  const recent = board.sessions.filter((s) => s.state === "idle");
  const windowNote = board.all ? "every session ever" : `idle within the last ${board.window_hours} h`;
  return html`<section aria-labelledby="h-active">
      <h2 id="h-active">Active <span class="count">${active.length}</span></h2>
      <${Rows} sessions=${active} ctx=${ctx} empty="Nothing is working or waiting on you right now." />
    </section>
    <section aria-labelledby="h-recent">
      <h2 id="h-recent">Recent <span class="count">${recent.length}</span> <span class="muted small">${windowNote}</span></h2>
      <${Rows} sessions=${recent} ctx=${ctx} empty="No recent sessions in the display window." />
    </section>`;
}

// -- Projects -------------------------------------------------------------------------------

export function groupByProject(sessions) {
  const groups = new Map();
  for (const s of sessions) {
    const key = s.project || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  return [...groups.entries()];
}

function stateSummary(list) {
  const n = (st) => list.filter((s) => s.state === st).length;
  const parts = [];
  if (n("needs_input")) parts.push(`${n("needs_input")} need you`);
  if (n("working")) parts.push(`${n("working")} working`);
  if (n("idle")) parts.push(`${n("idle")} idle`);
  return parts.join(" · ");
}

export function ProjectsView({ board, ctx }) {
  const groups = groupByProject(board.sessions);
  if (!groups.length) return html`<p class="empty">No sessions in the display window.</p>`;
  return html`<section aria-label="Projects">${groups.map(
    ([project, list]) => html`<div class="project" data-project=${project}>
      <h2>${project ? html`<a href=${projectHash(project)}>${project}</a>` : html`<span class="muted">no project label</span>`}
        <span class="count">${list.length}</span> <span class="muted small">${stateSummary(list)}</span></h2>
      <${Rows} sessions=${list} ctx=${ctx} compact=${true} empty="" />
    </div>`,
  )}</section>`;
}

export function ProjectView({ board, ctx, project }) {
  const list = board.sessions.filter((s) => (s.project || "") === project);
  return html`<nav class="crumbs" aria-label="Breadcrumbs"><a href="#n=projects">Projects</a> / <span>${project}</span></nav>
    <h2>${project} <span class="count">${list.length}</span> <span class="muted small">${stateSummary(list)}</span></h2>
    <${Rows} sessions=${list} ctx=${ctx} empty="No session of this project is in the current payload." />`;
}

// -- Attention ------------------------------------------------------------------------------

// A harness row as the page reads it: `absent` when its plugin did not load (blocked, invalid…).
function harnessRows(board) {
  return (board ? board.harnesses : []).map((x) => ({ ...x, absent: Boolean(x.plugin && x.plugin.status !== "loaded") }));
}

export function AttentionView({ board, ctx }) {
  const needs = board.sessions.filter((s) => s.state === "needs_input");
  const looping = board.sessions.filter((s) => s.loop && s.state !== "needs_input");
  const long = board.sessions.filter((s) => s.turn && s.turn.long && s.state !== "needs_input" && !s.loop);
  const claimed = new Set([...needs, ...looping, ...long].map((s) => s.key));
  const rest = board.sessions.filter((s) => !claimed.has(s.key));
  const moving = rest.filter((s) => s.state === "working").length;
  const ended = rest.filter((s) => s.state === "idle" && s.ended).length;
  const quiet = rest.filter((s) => s.state === "idle" && !s.ended).length;
  const hs = harnessRows(board);
  const waiters = hs.filter((x) => !x.absent && x.reports_waits);
  const blind = hs.filter((x) => x.absent || !x.reports_waits);
  const faults = board.harnesses.filter((x) => x.error);
  const partial = board.sessions.filter((s) => s.missing.length);
  return html`<section class="attention" aria-label="Attention">
    <p class="brief">
      ${plural(needs.length, "session needs", "sessions need")} you now, ${plural(looping.length + long.length, "session is", "sessions are")} at risk;
      of the other ${rest.length}: ${moving} moving, ${quiet} quiet, ${ended} ended.
    </p>
    <h2 class="needs-h">NEEDS YOU NOW <span class="count">${needs.length}</span></h2>
    ${needs.length
      ? html`<ul class="rows">${needs.map((s) => html`<${NeedsItem} key=${s.key} session=${s} ctx=${ctx} />`)}</ul>`
      : html`<p class="empty">No harness that can report a wait reports one. That is not an all-clear: see what is not covered below.</p>`}
    <h2>AT RISK <span class="count">${looping.length + long.length}</span></h2>
    ${looping.length || long.length
      ? html`<ul class="rows">
          ${looping.map((s) => html`<${SessionRow} key=${s.key} session=${s} ctx=${ctx} compact=${true} />`)}
          ${long.map((s) => html`<${SessionRow} key=${s.key} session=${s} ctx=${ctx} compact=${true} />`)}
        </ul>`
      : html`<p class="empty">No failed-tool loop and no turn at 15 minutes or more observed.</p>`}
    <h2>NOT COVERED</h2>
    <div class="coverage">
      <p>${waiters.length ? `${plural(waiters.length, "installed harness", "installed harnesses")} can report that a session waits on you, within these conditions:` : "No installed harness can report that a session waits on you."}</p>
      <ul>${waiters.map((x) => html`<li data-harness=${x.key}><${Mark} harness=${x.key} label=${x.label} /> <b>${x.label}</b>: ${x.wait_coverage}</li>`)}</ul>
      ${blind.length
        ? html`<p>A quiet row is not proof that nothing waits on these, which cannot report a wait here:</p>
          <ul>${blind.map((x) => html`<li data-harness=${x.key}><${Mark} harness=${x.key} label=${x.label} dim=${true} /> <b>${x.label}</b>: ${x.absent ? `plugin ${x.plugin.status}` : x.wait_coverage}</li>`)}</ul>`
        : null}
      ${faults.length
        ? html`<p>Collector errors (these harnesses were not read):</p>
          <ul>${faults.map((x) => html`<li class="fault"><b>${x.label}</b>: ${x.error}</li>`)}</ul>`
        : null}
      ${partial.length
        ? html`<p>Sessions whose source was not fully read:</p>
          <ul>${partial.map((s) => html`<li><a href=${sessionHash(s)}>${s.title || s.display_id}</a> (${s.harness_label}): ${s.missing.join(", ")}</li>`)}</ul>`
        : null}
      <p class="muted">Without lifecycle events, a harness with no turn-end signal reads a quiet session as idle; it may still be waiting on you.</p>
      <p class=${"native-coverage native-" + ctx.native.state} data-native=${ctx.native.state}>${ctx.native.long}
        Browser notifications: ${BROWSER_NOTIFY_TEXT[ctx.browserNotify] || ctx.browserNotify}.</p>
    </div>
  </section>`;
}

function NeedsItem({ session, ctx }) {
  const s = session;
  const w = s.waiting;
  return html`<li class="row st-needs_input needs" data-key=${s.key} data-state=${s.state}>
    <div class="row-head">
      <${HarnessBadge} session=${s} />
      <${StateBadge} state=${s.state} />
      <a class="title" href=${sessionHash(s)}>${s.title || html`<span class="muted">untitled session</span>`}</a>
      <span class="proj">${s.project || "no project"}</span>
    </div>
    <div class="question">${w ? html`<b>${w.kind}</b>: ${w.text || s.detail}` : s.detail}
      ${w && w.since ? html` <span class="muted">· waiting ${ago(since(ctx, w.since)).replace(" ago", "")}</span>` : null}
      ${w ? html` <span class="muted">· from ${w.source}</span>` : null}</div>
    <p class="muted small">Answer it in that session's terminal; Cargento does not answer on its behalf.</p>
    ${resumable(s) ? html`<${CopyButton} text=${s.resume_command} label="COPY RESUME" what="resume command" />` : null}
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
      <h2>${m.label} session ${route.sid}</h2>
      <p>This session is not in the current payload${board.all ? "" : " (it may be idle outside the display window; try ?all=1)"}.</p>
      <${SessionRecord} harness=${route.harness} sid=${route.sid} revision=${board.revision} ctx=${ctx} />
    </section>`;
  }
  const w = s.waiting;
  return html`${crumbs}<section class="session-page" data-key=${s.key}>
    <header class="sp-head">
      <${HarnessBadge} session=${s} />
      <h2>${s.title || html`<span class="muted">untitled session</span>`}</h2>
      <${StateBadge} state=${s.state} />
      ${s.role ? html`<span class="role">${s.role}</span>` : null}
    </header>
    ${s.state === "needs_input"
      ? html`<div class="question big" role="alert"><b>Waiting on you — ${w ? w.kind : "input"}</b>: ${w && w.text ? w.text : s.detail}
          ${w && w.since ? html`<div class="muted small">since ${ago(since(ctx, w.since))} · from ${w.source}</div>` : null}</div>`
      : null}
    <div class="controls">
      <${CopyButton} text=${s.session_id} label="COPY ID" what="session id" />
      <${CopyButton} text=${location.href} label="COPY LINK" what="link" />
      ${resumable(s) ? html`<${CopyButton} text=${s.resume_command} label="COPY RESUME" what="resume command" />` : null}
    </div>
    <div class="columns">
      <div class="col">
        <h3>Session activity</h3>
        <p class="detail">${detailText(s, ctx)}</p>
        <${Instruction} instruction=${s.instruction} ctx=${ctx} />
        ${s.state === "working" ? html`<${TurnBar} turn=${s.turn} ctx=${ctx} />` : null}
        <dl class="facts">
          <dt>Project</dt><dd>${s.project || "no project label"}</dd>
          <dt>Working directory</dt><dd>${s.cwd || "not recorded"}</dd>
          <dt>Session id</dt><dd class="mono">${s.session_id}</dd>
          <dt>Started</dt><dd>${s.started_at ? ago(since(ctx, s.started_at)) : "not recorded"}</dd>
          <dt>Last active</dt><dd>${s.last_active_at ? ago(since(ctx, s.last_active_at)) : "not recorded"}</dd>
          <dt>State from</dt><dd>${s.state_source}</dd>
          ${resumable(s) ? html`<dt>Resume</dt><dd class="mono">${s.resume_command}</dd>` : null}
        </dl>
        <${Notes} session=${s} />
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

function Delivery({ d, ctx }) {
  return html`<li class=${"delivery outcome-" + d.outcome} data-outcome=${d.outcome}>
    <div><${When} at=${d.raised_at} ctx=${ctx} /> · <span class="dkind">${d.kind_words}</span>${d.title
      ? html` · <span class="dtitle">“${d.title}”</span>`
      : null}</div>
    <div class="doutcome">${d.outcome_words}${d.detail
      ? html` <span class="muted">(${d.outcome === "no-backend" ? d.detail : `${d.backend}: ${d.detail}`})</span>`
      : null}</div>
    <div class="dtab muted small" data-tab-lane=${d.tab_lane.reported ? "reported" : "none"}>${d.tab_lane.words}</div>
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
        ? html`<ul class="deliveries">${d.deliveries.map((x) => html`<${Delivery} d=${x} ctx=${ctx} />`)}</ul>
          <p class="muted small">${d.deliveries_note}</p>`
        : html`<p class="muted">No notification has been raised about this session.</p>`}
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
