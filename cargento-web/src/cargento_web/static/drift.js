// The observer on the page: the Drift section of a session page (Analyze drift, the reading, a
// later direction to settle, DEPARTURES RAISED TO YOU), the Drift mark on a Sessions row, and
// the Sessions rank of a session with a departure on record (after the blocked ones, before the
// working ones). Everything comes from the published board (board.observer), so a reload or
// another tab shows the same reading at the same step.
import { h } from "preact";
import { useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { postJSON } from "/static/api.js";
import { feature } from "/static/config.js";
import { ago, plural, shortAge } from "/static/format.js";
import { RaiseTerminal } from "/static/focus.js";
import { fillLogRow, fillPanel } from "/static/intent.js";
import { claimsFrom, fill, raise, waitsOnReader } from "/static/slots.js";
import { CopyButton, since } from "/static/views.js";

const html = htm.bind(h);

const VERDICT_TEXT = {
  consistent: "consistent",
  departs: "departs",
  unknown: "cannot be told",
  withheld: "no departure stated (a later direction is unsettled)",
};
// What became of an alert, in the five outcomes' own words (never "seen").
const DELIVERY_TEXT = {
  "handed-over": "handed to this machine's notification service (it accepted the request; nothing says a banner was drawn or seen)",
  "service-error": "the notification service returned an error",
  "could-not-start": "the notification command could not be started",
  "timed-out": "the notification call did not return inside its time limit",
  "no-backend": "this platform has no notification backend in this build",
};

function alertText(r) {
  if (r.delivery) return `Alert: ${DELIVERY_TEXT[r.delivery.outcome] || r.delivery.outcome}.`;
  if (r.alert === "cooldown" || r.alert === "held") return "Alert: held back by the notification cooldown; no delivery record is on file for this raise.";
  if (r.alert === "in-view") return "Alert: not raised, because a dashboard tab was showing this session; no delivery record is on file for this raise.";
  if (r.alert === "quiet") return "Alert: not raised inside quiet hours; no delivery record is on file for this raise.";
  return "Alert: no delivery record is on file for this raise.";
}

const ENDING_TEXT = {
  stored: "stored",
  failed: "failed",
  cancelled: "cancelled",
  interrupted: "interrupted",
};

function observerOf(board) {
  return (board && board.observer) || null;
}

function recordOf(board, harness, sid) {
  const o = observerOf(board);
  return (o && o.sessions && o.sessions[`${harness}/${sid}`]) || null;
}

// A session with a departure on record ranks after blocked sessions and before working ones.
raise((session, board) => {
  const rec = recordOf(board, session.harness, session.session_id);
  return Boolean(rec && rec.departed);
});

function DriftMark({ session, ctx }) {
  const rec = recordOf(ctx.board, session.harness, session.session_id);
  if (!rec || !rec.departed) return null;
  // The row's mark says the age short ("12m"), as the age column does; its title says it whole.
  const seconds = rec.departed_at ? since(ctx, rec.departed_at) : null;
  const moved = rec.departed_revision != null && rec.revision != null && rec.revision > rec.departed_revision;
  const title = `a departure is on record, raised ${seconds != null ? ago(seconds) : "at a time not recorded"}${moved ? `; it read revision ${rec.departed_revision} and the words have since moved to revision ${rec.revision}` : ""}`;
  return html` <span class="drift-mark" data-drift="departed" title=${title}>drift · ${seconds != null ? shortAge(seconds) : "age unknown"}${moved ? " · words moved" : ""}</span>`;
}

function Disclosure({ d, open }) {
  if (!d) return null;
  return html`<details class="drift-disclosure" open=${open}>
    <summary>What a reading sends, and to whom</summary>
    <p>${d.reads}</p>
    <p>Sent to ${d.destination}: at most ${d.limit_bytes.toLocaleString()} redacted bytes on standard input, one call per session, ${d.timeout_s}-second limit.</p>
    <p class="mono small">${d.command}</p>
  </details>`;
}

function Steps({ flight, disclosure, onCancel, busy }) {
  return html`<div class="analyzing" role="status" aria-live="polite" data-step=${flight.step}>
    <b>Analyzing drift</b> <span class="muted small">attempt ${flight.attempt}</span>
    <ol class="steps">${flight.steps.map(
      (text, i) => html`<li class=${i < flight.step ? "done" : i === flight.step ? "current" : "todo"} aria-current=${i === flight.step ? "step" : null}>
        <span aria-hidden="true">${i < flight.step ? "✓" : i === flight.step ? "▶" : "·"}</span> ${text}${i === flight.step ? html`<span class="sr-only"> (under way)</span>` : null}</li>`,
    )}</ol>
    <${Disclosure} d=${disclosure} open=${false} />
    <button type="button" class="btn" onClick=${onCancel} disabled=${busy}>Cancel</button>
  </div>`;
}

function answerText(r) {
  const b = r.body || {};
  if (r.status === 0) return "The request did not reach the dashboard; its result could not be confirmed.";
  if (r.status === 429) return `The cap of readings per rolling 24 hours is reached; try again ${b.retry_at ? "after " + new Date(b.retry_at).toLocaleString() : "later"}.`;
  if (r.status === 409 && b.reason === "provider-changed") return `The reader is now the ${b.route && b.route.label ? b.route.label : "another CLI"}: nothing was saved or spent. Read its disclosure and press again.`;
  if (r.status === 409) return "A reading of this session is already in flight.";
  if (r.status === 200 && b.produced === false) return "No annotated session by that name exists, so there is nothing to read against.";
  return b.error || `The dashboard answered ${r.status}; its result could not be confirmed.`;
}

function Control({ o, harness, sid, route, disclosure, ctx, session }) {
  const [asking, setAsking] = useState(false);
  const [toolOutput, setToolOutput] = useState(Boolean(disclosure && disclosure.tool_output_allowed));
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const allowed = o.consent && o.consent.providers.includes(route.provider);
  const work = (feature("observer") || {}).work_harnesses || [];
  const send = async (extra) => {
    setBusy(true);
    setMessage(null);
    const r = await postJSON("/api/reading", { harness, sid, provider: route.provider, press: true, observer_model: 1, ...extra });
    setBusy(false);
    if (r.status === 202) {
      setAsking(false);
      ctx.refresh && ctx.refresh();
      return;
    }
    if (r.status === 403) {
      setAsking(true);
      return;
    }
    setMessage(answerText(r));
  };
  const press = () => (allowed ? send(toolOutput !== Boolean(disclosure && disclosure.tool_output_allowed) ? { allow: true, tool_output: toolOutput } : {}) : setAsking(true));
  const off = async () => {
    setBusy(true);
    const r = await postJSON("/api/reading", { consent: "off", press: true, observer_model: 1 });
    setBusy(false);
    setMessage(r.ok ? "Readings are off: the next Analyze drift asks again." : answerText(r));
  };
  const budget = o.budget;
  // The page's one primary control, except while the session's question is open to you: a
  // native wait, or a question a feature claims it asks (the ask lane's).
  const waits = session && (session.state === "needs_input" || (ctx && ctx.board && waitsOnReader(session, claimsFrom(ctx.board))));
  const primary = waits ? "btn" : "btn primary";
  return html`<div class="drift-control">
    ${work.includes(harness)
      ? html`<label class="small"><input type="checkbox" checked=${toolOutput} onChange=${(e) => setToolOutput(e.currentTarget.checked)} />
          Allow tool output for ${disclosure.destination}</label>`
      : null}
    ${asking
      ? html`<div class="drift-consent" role="group" aria-label="Allow readings">
          <${Disclosure} d=${disclosure} open=${true} />
          <button type="button" class=${primary} disabled=${busy} onClick=${() => send({ allow: true, tool_output: toolOutput })}>Allow and analyze</button>
          <button type="button" class="btn" onClick=${() => setAsking(false)}>Not now</button>
        </div>`
      : html`<button type="button" class=${primary} disabled=${busy} onClick=${press}>Analyze drift</button>
          <span class="muted small"> read by the ${route.label}</span>
          ${allowed ? html` <button type="button" class="btn small" disabled=${busy} onClick=${off}>Turn off readings</button>` : null}
          ${!asking ? html`<${Disclosure} d=${disclosure} open=${false} />` : null}`}
    ${budget
      ? html`<p class="muted small drift-budget">${budget.used} of ${budget.cap} readings recorded in the last 24 hours (each a model request, goal summaries included; failed ones are not refunded).</p>`
      : html`<p class="muted small">The reading budget could not be read.</p>`}
    ${message ? html`<p class="drift-message" role="alert">${message}</p>` : null}
  </div>`;
}

function movedNote(rec, revision) {
  if (revision == null) return "the revision it read against was not recorded";
  if (rec.revision != null && rec.revision > revision) return `read against revision ${revision}; the words have since moved to revision ${rec.revision}`;
  return `read against revision ${revision}`;
}

function Reading({ rec, ctx }) {
  const reading = rec.readings[rec.readings.length - 1];
  if (!reading) return null;
  return html`<div class="drift-reading">
    <p><b>Reading</b> <span class="muted small">${reading.at ? ago(since(ctx, reading.at)) : "reading time unknown"} · ${movedNote(rec, reading.revision)} · ${reading.provider}${reading.goal_source === "prompt" ? " · goal from your prompt" : ""}</span></p>
    ${reading.withheld ? html`<p class="note">A later direction was unsettled, so this reading states no departure.</p>` : null}
    <table class="drift-rows"><tbody>${reading.rows.map(
      (row) => html`<tr data-verdict=${row.verdict}><td>${reading.withdrawn ? html`<span class="muted">(words withdrawn)</span>` : row.line}</td><td class=${"verdict v-" + row.verdict}>${VERDICT_TEXT[row.verdict] || row.verdict}</td><td class="muted small">${reading.withdrawn ? "" : row.evidence || "no evidence cited"}</td></tr>`,
    )}</tbody></table>
  </div>`;
}

function LastAttempt({ rec, ctx }) {
  const last = rec.attempts[rec.attempts.length - 1];
  if (!last || last.ending === "stored") return null;
  return html`<p class="drift-attempt" data-ending=${last.ending}>The last attempt (${last.attempt}) was ${ENDING_TEXT[last.ending] || last.ending} ${ago(since(ctx, last.ended_at))}: ${last.detail || "its result could not be confirmed"}. ${last.spent ? "It counts against the budget." : "It spent nothing."}</p>`;
}

function Conflict({ rec, harness, sid, ctx }) {
  const [message, setMessage] = useState(null);
  if (!rec.conflict || !rec.conflict.length) return null;
  const newest = rec.conflict[rec.conflict.length - 1];
  const settle = async () => {
    const r = await postJSON("/api/annotate", { harness, sid, settle_through: newest.at });
    setMessage(r.ok ? "Settled: your saved words still apply." : (r.body && (r.body.reason || r.body.error)) || `The dashboard answered ${r.status}.`);
  };
  const retype = () => {
    const goal = document.getElementById("intent-goal");
    if (goal) goal.focus();
  };
  return html`<div class="conflict" role="group" aria-labelledby="h-conflict">
    <h4 id="h-conflict">Conflict to settle</h4>
    <p class="small">You gave ${rec.conflict.length === 1 ? "a direction" : plural(rec.conflict.length, "direction", "directions")} after your newest save. Whether it changes what you asked for is yours to decide; Cargento writes nothing into the session either way.</p>
    <ul>${rec.conflict.map((c) => html`<li><span class="muted small">${ago(since(ctx, c.at))}</span> ${c.text}</li>`)}</ul>
    <button type="button" class="btn" onClick=${settle}>still applies</button> <button type="button" class="btn" onClick=${retype}>retype</button>
    ${message ? html`<p class="small" role="status">${message}</p>` : null}
  </div>`;
}

function laterFinding(rec, raisedAt, line) {
  const later = rec.readings.filter((r) => r.at && raisedAt && r.at > raisedAt);
  if (!later.length) return "No later check has read the session.";
  const last = later[later.length - 1];
  const row = last.rows.find((r) => r.line === line);
  const found = row ? VERDICT_TEXT[row.verdict] || row.verdict : "nothing about this line";
  return `A later check (${last.at.slice(0, 16).replace("T", " ")}) found: ${found}.`;
}

// A spent limit is said out loud: "not checked" and "checked, nothing raised" never read alike.
function Limits({ o, rec }) {
  const limits = o.unasked && o.unasked.limits;
  if (!limits) return null;
  const used = limits.sessions[`${rec.harness}/${rec.sid}`] || 0;
  if (limits.day_spent) return html`<p class="note small" data-limit="day">The day's limit of ${limits.per_day} unasked checks is spent: no session is being checked until the oldest check is a day old.</p>`;
  if (used >= limits.per_session) return html`<p class="note small" data-limit="session">This session's limit of ${limits.per_session} unasked checks a day is spent: it is not being checked now.</p>`;
  return null;
}

// Beside the departures: the command that resumes the session and the raise that selects its
// tmux pane, whatever state it is in; where either is missing, why, once. Neither sends anything.
function Reach({ board, session }) {
  if (!session) return html`<p class="muted small">The session is not on the board, so neither its resume command nor its pane can be offered.</p>`;
  const focus = feature("focus");
  const raisable = Boolean(focus && focus.enabled && board.focus && (board.focus.raisable || []).includes(session.key));
  const missing = [];
  if (!session.resume_command) missing.push("this harness publishes no command that resumes the session");
  if (!raisable) missing.push(focus && focus.enabled ? "its tmux pane is not one this dashboard can reach" : "raising a terminal is off for this run");
  return html`<div class="departure-reach">
    ${session.resume_command ? html`<${CopyButton} text=${session.resume_command} label="COPY RESUME" what="resume command" />` : null}
    ${raisable ? html`<${RaiseTerminal} board=${board} session=${session} />` : null}
    ${missing.length ? html`<p class="muted small">Not offered here: ${missing.join("; ")}.</p>` : null}
    <p class="muted small">Neither sends anything to the session.</p>
  </div>`;
}

function Departures({ o, rec, session, ctx, board }) {
  const asked = [];
  for (const r of rec.readings) for (const row of r.rows) if (row.verdict === "departs") asked.push({ reading: r, row });
  const away = rec.unasked || [];
  const cfg = feature("observer") || {};
  if (!cfg.unasked && !rec.readings.length && !away.length) return null;
  return html`<section class="departures" aria-labelledby="h-departures">
    <h4 id="h-departures">DEPARTURES RAISED TO YOU</h4>
    <div class="collection" data-collection="asked">
      <h5>What a reading you asked for raised</h5>
      ${asked.length
        ? html`<ul>${asked.map(({ reading, row }) => html`<li>
            <b>${reading.withdrawn ? "(words withdrawn)" : row.line}</b> <span class="muted small">${ago(since(ctx, reading.at))} · ${movedNote(rec, reading.revision)}</span>
            ${reading.withdrawn ? null : html`<div class="small">${row.evidence}</div>`}
            <div class="small muted">${laterFinding(rec, reading.at, row.line)} Alert: no delivery record is on file for this raise.</div>
          </li>`)}</ul>`
        : html`<p class="muted small">No reading you asked for has raised a departure.</p>`}
    </div>
    <div class="collection" data-collection="unasked">
      <h5>What the checks run while you were away raised</h5>
      ${away.length
        ? html`<ul>${away.map((r) => html`<li>
            <b>${r.withdrawn ? "(words withdrawn)" : r.goal}</b> <span class="muted small">${ago(since(ctx, r.at))} · ${movedNote(rec, r.revision)}</span>
            ${r.withdrawn ? null : html`<div class="small">${r.evidence}</div>`}
            <div class="small muted">Its evidence stopped where ${r.evidence_stopped || "the account ended"}. ${laterFinding(rec, r.at, r.goal)} <span class="alert-outcome">${alertText(r)}</span></div>
          </li>`)}</ul>`
        : html`<p class="muted small">${rec.checks ? "The away checks ran and raised nothing." : "The away checks have not read this session."}</p>`}
      ${!o.unasked.on && away.length ? html`<p class="note small">Nothing new is being checked: unasked readings are off for this run.</p>` : null}
      <${Limits} o=${o} rec=${rec} />
    </div>
    <ul class="figures small">
      <li>The reading raised ${plural(asked.length, "departure", "departures")} (the rows above).</li>
      <li>${rec.checks ? `The away checks raised ${plural(away.length, "departure", "departures")} in ${plural(rec.checks, "check", "checks")}.` : "The away checks: not measured (they have never read this session)."}</li>
    </ul>
    <ul class="figures small board-figures">
      <li>Alerts raised for this session's departures: ${away.filter((r) => r.alert === "raised" || r.delivery).length}.</li>
      <li>Reading attempts: ${rec.attempt_count || 0}.</li>
      <li>Hand-overs to the notification service: ${away.filter((r) => r.delivery && r.delivery.outcome === "handed-over").length}.</li>
    </ul>
    ${asked.length || away.length ? html`<${Reach} board=${board} session=${session} />` : null}
  </section>`;
}

// The next step for each reason a reading cannot run in this run.
const NEXT_STEP = {
  "annotations-off": "start Cargento without --no-annotations to type words a reading can read against",
  "model-off": "start Cargento without --no-observer-model to allow model calls",
  "gate-closed": "move or repair cargento-annotations.json in the state folder, then press again",
};

// When a reading cannot run in this run, Analyze drift stays on the page, refuses the press and
// names one next step.
function Inert({ o }) {
  const [pressed, setPressed] = useState(false);
  const next = NEXT_STEP[o.reason_key];
  return html`<div class="drift-control inert">
    <button type="button" class="btn" aria-disabled="true" aria-describedby="drift-why" onClick=${() => setPressed(true)}>Analyze drift</button>
    <p class="drift-reason" id="drift-why">${o.reason}${next ? html`. Next step: ${next}.` : null}</p>
    ${pressed ? html`<p class="drift-message" role="alert">Not started: nothing was sent or spent.</p>` : null}
  </div>`;
}

function DriftSection({ board, ctx, route, session }) {
  const o = observerOf(board);
  if (!o) return null;
  const harness = session ? session.harness : route.harness;
  const sid = session ? session.session_id : route.sid;
  const rec = recordOf(board, harness, sid) || { readings: [], attempts: [], asked: [], unasked: [], checks: 0, conflict: [] };
  const r = o.routes && o.routes[harness];
  const disclosure = o.disclosures && o.disclosures[harness];
  const cfg = feature("observer") || {};
  const work = cfg.work_harnesses || [];
  // Under --observer-model a goal-less Claude Code or Codex session adopts its latest prompt.
  const adopts = Boolean(cfg.adopts && session && (cfg.adopt_harnesses || []).includes(harness) && session.instruction && session.instruction.at);
  const [busy, setBusy] = useState(false);
  const cancel = async () => {
    setBusy(true);
    await postJSON("/api/reading/cancel", { harness, sid });
    setBusy(false);
  };
  let control;
  if (!o.on) control = html`<${Inert} o=${o} />`;
  else if (rec.revision == null && !adopts) control = html`<p class="muted">Nothing is typed against this session, so there is nothing to read against.</p>`;
  else if (!session) control = html`<p class="muted">This session is not on the board now, so it cannot be read.</p>`;
  else if (!r || !r.provider) control = html`<p class="drift-reason">${r ? r.reason : "No reader is named for this harness."}</p>`;
  else if (rec.flight) control = html`<${Steps} flight=${rec.flight} disclosure=${disclosure} onCancel=${cancel} busy=${busy} />`;
  else control = html`<${Control} o=${o} harness=${harness} sid=${sid} route=${r} disclosure=${disclosure} ctx=${ctx} session=${session} />`;
  return html`<section class="drift" aria-labelledby="h-drift" data-harness=${harness}>
    <h3 id="h-drift">Drift</h3>
    ${rec.revision == null && adopts && o.on ? html`<p class="small">No goal is typed: Analyze drift adopts your latest prompt as the goal, saved as words "from your prompt" (editing it makes them typed words).</p>` : null}
    ${control}
    ${work.includes(harness) ? null : html`<p class="drift-level">Cargento can't read work from this harness.</p>`}
    <${Reading} rec=${rec} ctx=${ctx} />
    <${LastAttempt} rec=${rec} ctx=${ctx} />
    <${Conflict} rec=${rec} harness=${harness} sid=${sid} ctx=${ctx} />
    <${Departures} o=${o} rec=${rec} session=${session} ctx=${ctx} board=${board} />
  </section>`;
}

// The Intent log carries the same raises, a line each, from the records kept against the words
// (so they stay after the session leaves the board).
function LogRaises({ row, ctx }) {
  const records = (row.entry && row.entry.reading_records) || [];
  const lines = [];
  for (const r of records) {
    if (r.kind === "unasked") lines.push({ at: r.at, revision: r.revision, text: r.goal, lane: "an away check" });
    else for (const x of r.rows || []) if (x.verdict === "departs") lines.push({ at: r.at, revision: r.revision, text: x.line, lane: "a reading you asked for" });
  }
  if (!lines.length) return null;
  const current = row.entry.revision;
  return html`<ul class="log-raises small">${lines.map(
    (l) => html`<li data-raise=${l.lane}><span class="drift-mark">drift</span> ${l.text} <span class="muted">· raised by ${l.lane} ${l.at ? ago(since(ctx, l.at)) : "at a time unknown"} · ${l.revision == null ? "the revision it read against was not recorded" : current != null && current > l.revision ? `read against revision ${l.revision}; the words have since moved to revision ${current}` : `read against revision ${l.revision}`}</span></li>`,
  )}</ul>`;
}

// The Drift section runs in the Intent and drift panel, below your words, when the annotations
// feature draws that panel; without it, after the session page's columns.
const annotations = feature("annotations");
// Under --no-annotations the panel still carries the section, so Analyze drift stays there, inert.
if (annotations) {
  fillPanel(DriftSection);
  if (annotations.on) fillLogRow(LogRaises);
} else fill("session.sections", DriftSection);
fill("row.marks", DriftMark, (board, s, ctx) => {
  const rec = recordOf(board, s.harness, s.session_id);
  if (!rec || !rec.departed) return null;
  return [rec.departed_at, rec.departed_revision, rec.revision, rec.departed_at ? shortAge(since(ctx, rec.departed_at)) : null];
});
