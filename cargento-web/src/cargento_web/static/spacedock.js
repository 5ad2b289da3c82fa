// Spacedock stage strips: a first officer's workflows as the server read them (cockpit.spacedock
// in /api/data), on its row and in the cockpit. Absent rather than guessed: a workflow whose
// stage list could not be read draws no strip and says why.
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";
import { fill } from "/static/slots.js";

const html = htm.bind(h);

export function spacedockOf(board) {
  return board && board.cockpit ? board.cockpit.spacedock : null;
}

// The workflows a first officer's row reads (by its row key).
export function workflowsOf(board, key) {
  const sd = spacedockOf(board);
  return sd && sd.enabled ? sd.workflows.filter((w) => w.first_officer === key) : [];
}

// The workflows of a project, or of one session of it when a session is selected.
export function workflowsIn(board, project, key) {
  const sd = spacedockOf(board);
  if (!sd || !sd.enabled) return [];
  return sd.workflows.filter((w) => (key ? w.first_officer === key || w.entities.some((e) => e.held_by && e.held_by.startsWith(key)) : (w.project || "") === project));
}

function byStage(w) {
  const at = new Map(w.stages.map((s) => [s, []]));
  const elsewhere = [];
  for (const e of w.entities) {
    if (e.status != null && at.has(e.status)) at.get(e.status).push(e);
    else elsewhere.push(e);
  }
  return { at, elsewhere };
}

// The compact strip on a row: each declared stage with its entity count.
export function CompactStrip({ workflow }) {
  const w = workflow;
  if (!w.stages) return null;
  const { at } = byStage(w);
  const held = w.entities.filter((e) => e.held_by).length;
  return html`<span class="sd-strip compact" data-workflow=${w.id} title=${`Spacedock workflow ${w.name}: ${w.stages.map((s) => `${s} ${at.get(s).length}`).join(", ")}`}>
    <span class="sr-only">Workflow ${w.name} stages: </span>
    ${w.stages.map((s) => html`<span class=${"sd-seg" + (at.get(s).length ? " has" : "")} data-stage=${s} title=${`${s}: ${at.get(s).length}`}><span class="sr-only">${`${s} ${at.get(s).length};`}</span></span>`)}
    ${held ? html`<span class="sd-held" data-held=${held} title=${`${held} held by a worker`} aria-hidden="true">●</span>` : null}
  </span>`;
}

// The full strip: entities under each stage, the one a worker holds in bold.
export function StageStrip({ workflow }) {
  const w = workflow;
  if (!w.stages) {
    return html`<div class="sd-workflow sd-absent" data-workflow=${w.id}>
      <b>${w.name}</b> <span class="muted small">${w.dir}</span>
      <p class="muted">No stage strip: ${w.unavailable.join("; ") || "the workflow definition cannot support one"}. A missing strip is not a claim that no workflow exists.</p>
    </div>`;
  }
  const { at, elsewhere } = byStage(w);
  return html`<div class="sd-workflow" data-workflow=${w.id}>
    <div><b>${w.name}</b> <span class="muted small">${w.dir}</span></div>
    <ol class="sd-stages" aria-label=${`Stages of ${w.name}`}>
      ${w.stages.map((s) => html`<li class="sd-stage" data-stage=${s}>
        <span class="sd-name">${s}</span> <span class="count">${at.get(s).length}</span>
        <ul class="sd-entities">${at.get(s).map((e) => html`<li data-entity=${e.slug} data-source=${e.source} class=${e.held_by ? "held" : ""}
          title=${e.held_by ? `held by ${e.held_by}` : e.source}>${e.held_by ? html`<b>${e.title || e.slug}</b><span class="sr-only"> (held by a worker)</span>` : e.title || e.slug}${e.source === "boot snapshot" ? html` <span class="muted small">(boot snapshot)</span>` : null}</li>`)}</ul>
      </li>`)}
    </ol>
    ${elsewhere.length
      ? html`<p class="muted small">Not at a declared stage: ${elsewhere.map((e) => `${e.slug} (${e.status == null ? "no status" : `status “${e.status}”`})`).join(", ")}</p>`
      : null}
    ${w.unavailable.length ? html`<p class="muted small">Not read: ${w.unavailable.join("; ")}</p>` : null}
  </div>`;
}

function RowStrip({ session, board }) {
  if (!board || session.role !== "spacedock:first-officer") return null;
  const ws = workflowsOf(board, session.key).filter((w) => w.stages);
  if (!ws.length) return null;
  return html`${ws.map((w) => html`<${CompactStrip} workflow=${w} key=${w.id} />`)}`;
}

function RowMore({ session, board }) {
  if (!board) return null;
  const ws = workflowsOf(board, session.key);
  if (!ws.length) return null;
  return html`<div class="sd-more">${ws.map((w) => html`<${StageStrip} workflow=${w} key=${w.id} />`)}</div>`;
}

// Row slots receive {session, ctx}; the board travels on ctx (see cockpit.js's ctx.board).
fill("row.marks", ({ session, ctx }) => html`<${RowStrip} session=${session} board=${ctx && ctx.board} />`,
  (board, s) => (board && s.role === "spacedock:first-officer" ? workflowsOf(board, s.key) : null));
fill("row.more", ({ session, ctx }) => html`<${RowMore} session=${session} board=${ctx && ctx.board} />`,
  (board, s) => (board ? workflowsOf(board, s.key) : null));
