// Where operator features put their parts of the page, without editing the views they join.
//
// A feature module (imported by app.js) calls fill(slot, Component) for a place on the page,
// view(name, Component) for a view of its own (#n=<name>), and offCount(fn) for Attention's
// "off the session count" items. The views render <Slot name=... /> at each place, handing
// every component the same props ({board, ctx} and, per slot, {session} or {route}); row slots
// get {session, ctx} only, and read the document as ctx.board.
import { h } from "preact";

const filled = new Map();
const views = new Map();
const offCounters = [];

// The places on the page a feature can fill:
//   header            the page header, after the live region
//   sessions.above    Sessions, the one sentence above the rows
//   sessions.below    Sessions, below the two groups (the capacity strip)
//   row.marks         a row's title cell, after its chips   ({session})
//   row.now           a row's NOW cell, before the detail  ({session})
//   row.more          a row's opened details               ({session})
//   attention.needs   inside NEEDS YOU NOW, before the waiting sessions
//   attention.item    one NEEDS YOU NOW item's controls      ({session})
//   attention.coverage  Attention's coverage details, at their end
//   attention.groups  Attention, after AT RISK
//   session.first     the session page's first column       ({session} or {route})
//   session.controls  the session page's controls          ({session})
//   session.sections  the session page, after its columns   ({session} or {route})
//   project.goals     a project's view, its stated goals       ({project, sessions})
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
  "session.first",
  "session.controls",
  "session.sections",
  "project.goals",
];

export function fill(slot, component) {
  if (!SLOTS.includes(slot)) throw new Error(`no slot named ${slot}`);
  if (!filled.has(slot)) filled.set(slot, []);
  filled.get(slot).push(component);
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

export function offCountFrom(board) {
  const items = [];
  for (const fn of offCounters) {
    try {
      items.push(...(fn(board) || []));
    } catch (_) {
      /* one feature's failure leaves the others' items standing */
    }
  }
  return items;
}
