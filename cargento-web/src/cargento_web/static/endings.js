// How sessions landed (issue 17): CLOSE THE LOOP and COMING NEXT in Attention, At risk's
// uncommitted work and conflicting completion evidence, the row marks (dirty / changed) and the
// session page's "How it landed". Reads /api/data's `endings` (the server's git probe at each
// observed stop or end). Everything here is advisory: nothing is sent to a harness.
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";
import { ago, plural, projectHash, sessionHash, sessionLabels } from "/static/format.js";
import { feature } from "/static/config.js";
import { claim, claimsFrom, fill } from "/static/slots.js";

const html = htm.bind(h);

function readings(board) {
  return (board && board.endings && board.endings.readings) || {};
}

export function readingOf(board, s) {
  return readings(board)[s.key] || null;
}

// The six readings' words: stop or end, each with uncommitted work, clean or unmeasured git.
export function outcomeWords(r) {
  const what = r.kind === "end" ? "Ended" : "Stopped";
  if (r.probing) return `${what}; reading git…`;
  if (r.dirty === true) return `${what} with uncommitted work (${plural(r.changed, "changed file", "changed files")})`;
  if (r.dirty === false) return `${what}, clean git state`;
  return `${what}, git state unmeasured`;
}

function unmeasuredWhy(board, r) {
  if (r.dirty != null || r.probing) return null;
  const e = board.endings || {};
  if (!e.git) return e.git_off_reason || "git is off this run";
  return r.git_detail || "no git reading";
}

const GLYPH = { stop: "‖", end: "■" };
const GIT_GLYPH = (r) => (r.probing ? "…" : r.dirty === true ? "±" : r.dirty === false ? "✓" : "?");

export function Outcome({ board, r }) {
  const why = unmeasuredWhy(board, r);
  return html`<span class="outcome" data-outcome=${r.outcome}>
    <span class="outcome-glyph" aria-hidden="true">${GLYPH[r.kind] || "·"}${GIT_GLYPH(r)}</span>
    ${outcomeWords(r)}${why ? html` <span class="muted">(${why})</span>` : null}</span>`;
}

// At risk: an end that left uncommitted work (nobody is left to commit it), and conflicting
// completion evidence. Every other reading is CLOSE THE LOOP's.
function atRisk(r) {
  return (r.kind === "end" && r.dirty === true) || Boolean(r.conflict);
}

claim((board) => {
  const out = [];
  for (const s of board.sessions) {
    const r = readingOf(board, s);
    if (!r) continue;
    out.push({ key: s.key, category: atRisk(r) ? "at_risk" : "close_the_loop", reason: r.conflict || outcomeWords(r) });
  }
  return out;
});

// Waiting on the reader, then risk (core's and the claims), take precedence over CLOSE THE LOOP.
function closing(board) {
  const claims = claimsFrom(board);
  return board.sessions.filter((s) => {
    const c = claims.get(s.key);
    return c && c.category === "close_the_loop" && s.state !== "needs_input" && !s.loop && !(s.turn && s.turn.long);
  });
}


function CloseTheLoop({ board, ctx }) {
  const conf = feature("endings");
  if (!conf) return null;
  const label = sessionLabels(board.sessions);
  const list = closing(board).sort((a, b) => Date.parse(readingOf(board, b).at) - Date.parse(readingOf(board, a).at));
  return html`<section class="close-loop" aria-labelledby="close-loop-h">
    <h3 class="group-h" id="close-loop-h">CLOSE THE LOOP <span class="count">${list.length}</span></h3>
    ${list.length
      ? html`<ul class="endings">${list.map((s) => {
          const r = readingOf(board, s);
          return html`<li class="ending" key=${s.key} data-session=${s.key} data-outcome=${r.outcome}>
            <${Outcome} board=${board} r=${r} /> · <a href=${sessionHash(s)}>${label(s)}</a>
            <span class="muted"> · ${s.project || "no project label"} · ${ago((ctx.boardNow - Date.parse(r.at)) / 1000)}</span></li>`;
        })}</ul>`
      : html`<p class="empty">No observed stop or end outside waiting and risk${conf.git ? "" : "; git is off this run"}.</p>`}
    <p class="muted small caveat">${conf.caveat}${conf.git ? "" : ` ${conf.git_off_reason}.`}</p>
  </section>`;
}

// -- COMING NEXT: the strongest available next action per project ----------------------------

// Each candidate: [rank (lower is stronger), text]; null when the session offers no action.
export function nextAction(board, s, claims, label = sessionLabels(board.sessions)) {
  const c = claims.get(s.key);
  if (c && c.category === "handled") return null;
  const r = readingOf(board, s);
  const t = label(s);
  if (s.state === "needs_input") return [0, `Answer “${t}” in its terminal: it waits on you${s.waiting ? ` (${s.waiting.kind})` : ""}`];
  if (s.loop) return [1, `Look at “${t}”: ${s.loop.note}`];
  if (r && r.kind === "end" && r.dirty === true) return [2, `Commit or set aside the ${plural(r.changed, "uncommitted file", "uncommitted files")} “${t}” left when it ended`];
  if (r && r.conflict) return [3, `Check the completion “${t}” claims: ${r.conflict}`];
  if (s.turn && s.turn.long) return [4, `Check on “${t}”: its turn has run 15 minutes or more`];
  if (r && r.dirty === true) return [5, `Review the result of “${t}” and its ${plural(r.changed, "uncommitted file", "uncommitted files")}`];
  if (r && r.dirty === false) return [6, `Read the result of “${t}” (clean git state)`];
  if (r) return [7, `Read the result of “${t}” and check its working tree yourself (git state unmeasured)`];
  return null;
}

function ComingNext({ board }) {
  if (!feature("endings")) return null;
  const claims = claimsFrom(board);
  const label = sessionLabels(board.sessions);
  const best = new Map();
  for (const s of board.sessions) {
    const a = nextAction(board, s, claims, label);
    if (!a) continue;
    const p = s.project || "";
    const held = best.get(p);
    if (!held || a[0] < held.rank) best.set(p, { rank: a[0], text: a[1], session: s });
  }
  const projects = new Set(board.sessions.map((s) => s.project || ""));
  const items = [...best.entries()].sort((a, b) => a[1].rank - b[1].rank || a[0].localeCompare(b[0]));
  const without = projects.size - items.length;
  return html`<section class="coming-next" aria-labelledby="coming-next-h">
    <h3 class="group-h" id="coming-next-h">COMING NEXT <span class="count">${items.length}</span></h3>
    ${items.length
      ? html`<ul class="next-actions">${items.map(([p, a]) => html`<li key=${p} data-project=${p} data-rank=${a.rank}>
          ${p ? html`<a href=${projectHash(p)}><b>${p}</b></a>` : html`<b>no project label</b>`}: <a href=${sessionHash(a.session)}>${a.text}</a></li>`)}</ul>`
      : html`<p class="empty">No project has a next action on record.</p>`}
    ${without > 0 ? html`<p class="muted small">${plural(without, "project has", "projects have")} only working or quiet sessions and no action on record.</p>` : null}
    <p class="muted small">Advisory: each line is read from observed records, and nothing is sent to a harness.</p>
  </section>`;
}

fill("attention.groups", ({ board, ctx }) => html`<${CloseTheLoop} board=${board} ctx=${ctx} /><${ComingNext} board=${board} />`);

// -- the row marks: dirty / changed, and conflicting evidence ---------------------------------

fill("row.marks", ({ session, ctx }) => {
  const r = ctx && ctx.board ? readingOf(ctx.board, session) : null;
  if (!r) return null;
  const chips = [];
  if (r.dirty === true) chips.push(html`<span class="risk-chip ending-chip" data-mark="dirty" title=${outcomeWords(r)}>uncommitted · ${r.changed}</span>`);
  if (r.dirty === false) chips.push(html`<span class="ending-chip clean-chip" data-mark="clean" title=${outcomeWords(r)}>clean</span>`);
  if (r.conflict) chips.push(html`<span class="risk-chip ending-chip" data-mark="conflict" title=${r.conflict}>conflict</span>`);
  return chips.length ? chips : null;
}, (board, s) => (board ? readingOf(board, s) : null));

// -- the session page: how it landed ----------------------------------------------------------

fill("session.sections", ({ board, session }) => {
  const conf = feature("endings");
  if (!conf || !session) return null;
  const r = readingOf(board, session);
  return html`<section class="landed" aria-labelledby="landed-h">
    <h3 id="landed-h">How it landed</h3>
    ${r
      ? html`<p><${Outcome} board=${board} r=${r} /> at ${new Date(r.at).toLocaleTimeString()}</p>
          ${r.conflict ? html`<p class="risk-line">Conflicting completion evidence: ${r.conflict}.</p>` : null}
          ${r.dirty != null ? html`<dl class="facts"><dt>Dirty</dt><dd>${r.dirty ? "yes" : "no"}</dd><dt>Changed files</dt><dd>${r.changed}</dd></dl>` : null}`
      : html`<p class="muted">No stop or end observed since work last resumed${session.state === "idle" ? "" : ": the session is not idle"}.</p>`}
    <p class="muted small">${conf.caveat}</p>
  </section>`;
});
