// What you asked each session to achieve: the session page's Intent section, your goal beside
// NOW, the one sentence above the rows, your words in a project's stated goals, and the Intent
// log (#n=intent). The words come from /api/data's `annotations` key (sessions on the board)
// and from /api/annotations (every retained entry, read when the log or an off-board session
// page opens). Saving goes through POST /api/annotate.
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { getJSON, postJSON } from "/static/api.js";
import { feature } from "/static/config.js";
import { ago, clock, plural, sessionHash, sessionLabels } from "/static/format.js";
import { harnessMeta } from "/static/marks.js";
import { fill, view } from "/static/slots.js";
import { ViewHeading, since } from "/static/views.js";

const html = htm.bind(h);
const CONF = feature("annotations");
const MAX_CHARS = (CONF && CONF.max_chars) || 240;
const MAX_LINES = (CONF && CONF.max_lines) || 6;
//: Harness evidence is cut to this many characters in the log and beside NOW.
const EVIDENCE_CHARS = 240;

export const WHAT_TYPING_BUYS =
  "What you type here is what a drift check reads this session against: a check happens only when you ask for one, and Cargento never writes into the session.";

// The share of /api/data the header slot saw last (rows and projects are drawn after it).
let share = null;
// The session whose goal field takes the cursor when its page opens (from a row's goal slot).
let focusGoalOf = null;
// Components other features render inside the Intent and drift panel, after the Intent section.
const panelParts = [];
// Components other features render in an Intent log row, after its sources ({row, ctx}).
const logParts = [];

// Components that propose a goal beside the goal field (the observer's goal summary): each is
// handed {board, ctx, session, harness, sid, propose}; propose(text) puts text in the goal field
// as a draft, saved only when you press save (and then it is your typed goal).
const proposalParts = [];

export function fillGoalProposal(Component) {
  proposalParts.push(Component);
}

// Render Component({row, ctx}) in each Intent log row (the drift feature's raises, a line each).
export function fillLogRow(Component) {
  logParts.push(Component);
}

// Render Component({board, ctx, route, session, annotation}) in the Intent and drift panel,
// below the two fields (the drift feature's Drift section).
export function fillPanel(Component) {
  panelParts.push(Component);
}

function keyOf(harness, sid) {
  return `${harness}:${sid}`;
}

function on() {
  return Boolean(CONF && CONF.on);
}

// The page's live region: what a reader who is not looking at the screen is told.
function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

// The session's recorded latest prompt where its harness declares it your own words
// (prompt_as_goal), else null.
function promptOf(s) {
  if (!s || !harnessMeta(s.harness, s.harness_label).promptAsGoal) return null;
  return s.instruction && s.instruction.source !== "agent" ? s.instruction : null;
}

function bounded(text) {
  const clean = (text || "").split(/\s+/).filter(Boolean).join(" ");
  return clean.length <= EVIDENCE_CHARS ? clean : clean.slice(0, EVIDENCE_CHARS - 1) + "…";
}

function untrustedSentence(detail) {
  return `The annotation store could not be read whole (${detail || "unreadable"}), so nothing is saved over it and what you typed before cannot be shown until the file is moved or repaired.`;
}

// The sentence the page draws for each outcome of a save.
export function outcomeSentence(reply) {
  const b = reply.body || {};
  const why = b.reason ? `: ${b.reason}` : "";
  switch (b.outcome) {
    case "stored":
      return b.annotation && b.annotation.kind === "discard"
        ? "Discarded: your words and every reading of them are gone; a record that you discarded them, holding no text, stays."
        : `Saved as revision ${b.annotation ? b.annotation.revision : "?"}; earlier revisions are kept unchanged.`;
    case "unchanged":
      return b.persisted
        ? "Those are the stored words already, so no new revision was made."
        : "Those are the words already held, but they are held for this run only: the last write failed.";
    case "refused":
      return `Not saved${why}.`;
    case "unwritable":
      return b.annotation ? `Not written to disk${why}.` : `Not saved${why}.`;
    case "untrusted":
      return `Not saved: the annotation store could not be read whole, so nothing was written over it${why}.`;
    case "unreadable":
      return `Not saved: a newer Cargento saved this session's words, and they are kept as they were${why}.`;
    default:
      return reply.status === 0
        ? `Not saved: the dashboard did not answer (${reply.error || "no connection"}).`
        : `Not saved: the dashboard answered HTTP ${reply.status}${why}.`;
  }
}

// -- the session page's Intent section --------------------------------------------------------

function stored(annotation) {
  if (!annotation || annotation.kind !== "words") return { goal: "", lines: [], revision: 0 };
  return {
    goal: annotation.goal || "",
    goalSource: annotation.goal_source,
    lines: annotation.lines.map((l, i) => ({ text: l.text, origin: i, source: l.source, entry: l.entry })),
    revision: annotation.revision,
  };
}

function sameLines(a, b) {
  return a.length === b.length && a.every((l, i) => l.text.trim() === b[i].text.trim());
}

function Counter({ text, id }) {
  const n = text.trim().length;
  return html`<span class=${"counter" + (n > MAX_CHARS ? " over" : "")} id=${id} aria-live="off">${n}/${MAX_CHARS}</span>`;
}

function sourceWords(line) {
  return line.source === "entry" ? `added from ${line.entry || "an entry"}` : "typed";
}

// An off-board session's entry, from /api/annotations (the board carries board rows only).
function useOffBoardEntry(key, wanted, stamp) {
  const [entry, setEntry] = useState({ status: "idle" });
  useEffect(() => {
    if (!wanted) return undefined;
    let gone = false;
    setEntry({ status: "loading" });
    getJSON("/api/annotations").then((r) => {
      if (gone) return;
      if (!r.ok || !r.body) setEntry({ status: "error", reason: (r.body && r.body.reason) || `HTTP ${r.status}` });
      else setEntry({ status: "ok", state: r.body.state, detail: r.body.detail, annotation: r.body.annotations.find((a) => a.key === key) || null });
    });
    return () => {
      gone = true;
    };
  }, [key, wanted, stamp]);
  return entry;
}

function IntentPanel({ board, ctx, route, session }) {
  if (!CONF) return null;
  const harness = session ? session.harness : route.harness;
  const sid = session ? session.session_id : route.sid;
  const key = keyOf(harness, sid);
  const doc = board.annotations || {};
  if (!on() || doc.on === false) {
    return html`<section class="col intent-panel" aria-labelledby="h-intent">
      <h3 id="h-intent">Intent</h3>
      <p class="intent-off">${(CONF && CONF.reason) || doc.reason || "Annotations are off for this run."}</p>
      ${panelParts.map((C, i) => h(C, { key: i, board, ctx, route, session, annotation: null }))}
    </section>`;
  }
  return html`<${IntentOn} board=${board} ctx=${ctx} route=${route} session=${session} harness=${harness} sid=${sid} key=${key} doc=${doc} />`;
}

function IntentOn({ board, ctx, route, session, harness, sid, doc }) {
  const key = keyOf(harness, sid);
  const off = useOffBoardEntry(key, !session, doc.stamp);
  const [local, setLocal] = useState(null); // the reply of this tab's last save, until the board catches up
  const fromBoard = session ? (doc.sessions || {})[key] || null : off.status === "ok" ? off.annotation : null;
  let annotation = fromBoard && fromBoard.kind ? fromBoard : null;
  // This tab's own save stands until the board's stamp moves past the one it was made on.
  if (local && local.key === key && local.stamp === doc.stamp) annotation = local.annotation;
  const base = stored(annotation);
  const [draft, setDraft] = useState(null); // null: showing the stored words
  const [message, setMessage] = useState("");
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const goalRef = useRef(null);
  useEffect(() => {
    if (focusGoalOf === key && goalRef.current) {
      focusGoalOf = null;
      goalRef.current.focus();
    }
  });
  const shown = draft || { goal: base.goal, lines: base.lines, adopted: null };
  const goalChanged = shown.goal.trim() !== base.goal.trim();
  const linesChanged = !sameLines(shown.lines.filter((l) => l.text.trim()), base.lines);
  const dirty = goalChanged || linesChanged;
  const edit = (patch) => {
    setDraft({ ...shown, ...patch });
    setArmed(false);
  };
  const restore = () => {
    setDraft(null);
    setArmed(false);
    setMessage("The stored words are back.");
  };
  const onKey = (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      ev.stopPropagation();
      restore();
    }
  };
  const addLine = () => {
    if (shown.lines.length >= MAX_LINES) {
      setMessage(`The checklist holds ${MAX_LINES} lines; a seventh is refused. Replace or merge a line instead.`);
      return;
    }
    edit({ lines: [...shown.lines, { text: "", origin: null, source: "typed" }] });
    setMessage("");
  };
  const post = async (body) => {
    setBusy(true);
    const reply = await postJSON("/api/annotate", { harness, sid, ...body });
    setBusy(false);
    const sentence = outcomeSentence(reply);
    setMessage(sentence);
    const b = reply.body || {};
    if ((b.outcome === "stored" || b.outcome === "unwritable" || b.outcome === "unchanged") && b.annotation) {
      setLocal({ key, annotation: b.annotation, stamp: doc.stamp });
      setDraft(null);
    }
    return reply;
  };
  // The session's latest prompt, where its harness's source permits offering it as an entry.
  const prompt = promptOf(session) ? promptOf(session).text.trim() : null;
  const promptFits = prompt && prompt.length <= MAX_CHARS && !/[\r\n]/.test(prompt);
  const adoptGoal = () => edit({ goal: prompt, adopted: prompt });
  const propose = (text) => {
    edit({ goal: text, adopted: null });
    setMessage("The proposed goal is in the goal field: nothing is saved until you press save, and saved it is your typed goal.");
    if (goalRef.current) goalRef.current.focus();
  };
  const adoptLine = () => {
    if (shown.lines.length >= MAX_LINES) {
      setMessage(`The checklist holds ${MAX_LINES} lines; a seventh is refused. Replace or merge a line instead.`);
      return;
    }
    edit({ lines: [...shown.lines, { text: prompt, origin: null, source: "entry", entry: "your prompt" }] });
  };
  const save = () => {
    const body = {};
    if (goalChanged) body.goal = shown.goal;
    if (goalChanged && shown.adopted && shown.adopted === shown.goal) body.goal_source = "prompt";
    if (linesChanged) {
      const kept = shown.lines.filter((l) => l.text.trim());
      body.lines = kept.map((l) => l.text);
      body.origins = kept.map((l) => (l.entry ? { entry: l.entry } : l.origin));
      body.expected_revision = base.revision;
    }
    return post(body);
  };
  const discard = async () => {
    if (!armed) {
      const words = annotation;
      const n = words.lines.length;
      const what = [words.goal ? "the goal" : null, n ? plural(n, "expected outcome line") : null].filter(Boolean).join(" and ") || "the empty words";
      const readings = words.readings || 0;
      const sentence = `Press discard everything again to delete ${what} of revision ${words.revision} and every earlier revision, and to withdraw ${plural(readings, "reading")} recorded against them; a record that you discarded them, holding no text, stays.`;
      setArmed(sentence);
      announce(sentence);
      return;
    }
    setArmed(false);
    const reply = await post({ clear: true });
    announce(outcomeSentence(reply));
  };
  const words = annotation && annotation.kind === "words" ? annotation : null;
  const untrusted = doc.state === "untrusted" || (off.status === "ok" && off.state === "untrusted");
  let standing = null;
  if (untrusted) standing = html`<p class="intent-untrusted">${untrustedSentence(doc.detail || off.detail)}</p>`;
  else if (!session && off.status === "loading") standing = html`<p class="muted" aria-busy="true">Reading what was typed against this session…</p>`;
  else if (!session && off.status === "error") standing = html`<p class="note">What was typed against this session could not be read: ${off.reason}.</p>`;
  else if (annotation && annotation.kind === "foreign") standing = html`<p class="note">A newer Cargento saved this session's words; they are kept as they were and cannot be shown or saved over here.</p>`;
  else if (annotation && annotation.kind === "discard") standing = html`<p class="muted intent-discarded">You discarded everything typed against this session ${ago(since(ctx, annotation.at))}${annotation.checked ? "; a check had read it, and only that fact is kept" : ""}.</p>`;
  else if (!words) standing = html`<p class="muted intent-none">Nothing typed against this session yet.</p>`;
  else {
    standing = html`<p class="muted small intent-revision">Revision ${words.revision}, saved ${ago(since(ctx, words.at))}${words.persisted === false ? html` · <b class="held">held for this run only: the write failed</b>` : ""}</p>`;
  }
  const binding = session && (doc.sessions || {})[key] ? doc.sessions[key].binding : null;
  const history = words && words.revision > 1 ? html`<${Revisions} harness=${harness} sid=${sid} revision=${words.revision} ctx=${ctx} />` : null;
  const stamp = (text) => html`<span class="origin muted small">· ${text}</span>`;
  return html`<section class="col intent-panel" aria-labelledby="h-intent" data-key=${key}>
    <h3 id="h-intent">Intent</h3>
    <p class="buys">${WHAT_TYPING_BUYS}</p>
    ${binding && !binding.exact
      ? html`<p class="note shared-binding">This harness published only a short id that ${plural(binding.shared_with, "other session")} shares, so words typed here would be shared with ${binding.shared_with === 1 ? "it" : "them"}.</p>`
      : null}
    ${standing}
    <div class="intent-fields" onKeyDown=${onKey}>
      <label class="field">
        <span class="field-label">Goal ${words && words.goal && !goalChanged ? stamp(words.goal_source === "prompt" ? "from your prompt" : "typed") : null}</span>
        <span class="field-row">
          <input type="text" id="intent-goal" class="goal-input" ref=${goalRef} value=${shown.goal} disabled=${busy}
            aria-describedby="intent-goal-count" placeholder="What should this session achieve?"
            onInput=${(ev) => edit({ goal: ev.currentTarget.value })} />
          <${Counter} text=${shown.goal} id="intent-goal-count" />
          ${shown.goal ? html`<button type="button" class="btn small" onClick=${() => edit({ goal: "" })}>clear</button>` : null}
        </span>
      </label>
      <fieldset class="outcome-lines">
        <legend class="field-label">Expected outcome <span class="muted small">${shown.lines.length}/${MAX_LINES} lines</span></legend>
        <ol>
          ${shown.lines.map((line, i) => {
            const savedSame = line.origin != null && base.lines[line.origin] && base.lines[line.origin].text === line.text;
            return html`<li class="outcome-line" key=${i}>
              <input type="text" class="line-input" value=${line.text} aria-label=${`Expected outcome line ${i + 1}`}
                aria-describedby=${`intent-line-count-${i}`} disabled=${busy}
                onInput=${(ev) => {
                  const lines = shown.lines.slice();
                  lines[i] = { ...line, text: ev.currentTarget.value, entry: ev.currentTarget.value === line.text ? line.entry : null };
                  edit({ lines });
                }} />
              <${Counter} text=${line.text} id=${`intent-line-count-${i}`} />
              ${savedSame ? stamp(sourceWords(base.lines[line.origin])) : null}
              <button type="button" class="btn small" aria-label=${`remove line ${i + 1}`}
                onClick=${() => edit({ lines: shown.lines.filter((_, j) => j !== i) })}>remove</button>
            </li>`;
          })}
        </ol>
        <button type="button" class="btn small add-line" onClick=${addLine}>add a line</button>
      </fieldset>
      ${prompt
        ? html`<p class="adopt small">${promptFits
            ? html`From your latest prompt: <button type="button" class="btn small adopt-goal" onClick=${adoptGoal}>use it as the goal</button>
                <button type="button" class="btn small adopt-line" onClick=${adoptLine}>add it as a line</button>
                <span class="muted">Nothing is saved until you press save, and an adopted goal says “from your prompt”.</span>`
            : html`<span class="muted">Your latest prompt is ${prompt.length} characters or more than one line, so it cannot be a goal or a line as it stands: nothing is clipped.</span>`}</p>`
        : null}
      ${proposalParts.map((C, i) => h(C, { key: i, board, ctx, session, harness, sid, propose }))}
      <div class="intent-actions">
        ${dirty ? html`<button type="button" class="btn save" disabled=${busy} onClick=${save}>save</button>
          <span class="muted small">Escape puts the stored words back.</span>` : null}
        ${words && !dirty
          ? html`<button type="button" class=${"btn small discard" + (armed ? " armed" : "")} disabled=${busy}
              aria-describedby="intent-discard-what" onClick=${discard}
              onBlur=${() => setArmed(false)}>${armed ? "discard everything: press again" : "discard everything"}</button>`
          : null}
      </div>
      ${armed ? html`<p class="discard-what" id="intent-discard-what">${armed}</p>` : null}
      <p class="intent-message" role="status" aria-live="polite">${message}</p>
      ${history}
    </div>
    ${panelParts.map((C, i) => h(C, { key: i, board, ctx, route, session, annotation }))}
  </section>`;
}

// Every retained revision, read from /api/annotations when opened (never on the refresh loop).
function Revisions({ harness, sid, revision, ctx }) {
  const [open, setOpen] = useState(false);
  const [doc, setDoc] = useState(null);
  useEffect(() => {
    if (!open) return undefined;
    let gone = false;
    setDoc(null);
    getJSON("/api/annotations").then((r) => {
      if (gone) return;
      const found = r.ok && r.body ? r.body.annotations.find((a) => a.key === keyOf(harness, sid)) : null;
      setDoc(found && found.revisions ? { revisions: found.revisions } : { error: (r.body && r.body.reason) || `HTTP ${r.status}` });
    });
    return () => {
      gone = true;
    };
  }, [open, revision, harness, sid]);
  return html`<details class="revisions" onToggle=${(ev) => setOpen(ev.currentTarget.open)}>
    <summary>Earlier revisions (the words are at revision ${revision}; earlier ones are kept unchanged)</summary>
    ${!open ? null : !doc ? html`<p class="muted small" aria-busy="true">Reading the revisions…</p>` : doc.error
      ? html`<p class="note">The revisions could not be read: ${doc.error}.</p>`
      : html`<ol class="revision-list">${doc.revisions.slice().reverse().map((r) => html`<li data-revision=${r.revision}>
          <span class="muted small">revision ${r.revision}, saved ${ago(since(ctx, r.at))}</span>
          <div>${r.goal ? html`<span class="src-label">goal</span> ${r.goal}` : html`<span class="muted">no goal</span>`}</div>
          ${r.lines.length ? html`<ul>${r.lines.map((l) => html`<li>${l.text} <span class="muted small">(${sourceWords(l)})</span></li>`)}</ul>` : null}
        </li>`)}</ol>`}
  </details>`;
}

// -- Sessions: your goal beside NOW, the sentence above the rows ------------------------------

function ShareKeeper({ board }) {
  share = board ? board.annotations || null : null;
  if (!share || share.state !== "untrusted") return null;
  // Not a reset: the file is left exactly where it is, and the header says so.
  return html`<ul class="store-resets" aria-label="Own stores not trusted"><li class="store-reset" data-store="annotations">
    <b>annotations</b> not trusted: ${share.detail || "the file could not be read whole"}; nothing is written over it until it is moved or repaired.</li></ul>`;
}

function RowGoal({ session }) {
  if (!on() || !share || share.on === false) return null;
  const s = session;
  const entry = (share.sessions || {})[s.key];
  const typed = entry && entry.kind === "words" ? entry.goal : null;
  const shared = entry && entry.binding && !entry.binding.exact
    ? html`<span class="shared-binding small" title="This harness published only a short id another session shares; words typed against it are shared.">shared id</span>`
    : null;
  if (typed) {
    return html`<a class="row-goal typed" href=${sessionHash(s)} title=${`Your goal (revision ${entry.revision})`}><span class="goal-label">goal</span> ${typed}</a>${shared}<span class="goal-sep" aria-hidden="true"> · </span>`;
  }
  const prompt = promptOf(s);
  const open = () => {
    focusGoalOf = s.key;
  };
  if (prompt) {
    return html`<a class="row-goal prompt" href=${sessionHash(s)} onClick=${open}
      title="Your latest prompt, as the harness recorded it; not saved as a goal. Opens the session with the cursor in its goal field."><span class="goal-label">prompt</span> ${bounded(prompt.text)}</a>${shared}<span class="goal-sep" aria-hidden="true"> · </span>`;
  }
  return html`<a class="row-goal none" href=${sessionHash(s)} onClick=${open} title="No goal typed: open the session with the cursor in its goal field"><span class="goal-label">+ goal</span><span class="sr-only"> for ${s.title || s.display_id}</span></a>${shared} `;
}

function AboveRows({ board }) {
  if (!CONF) return null;
  const doc = board.annotations || {};
  if (!on() || doc.on === false) {
    return html`<p class="above-rows intent-off">Annotations are off for this run (--no-annotations), so no goal you typed is shown or saved, no goal slot links to a session and no Drift mark is drawn.</p>`;
  }
  if (doc.state === "untrusted") return html`<p class="above-rows intent-untrusted">${untrustedSentence(doc.detail)}</p>`;
  if (!doc.checked_any && board.sessions.length) return html`<p class="above-rows">No session has been checked for drift.</p>`;
  return null;
}

// -- Projects: your words beside the goal a harness published -----------------------------------

function ProjectGoals({ board, ctx, sessions }) {
  if (!CONF) return null;
  const doc = board.annotations || {};
  const label = sessionLabels(board.sessions);
  const rows = [];
  for (const s of sessions) {
    const entry = (doc.sessions || {})[s.key];
    const published = promptOf(s);
    const typed = on() && doc.on !== false && entry && entry.kind === "words" ? entry : null;
    if (!published && !typed) continue;
    rows.push(html`<li class="stated" data-key=${s.key}>
      <a href=${sessionHash(s)}>${label(s)}</a>
      <ul>
        ${published ? html`<li class="stated-row published" data-source="published"><span class="src-label">published by ${s.harness_label}: latest prompt</span> ${bounded(published.text)} <span class="muted small">· observed ${published.at ? ago(since(ctx, published.at)) : "at a time unknown"}</span></li>` : null}
        ${typed && typed.goal ? html`<li class="stated-row typed" data-source="typed"><span class="src-label">your goal${typed.goal_source === "prompt" ? " (from your prompt)" : ""}</span> ${typed.goal} <span class="muted small">· revision ${typed.revision}</span></li>` : null}
        ${typed ? typed.lines.map((l, i) => html`<li class="stated-row typed-line" data-source="typed"><span class="src-label">your expected outcome ${i + 1}</span> ${l.text}</li>`) : null}
      </ul>
    </li>`);
  }
  const offNote = !on() || doc.on === false ? html`<p class="muted small">${CONF.reason}</p>` : null;
  if (!rows.length && !offNote) return null;
  return html`<section class="project-goals" aria-label="Stated goals"><h3 class="group-h">STATED GOALS</h3>${offNote}<ul class="stated-list">${rows}</ul></section>`;
}

// -- the Intent log ---------------------------------------------------------------------------

// /api/annotations, loaded when the log opens and again when the store's stamp moves; words a
// discard or a new revision withdrew are dropped before their replacement loads.
function useAnnotations(stamp) {
  const [doc, setDoc] = useState({ status: "loading", stamp: null });
  useEffect(() => {
    if (!on()) return undefined;
    let gone = false;
    setDoc({ status: "loading", stamp });
    getJSON("/api/annotations").then((r) => {
      if (gone) return;
      if (r.ok && r.body) setDoc({ status: "ok", stamp, body: r.body });
      else setDoc({ status: "error", stamp, reason: (r.body && (r.body.reason || r.body.error)) || `HTTP ${r.status}` });
    });
    return () => {
      gone = true;
    };
  }, [stamp]);
  return doc;
}

function Observed({ at, ctx }) {
  if (!at) return html`<span class="muted">observation time unknown</span>`;
  return html`<span class="muted">observed <time datetime=${at}>${clock(new Date(at))}</time> (${ago(since(ctx, at))})</span>`;
}

function SourceLine({ src, ctx }) {
  return html`<li class="source" data-kind=${src.kind}>
    <span class="src-label">${src.label}</span>${src.origin ? html` <span class="muted small">(${src.origin})</span>` : null}${" "}
    <span class="src-text">${src.text}</span>
    <span class="src-meta small"> · currentness not checked · <${Observed} at=${src.observed_at} ctx=${ctx} /></span>
  </li>`;
}

function typedSources(a) {
  const out = [];
  if (a.goal) out.push({ kind: "goal", label: a.goal_source === "prompt" ? "goal from your prompt" : "typed goal", text: a.goal, observed_at: a.at });
  a.lines.forEach((l, i) => out.push({ kind: "line", label: `expected outcome line ${i + 1}`, origin: sourceWords(l), text: l.text, observed_at: a.at }));
  return out;
}

function harnessSources(s) {
  if (!promptOf(s)) return [];
  return [{ kind: "prompt", label: `latest prompt, as ${s.harness_label} recorded it`, text: bounded(s.instruction.text), observed_at: s.instruction.at }];
}

export function IntentLog({ board, ctx }) {
  const doc = board.annotations || {};
  const loaded = useAnnotations(doc.stamp || null);
  const current = loaded.status === "ok" && loaded.stamp === (doc.stamp || null) ? loaded.body : null;
  const typedOn = on() && doc.on !== false;
  let withheld = null;
  if (!typedOn) withheld = (CONF && CONF.reason) || "Annotations are off for this run.";
  else if (loaded.status === "error") withheld = `What you typed could not be read: ${loaded.reason}. Board sessions and their other sources are still listed.`;
  else if (!current) withheld = "Reading what you typed…";
  else if (current.state === "untrusted") withheld = untrustedSentence(current.detail);
  const entries = new Map(current && current.state !== "untrusted" ? current.annotations.map((a) => [a.key, a]) : []);
  const rows = [];
  const seen = new Set();
  // Sessions sharing a title are told apart by their short id, as on the board.
  const named = sessionLabels(board.sessions);
  for (const s of board.sessions) {
    if (seen.has(s.key)) continue;
    seen.add(s.key);
    const binding = ((doc.sessions || {})[s.key] || {}).binding;
    rows.push({ key: s.key, session: s, title: s.title ? named(s) : null, entry: entries.get(s.key) || null, binding, harness: s.harness, label: s.harness_label, sid: s.session_id });
  }
  const offBoard = [...entries.values()].filter((a) => !seen.has(a.key));
  offBoard.sort((a, b) => String(b.at || "").localeCompare(String(a.at || "")));
  for (const a of offBoard) rows.push({ key: a.key, session: null, entry: a, harness: a.harness, label: a.harness, sid: a.sid });
  return html`<section class="intent-log" aria-labelledby="view-h" aria-busy=${typedOn && !current && loaded.status !== "error" ? "true" : "false"}>
    <${ViewHeading}>Intent log <span class="count">${rows.length}</span></${ViewHeading}>
    <p class="muted small">Every session on the board and every goal, expected outcome or discard on record, once each. Each source is listed on its own line; none is checked for currentness, and opening the log derives no goal.</p>
    ${withheld ? html`<p class="intent-withheld" role="status">${withheld}</p>` : null}
    <ul class="log-rows">${rows.map((r) => html`<${LogRow} key=${r.key} row=${r} ctx=${ctx} typedOn=${typedOn && Boolean(current)} />`)}</ul>
  </section>`;
}

function LogRow({ row, ctx, typedOn }) {
  const s = row.session;
  const a = row.entry;
  const href = s ? sessionHash(s) : `#n=session::${encodeURIComponent(row.harness)}:${encodeURIComponent(row.sid)}`;
  const sources = [...(typedOn && a && a.kind === "words" ? typedSources(a) : []), ...(s ? harnessSources(s) : [])];
  let typedNote = null;
  if (typedOn && a && a.kind === "discard") {
    typedNote = html`<p class="muted small log-discard">You discarded everything typed here ${a.at ? ago(since(ctx, a.at)) : "at a time unknown"}; the record holds no text${a.checked ? ", only that a check had run" : ""}.</p>`;
  } else if (typedOn && a && a.kind === "foreign") {
    typedNote = html`<p class="muted small">Saved by a newer Cargento; kept as it was and not shown here.</p>`;
  } else if (typedOn && !a) {
    typedNote = html`<p class="muted small log-none">Nothing typed.</p>`;
  }
  return html`<li class="log-row" data-key=${row.key} data-annotation=${a ? a.kind : "none"}>
    <div class="log-head">
      <a class="title" href=${href}>${s ? row.title || html`<span class="muted">untitled session</span>` : html`<span class="mono">${row.sid}</span>`}</a>
      <span class="muted small"> · ${row.label} · ${s ? s.project || "no project" : "not on the board"}${a && a.kind === "words" ? ` · revision ${a.revision}` : ""}${a && a.kind === "words" && a.persisted === false ? " · held for this run only" : ""}</span>
      ${row.binding && !row.binding.exact ? html`<span class="shared-binding small"> · a short id shared with ${plural(row.binding.shared_with, "other session")}</span>` : null}
    </div>
    ${typedNote}
    ${sources.length ? html`<ul class="sources">${sources.map((src) => html`<${SourceLine} src=${src} ctx=${ctx} />`)}</ul>` : s && !typedNote ? html`<p class="muted small">No goal published or typed.</p>` : null}
    ${logParts.map((C, i) => h(C, { key: i, row, ctx }))}
  </li>`;
}

fill("header", ShareKeeper);
fill("session.first", IntentPanel);
fill("row.now", RowGoal, (board, s) => {
  const a = board ? board.annotations : null;
  return [on(), a ? a.on : null, a && a.sessions ? a.sessions[s.key] || null : null];
});
fill("sessions.above", AboveRows);
fill("project.goals", ProjectGoals);
view("intent", IntentLog, { label: "Intent", key: "i" });
