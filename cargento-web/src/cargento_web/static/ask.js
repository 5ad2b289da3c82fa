// The ask lane on the page: a question a session registered through ask_operator, with its
// options as buttons, in Attention's NEEDS YOU NOW, on the asking session's page, and as a
// mark on its row. Choosing an option sends its index (never text) to
// POST /api/ask/{id}/answer; the waiting agent gets that option back. Every button looks the
// same: no option is emphasised or preselected. Texts are rendered as text, never markup.
// Under --no-ask the server says the lane is off (config.features.ask.on) and nothing here
// offers a control.
import { h } from "preact";
import { useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { postJSON } from "/static/api.js";
import { feature } from "/static/config.js";
import { duration, sessionHash, sessionLabels } from "/static/format.js";
import { announce, claim, fill } from "/static/slots.js";

const html = htm.bind(h);

function laneOn() {
  const config = feature("ask");
  return Boolean(config && config.on);
}

// The open questions of the board document, without those whose time is up by the board's clock.
export function openQuestions(board, ctx) {
  const now = ctx && ctx.boardNow ? ctx.boardNow : Date.now();
  return (board.questions || []).filter((q) => !q.expires_at || Date.parse(q.expires_at) > now);
}

// The open questions the sessions of *scope* (board rows) ask: what a project's COMMAND lists
// beside its rows that need input. None while the lane is off.
export function questionsFrom(board, ctx, scope) {
  if (!laneOn()) return [];
  const asking = new Set(scope.map((s) => `${s.harness}\u0000${s.session_id}`));
  return openQuestions(board, ctx).filter((q) => asking.has(`${q.harness}\u0000${q.session_id}`));
}

function questionsOf(board, ctx, harness, sid) {
  return openQuestions(board, ctx).filter((q) => q.harness === harness && q.session_id === sid);
}

function Asker({ question, board }) {
  if (!question.harness || !question.session_id) {
    return html`<span class="muted">an unattributed session (its harness did not name it)</span>`;
  }
  const s = (board.sessions || []).find((x) => x.harness === question.harness && x.session_id === question.session_id);
  if (!s) return html`<span class="muted">${question.harness} · ${question.session_id.slice(0, 8)} (not on this board)</span>`;
  return html`<a href=${sessionHash(s)}>${sessionLabels(board.sessions)(s)}</a>`;
}

export function QuestionCard({ question, board, ctx, showAsker = true }) {
  const [state, setState] = useState({ sending: null, error: null, sent: null });
  const q = question;
  const left = q.expires_at && ctx && ctx.boardNow ? (Date.parse(q.expires_at) - ctx.boardNow) / 1000 : null;
  async function choose(index) {
    setState({ sending: index, error: null, sent: null });
    const r = await postJSON(`/api/ask/${encodeURIComponent(q.id)}/answer`, { index });
    if (r.ok) setState({ sending: null, error: null, sent: index });
    else setState({ sending: null, sent: null, error: (r.body && r.body.error) || `the answer was refused (HTTP ${r.status})` });
  }
  const busy = state.sending !== null || state.sent !== null;
  return html`<div class="ask-question" data-question=${q.id}>
    <p class="ask-text">${q.text}</p>
    <p class="ask-meta muted">
      ${showAsker ? html`<span>asked by <${Asker} question=${q} board=${board} /></span>` : null}
      ${left !== null && left > 0 ? html`<span>${showAsker ? " · " : ""}expires in ${duration(left)}</span>` : null}
    </p>
    <div class="ask-options" role="group" aria-label="Answer options">
      ${q.options.map(
        (o, i) => html`<button type="button" class="ask-option" data-index=${i} disabled=${busy}
          onClick=${() => choose(i)}>${o}</button>`,
      )}
    </div>
    ${state.sent !== null ? html`<p class="ask-sent" role="status">Sent: ${q.options[state.sent]}</p>` : null}
    ${state.error ? html`<p class="ask-error" role="alert">${state.error}</p>` : null}
  </div>`;
}

function NeedsQuestions({ board, ctx }) {
  if (!laneOn()) return null;
  const questions = openQuestions(board, ctx);
  if (!questions.length) return null;
  return html`<section class="ask-lane" aria-label="Questions asked through ask_operator">
    <h4 class="ask-h">ASKED THROUGH ask_operator <span class="count">${questions.length}</span></h4>
    ${questions.map((q) => html`<${QuestionCard} key=${q.id} question=${q} board=${board} ctx=${ctx} />`)}
  </section>`;
}

function SessionQuestions({ board, ctx, session, route }) {
  if (!laneOn()) return null;
  const harness = session ? session.harness : route && route.harness;
  const sid = session ? session.session_id : route && route.sid;
  if (!harness || !sid) return null;
  const questions = questionsOf(board, ctx, harness, sid);
  if (!questions.length) return null;
  return html`<section class="ask-lane session-asks" aria-label="This session's questions">
    <h3 class="group-h">THIS SESSION ASKS YOU</h3>
    ${questions.map(
      (q) => html`<${QuestionCard} key=${q.id} question=${q} board=${board} ctx=${ctx} showAsker=${false} />`,
    )}
  </section>`;
}

function RowMark({ session, ctx }) {
  if (!laneOn() || !ctx || !ctx.board) return null;
  const questions = questionsOf(ctx.board, ctx, session.harness, session.session_id);
  if (!questions.length) return null;
  return html` <span class="ask-chip" title=${questions.map((q) => q.text).join("\n")}>asks you</span>`;
}

// A project's heading (the Projects view's group, the project page) counts its sessions' open
// questions beside the rows that need input: both wait on you.
function ProjectQuestionCount({ board, ctx, sessions }) {
  const n = questionsFrom(board, ctx, sessions).length;
  return n ? html`<span class="ask-count"> · ${n} ${n === 1 ? "question" : "questions"} for you</span>` : null;
}

// Each open question with the board row of the session asking it (null: unattributed, or not
// on the board). None while the lane is off.
function askersOf(board) {
  if (!laneOn()) return [];
  const byIdentity = new Map((board.sessions || []).map((s) => [`${s.harness}\u0000${s.session_id}`, s]));
  return openQuestions(board, null).map((q) => ({
    q,
    s: (q.harness && q.session_id && byIdentity.get(`${q.harness}\u0000${q.session_id}`)) || null,
  }));
}

// A session with an open question waits on you as a native gate does: Attention's brief, its
// NEEDS YOU NOW count and the header count it (a question whose asker is not on the board
// counts by itself).
claim((board) => askersOf(board).map(({ q, s }) => ({ key: s ? s.key : `ask:${q.id}`, category: "needs_you", reason: q.text })));

// A new question is announced: a browser notification where the desktop cannot be reached.
announce((board) => askersOf(board).map(({ q, s }) => ({
  id: `ask:${q.id}`,
  key: s ? s.key : null,
  title: `${s ? `${s.harness_label}: ${s.title || s.display_id}` : "A session"} asks you a question`,
  body: q.text,
})));

fill("attention.needs", NeedsQuestions);
fill("projects.summary", ProjectQuestionCount);
fill("session.waiting", SessionQuestions);
fill("row.marks", RowMark, (board, s, ctx) =>
  laneOn() && board ? questionsOf(board, ctx, s.harness, s.session_id).map((q) => q.text) : null);
