// Workflow stage conditions: typed controls (in the cockpit's Course tab and in Projects) that
// save one declared stage per exact workflow through POST /api/tripwire. A rule writes into no
// agent; its trip raises a notification like any other raise.
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { postJSON } from "/static/api.js";

const html = htm.bind(h);

export function tripwiresOf(board) {
  return board && board.cockpit ? board.cockpit.tripwires : null;
}

// What became of a trip's raise (the session's Notifications keep the delivery's outcome).
const RAISE_WORDS = {
  raised: "raised; the first officer's session page records whether the service accepted it",
  "no-backend": "not sent: this machine has no notification backend (recorded)",
  cooldown: "not raised: that session was notified moments ago",
  held: "held back behind another raise, then retried",
  off: "not raised: notifications are off for this run",
  "no notification lane": "not raised: this dashboard runs without its notification lane",
};

let drafts = 0;
function newId() {
  drafts += 1;
  const rnd = typeof crypto !== "undefined" && crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${drafts}`;
  return `tw-${rnd}`;
}

async function send(body, setStatus) {
  setStatus({ busy: true, text: "saving…" });
  const r = await postJSON("/api/tripwire", body);
  if (r.ok) setStatus({ busy: false, text: body.action === "remove" ? "removed" : body.action === "rearm" ? "rearmed" : "saved" });
  else if (r.status === 409 && r.body && r.body.reason === "stale") setStatus({ busy: false, text: "another change landed first; the card now shows it, try again", fault: true });
  else if (r.status === 503) setStatus({ busy: false, text: (r.body && r.body.error) || "the store could not be written", fault: true });
  else setStatus({ busy: false, text: (r.body && r.body.error) || `refused (HTTP ${r.status || "no answer"})`, fault: true });
  return r.ok;
}

function RuleCard({ rule, tw, workflow }) {
  const [status, setStatus] = useState(null);
  const act = (action) => send({ action, id: rule.id, stage: rule.stage, expected_revision: tw.revision }, setStatus);
  return html`<li class=${"tw-rule tw-" + rule.state} data-rule=${rule.id} data-state=${rule.state} data-workflow=${rule.workflow}>
    <div><b>${workflow ? workflow.name : rule.workflow.split(/[\\/]/).pop()}</b> → <span class="tw-stage">${rule.stage}</span>
      <span class=${"badge tw-state"} data-state=${rule.state}>${rule.state === "tripped" ? "tripped" : rule.state === "suspended" ? "suspended" : "armed"}</span></div>
    ${rule.tripped
      ? html`<div class="tw-trip">${rule.tripped.entity} entered ${rule.stage} · ${new Date(rule.tripped.at).toLocaleString()} · notification: ${RAISE_WORDS[rule.tripped.raise] || rule.tripped.raise}</div>`
      : null}
    <div class="muted small">Coverage: ${rule.coverage}${rule.sources.length ? ` · source ${rule.sources.join(", ")}` : " · no source session remains"}${rule.unavailable.length ? ` · unavailable: ${rule.unavailable.join("; ")}` : ""}</div>
    <div class="tw-actions">
      ${rule.tripped ? html`<button type="button" class="btn small" disabled=${status && status.busy} onClick=${() => act("rearm")}>Rearm</button>` : null}
      <button type="button" class="btn small" disabled=${status && status.busy} onClick=${() => act("remove")}>Remove</button>
      <span class=${"tw-status small" + (status && status.fault ? " fault" : "")} role="status" aria-live="polite">${status ? status.text : ""}</span>
    </div>
  </li>`;
}

// The typed draft: pick one declared stage of one exact workflow and save it. Escape cancels.
function Draft({ workflow, tw, existing }) {
  const [open, setOpen] = useState(false);
  const [stage, setStage] = useState(existing ? existing.stage : workflow.stages[0]);
  const [status, setStatus] = useState(null);
  const field = useRef(null);
  useEffect(() => {
    if (open && field.current) field.current.focus(); // the draft takes focus, so Escape cancels it
  }, [open]);
  if (!open) {
    return html`<button type="button" class="btn small tw-new" data-workflow=${workflow.id} onClick=${() => setOpen(true)}>${existing ? "Change the stage condition" : "Add a stage condition"}</button>
      ${status ? html`<span class=${"tw-status small" + (status.fault ? " fault" : "")} role="status">${status.text}</span>` : null}`;
  }
  const save = async (ev) => {
    ev.preventDefault();
    const ok = await send({ action: "save", id: existing ? existing.id : newId(), workflow: workflow.id, stage, expected_revision: tw.revision }, setStatus);
    if (ok) setOpen(false);
  };
  return html`<form class="tw-draft" data-workflow=${workflow.id} onSubmit=${save} onKeyDown=${(ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      ev.stopPropagation();
      setOpen(false);
      setStatus({ text: "draft cancelled" });
    }
  }}>
    <label>Alert when the first current entity of <b>${workflow.name}</b> enters
      <select ref=${field} value=${stage} onChange=${(ev) => setStage(ev.currentTarget.value)} aria-label="Declared stage">
        ${workflow.stages.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
    <button type="submit" class="btn small" disabled=${status && status.busy}>Save</button>
    <button type="button" class="btn small" onClick=${() => setOpen(false)}>Cancel</button>
    <span class=${"tw-status small" + (status && status.fault ? " fault" : "")} role="status" aria-live="polite">${status ? status.text : ""}</span>
    <p class="muted small">First sight, a restart and an evidence gap set a baseline, not an entry. Saving the unchanged stage keeps its latch. No rule writes into an agent.</p>
  </form>`;
}

// The conditions of some workflows: each readable workflow offers a typed draft; each saved rule
// of them is a card. `orphans` adds the rules whose workflow no source session reads any more
// (Projects keeps their Remove).
export function Tripwires({ board, workflows, orphans = false, project = null }) {
  const tw = tripwiresOf(board);
  if (!tw) return html`<p class="muted tw-none">Workflow stage conditions: the server has not published them yet…</p>`;
  if (!tw.enabled) return html`<p class="muted tw-off">Workflow stage conditions are off: ${tw.reason}.</p>`;
  const ids = new Set(workflows.map((w) => w.id));
  const rules = tw.rules.filter((r) => ids.has(r.workflow) || (orphans && !r.sources.length && (project == null || (r.project || "") === project)));
  const readable = workflows.filter((w) => w.stages);
  return html`<div class="tripwires" data-revision=${tw.revision}>
    ${tw.suspended ? html`<p class="muted">Saved conditions are suspended: this run reads no Spacedock workflow (--no-spacedock).</p>` : null}
    ${rules.length
      ? html`<ul class="tw-rules">${rules.map((r) => html`<${RuleCard} key=${r.id} rule=${r} tw=${tw} workflow=${workflows.find((w) => w.id === r.workflow)} />`)}</ul>`
      : html`<p class="muted">No stage condition is saved for ${workflows.length ? "these workflows" : "this scope"}.</p>`}
    ${readable.map((w) => html`<div class="tw-offer" key=${w.id}><${Draft} workflow=${w} tw=${tw} existing=${tw.rules.find((r) => r.workflow === w.id)} /></div>`)}
    ${!readable.length && !tw.suspended ? html`<p class="muted small">No workflow with a readable stage list is in scope, so no condition can be declared here.</p>` : null}
    <p class="muted small">${tw.rules.length} of ${tw.max_rules} conditions saved; none is ever evicted.</p>
  </div>`;
}
