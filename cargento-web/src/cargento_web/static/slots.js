// Where operator features put their parts of the page, without editing the views they join.
//
// A feature module (imported by app.js) calls fill(slot, Component) for a place on the page,
// view(name, Component) for a view of its own (#n=<name>), and offCount(fn) for Attention's
// "off the session count" items, and claim(fn) to place sessions in Attention's categories.
// The views render <Slot name=... /> at each place, handing every component the same props
// ({board, ctx} and, per slot, {session} or {route}); row slots get {session, ctx} only, and
// read the document as ctx.board.
//
// A row slot's fill says what it shows, as fill(slot, Component, reads): reads(board,
// session, ctx) returns the values its part of one row is drawn from (the row's slice of the
// feature's share, and any wording that moves with the clock). A row is drawn again only
// when its session, its clock or one of these moved (see views.js Rows); a row fill that
// says nothing makes every row draw again on every render, which is right but slow.
import { h } from "preact";

const filled = new Map();
const views = new Map();
const offCounters = [];
const claimers = [];

// The places on the page a feature can fill:
//   header            the page header, after the live region
//   sessions.above    Sessions, the one sentence above the rows
//   sessions.below    Sessions, below the two groups (the capacity strip)
//   row.marks         a row's title cell, after its chips   ({session})
//   row.now           a row's NOW cell, before the detail (after the wait on a row that waits on you)  ({session})
//   row.more          a row's opened details               ({session})
//   attention.needs   inside NEEDS YOU NOW, before the waiting sessions
//   attention.item    one NEEDS YOU NOW item's controls      ({session})
//   attention.coverage  Attention's coverage details, at their end
//   attention.groups  Attention, after AT RISK
//   session.waiting   the session page, under its name, with a wait on you   ({session} or {route})
//   session.first     the session page's first column       ({session} or {route})
//   session.controls  the session page's controls          ({session})
//   session.sections  the session page, after its columns   ({session} or {route})
//   project.goals     a project's view, its stated goals       ({project, sessions})
//   projects.project  Projects, under one project's rows      ({project})
//   projects.summary  a project's heading, after its state counts   ({sessions})
export const SLOTS = [
  "header",
  "sessions.above",
  "sessions.below",
  "row.marks",
  "row.now",
  "row.more",
  "attention.needs",
  "attention.item",
  "attention.coverage",
  "attention.groups",
  "session.waiting",
  "session.first",
  "session.controls",
  "session.sections",
  "project.goals",
  "projects.project",
  "projects.summary",
];

const readsOf = new Map();
const ROW_SLOTS = ["row.marks", "row.now", "row.more"];

export function fill(slot, component, reads = null) {
  if (!SLOTS.includes(slot)) throw new Error(`no slot named ${slot}`);
  if (!filled.has(slot)) filled.set(slot, []);
  filled.get(slot).push(component);
  if (reads) readsOf.set(component, reads);
}

// What the row slots of one row are drawn from, as their fills say; null when a fill says
// nothing (the row is then drawn again every time).
export function rowSlotReads(session, ctx) {
  const out = [];
  for (const slot of ROW_SLOTS) {
    for (const C of filledWith(slot)) {
      const reads = readsOf.get(C);
      if (!reads) return null;
      out.push(reads(ctx.board, session, ctx));
    }
  }
  return out;
}

export function filledWith(slot) {
  return filled.get(slot) || [];
}

export function Slot({ name, ...props }) {
  const parts = filledWith(name);
  if (!parts.length) return null;
  return parts.map((C, i) => h(C, { key: i, ...props }));
}

// A view of its own, reached at #n=<name> (register at module load, before the page first
// routes). With tab = {label, key}, the header offers it beside Sessions, Projects, Attention.
export function view(name, component, tab = null) {
  views.set(name, { component, tab });
}

export function tabs() {
  return [...views.entries()].filter(([, v]) => v.tab).map(([name, v]) => [name, v.tab.label, v.tab.key || ""]);
}

export function viewFor(name) {
  const found = views.get(name);
  return found ? found.component : null;
}

export function hasView(name) {
  return views.has(name);
}

// fn(session, board) -> true for a session a feature raises in Sessions: after the blocked
// sessions and before the working ones, even when it is idle (a departure on record). A raise
// never changes the Active figure.
const raisers = [];

export function raise(fn) {
  raisers.push(fn);
}

export function raised(session, board) {
  return raisers.some((fn) => {
    try {
      return Boolean(fn(session, board));
    } catch (_) {
      return false;
    }
  });
}

// fn(board) -> [{kind, key, text}]: subjects at risk that are never part of the session count.
export function offCount(fn) {
  offCounters.push(fn);
}

// Every item the registered *fns* give for *board*: one feature's failure leaves the others'
// items standing.
function gathered(fns, board) {
  const items = [];
  for (const fn of fns) {
    try {
      items.push(...(fn(board) || []));
    } catch (_) {
      /* the feature's own problem: its items are left out */
    }
  }
  return items;
}

export function offCountFrom(board) {
  return gathered(offCounters, board);
}

// fn(board) -> [{key, category, reason}]: sessions a feature places in one of Attention's
// categories, so AT RISK lists them and the opening brief counts them once. category is
// "handled" (marked handled: out of every category and count), "needs_you" (a session that
// waits on the reader through the feature, as a question asked through ask_operator: counted
// with the native waits in NEEDS YOU NOW and the header; a key that is no session on the board
// counts there too), "at_risk" or "close_the_loop". Waiting on the reader takes precedence over
// at risk and close the loop; handled over the rest.
export function claim(fn) {
  claimers.push(fn);
}

// fn(board) -> [{id, key, title, body}]: what a feature says waits on the reader and is worth
// a browser notification when it first appears on the board (an ask_operator question). The
// tab raises it where the server cannot raise it on the desktop, never for what was already
// there when the page opened; the live region announces it either way. *key* is the session's
// board key, or null; *id* is unique for as long as the item stands.
const announcers = [];

export function announce(fn) {
  announcers.push(fn);
}

export function announcementsFrom(board) {
  return gathered(announcers, board);
}

const CLAIM_RANK = { handled: 0, needs_you: 1, at_risk: 2, close_the_loop: 3 };

// What waits on the reader beyond the sessions whose state is needs_input: the sessions a
// feature claims as needs_you in another state, and how many such claims name no session on
// this board (an ask_operator question whose asker is unattributed or gone).
export function waitsBeyondGates(board, claims = claimsFrom(board)) {
  const keys = new Set(board.sessions.map((s) => s.key));
  const sessions = board.sessions.filter((s) => s.state !== "needs_input" && waitsOnReader(s, claims));
  let offBoard = 0;
  for (const [key, c] of claims) if (c.category === "needs_you" && !keys.has(key)) offBoard += 1;
  return { sessions, offBoard };
}

// Whether a session waits on the reader: a native gate (needs_input), or a feature's needs_you
// claim on it (an open ask_operator question). *claims*: claimsFrom(board).
export function waitsOnReader(s, claims) {
  return s.state === "needs_input" || (claims.get(s.key) || {}).category === "needs_you";
}

// Every claim on this board, by session key: the strongest one per session.
export function claimsFrom(board) {
  const out = new Map();
  for (const fn of claimers) {
    let items = [];
    try {
      items = fn(board) || [];
    } catch (_) {
      items = []; /* one feature's failure leaves the others' claims standing */
    }
    for (const c of items) {
      if (!(c.category in CLAIM_RANK)) continue;
      const held = out.get(c.key);
      if (!held || CLAIM_RANK[c.category] < CLAIM_RANK[held.category]) out.set(c.key, c);
    }
  }
  return out;
}
