// The observer's optional goal summary, beside the goal field of a session page's Intent
// section: under --observer-model only, the provider that offers summaries proposes one line from
// the session's own prompts. It has its own permission (the first press shows the disclosure and
// Allow and summarise; Turn off goal summaries revokes it), apart from reading permission both
// ways, and it spends the same twelve model requests a day as the readings. A summary is a
// proposal: "use it as the goal" puts it in the goal field, and only save makes it your words.
// Everything comes from the published board (board.observer.summaries and the session's record),
// so a reload or another tab shows the same summary or the same call under way.
import { h } from "preact";
import { useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { postJSON } from "/static/api.js";
import { ago } from "/static/format.js";
import { fillGoalProposal } from "/static/intent.js";
import { since } from "/static/views.js";

const html = htm.bind(h);

function SummaryDisclosure({ d, open }) {
  if (!d) return null;
  return html`<details class="drift-disclosure summary-disclosure" open=${open}>
    <summary>What a goal summary sends, and to whom</summary>
    <p>${d.reads}</p>
    <p>Sent to ${d.destination}: at most ${d.limit_bytes.toLocaleString()} redacted bytes on standard input, one call per session, ${d.timeout_s}-second limit. ${d.budget}</p>
    <p class="mono small">${d.command}</p>
  </details>`;
}

function answerText(r) {
  const b = r.body || {};
  if (r.status === 0) return "The request did not reach the dashboard; its result could not be confirmed.";
  if (r.status === 429) return `The cap of model requests per rolling 24 hours is reached; try again ${b.retry_at ? "after " + new Date(b.retry_at).toLocaleString() : "later"}.`;
  if (r.status === 409 && b.reason === "provider-changed") return `Summaries are now made by the ${b.route && b.route.label ? b.route.label : "another CLI"}: nothing was saved or spent. Read its disclosure and press again.`;
  if (r.status === 409) return "A model call for this session (a reading or a goal summary) is already in flight.";
  if (r.status === 200 && b.produced === false) return b.error || "There is nothing to summarise.";
  return b.error || `The dashboard answered ${r.status}; its result could not be confirmed.`;
}

function Flight({ flight, harness, sid }) {
  const [busy, setBusy] = useState(false);
  const cancel = async () => {
    setBusy(true);
    await postJSON("/api/summary/cancel", { harness, sid });
    setBusy(false);
  };
  return html`<div class="analyzing summarising" role="status" aria-live="polite" data-step=${flight.step}>
    <b>Summarising the goal</b> <span class="muted small">attempt ${flight.attempt}</span>
    <ol class="steps">${flight.steps.map(
      (text, i) => html`<li class=${i < flight.step ? "done" : i === flight.step ? "current" : "todo"} aria-current=${i === flight.step ? "step" : null}>
        <span aria-hidden="true">${i < flight.step ? "✓" : i === flight.step ? "▶" : "·"}</span> ${text}</li>`,
    )}</ol>
    <button type="button" class="btn small" onClick=${cancel} disabled=${busy}>Cancel</button>
  </div>`;
}

function Ask({ share, route, harness, sid }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(null);
  const send = async (extra) => {
    setBusy(true);
    setMessage(null);
    const r = await postJSON("/api/summary", { harness, sid, provider: route.provider, press: true, observer_model: 1, ...extra });
    setBusy(false);
    if (r.status === 202) {
      setAsking(false);
      return;
    }
    if (r.status === 403) {
      setAsking(true);
      return;
    }
    setMessage(answerText(r));
  };
  const off = async () => {
    setBusy(true);
    const r = await postJSON("/api/summary", { consent: "off", press: true, observer_model: 1 });
    setBusy(false);
    setMessage(r.ok ? "Goal summaries are off: the next one asks again." : answerText(r));
  };
  return html`<div class="summary-control">
    ${asking
      ? html`<div class="summary-consent" role="group" aria-label="Allow goal summaries">
          <${SummaryDisclosure} d=${share.disclosure} open=${true} />
          <p class="muted small">This permission is for goal summaries only: it allows no drift reading, and reading permission does not allow a summary.</p>
          <button type="button" class="btn" disabled=${busy} onClick=${() => send({ allow: true })}>Allow and summarise</button>
          <button type="button" class="btn" onClick=${() => setAsking(false)}>Not now</button>
        </div>`
      : html`<button type="button" class="btn small" disabled=${busy} onClick=${() => (share.allowed ? send({}) : setAsking(true))}>Propose a goal summary</button>
          <span class="muted small"> by the ${route.label}</span>
          ${share.allowed ? html` <button type="button" class="btn small" disabled=${busy} onClick=${off}>Turn off goal summaries</button>` : null}
          <${SummaryDisclosure} d=${share.disclosure} open=${false} />`}
    ${message ? html`<p class="summary-message" role="alert">${message}</p>` : null}
  </div>`;
}

function LastAttempt({ rec, ctx }) {
  const last = (rec.summary_attempts || [])[(rec.summary_attempts || []).length - 1];
  if (!last || last.ending === "stored") return null;
  return html`<p class="summary-attempt small" data-ending=${last.ending}>The last goal summary attempt (${last.attempt}) ${last.ending === "failed" ? "failed" : `was ${last.ending}`} ${ago(since(ctx, last.ended_at))}: ${last.detail || "its result could not be confirmed"}. ${last.spent ? "It counts against the budget." : "It spent nothing."}</p>`;
}

function GoalSummary({ board, ctx, session, harness, sid, propose }) {
  const o = board.observer;
  const share = o && o.summaries;
  if (!share) return null;
  const rec = (o.sessions || {})[`${harness}/${sid}`] || {};
  const summary = rec.summary;
  const route = (share.routes || {})[harness];
  let control;
  if (!share.offered && summary && summary.demo && share.reason_key === "summaries-off") {
    // The demo shows a proposal though no model is offered: say what it is, not that it is off.
    control = html`<p class="muted small summary-reason">The summary above is the demo's stand-in, made from the session's own prompt. A real one is offered only when Cargento is started with --observer-model.</p>`;
  } else if (!share.offered) control = html`<p class="muted small summary-reason">${share.reason_key === "summaries-off" ? share.reason : `Goal summaries: ${share.reason}`}</p>`;
  else if (!session) control = html`<p class="muted small summary-reason">Goal summaries: this session is not on the board now, so it cannot be summarised.</p>`;
  else if (!route || !route.provider) control = html`<p class="summary-reason small">Goal summaries: ${route ? route.reason : "no provider is named for this harness."}</p>`;
  else if (rec.summary_flight) control = html`<${Flight} flight=${rec.summary_flight} harness=${harness} sid=${sid} />`;
  else control = html`<${Ask} share=${share} route=${route} harness=${harness} sid=${sid} />`;
  return html`<div class="goal-summary" data-summary=${summary ? "on-record" : "none"}>
    ${summary
      ? html`<p class="summary-proposal small"><span class="src-label">goal summary</span> <q class="summary-text">${summary.text}</q>
          <span class="muted"> · proposed by the ${summary.label || summary.provider} ${summary.at ? ago(since(ctx, summary.at)) : "at a time unknown"} from your prompts; a proposal, not your words${summary.demo ? " (a demo summary: nothing was sent)" : ""}</span>
          <button type="button" class="btn small adopt-summary" onClick=${() => propose(summary.text)}>use the summary as the goal</button></p>`
      : null}
    ${control}
    <${LastAttempt} rec=${rec} ctx=${ctx} />
  </div>`;
}

fillGoalProposal(GoalSummary);
