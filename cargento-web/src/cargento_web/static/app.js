// The Cargento page: fetches the board, follows the live stream, routes on the URL fragment.
import "/static/steadytext.js";
import { h, render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { STATE_TEXT, clock, nativeNotifications, parseRoute, plural } from "/static/format.js";
import { learnHarnesses } from "/static/marks.js";
import { reuseUnchanged } from "/static/sameness.js";
import { AttentionView, ProjectView, ProjectsView, SessionPage, SessionsView, Strip } from "/static/views.js";
import { CONFIG } from "/static/config.js";
import { Slot, announcementsFrom, hasView, tabs as featureTabs, viewFor, waitsBeyondGates } from "/static/slots.js";
// The operator features: each module fills its slots and views when imported (see slots.js).
import "/static/features.js";

const CORE_VIEWS = ["sessions", "projects", "project", "attention", "session"];
// The route of a fragment; a view no feature registered falls back to Sessions.
function routeOf(hash) {
  const r = parseRoute(hash);
  return CORE_VIEWS.includes(r.view) || hasView(r.view) ? r : { view: "sessions" };
}

const html = htm.bind(h);
const NATIVE = nativeNotifications(CONFIG.notifications);
const query = new URLSearchParams(location.search);
const ALL = query.has("all") ? !["0", "false", "no", "off", ""].includes(query.get("all")) : CONFIG.all;
const SUFFIX = query.has("all") ? `?all=${ALL ? 1 : 0}` : "";
const BEAT_MS = Math.max(250, CONFIG.heartbeat_s * 1000);

//: Where this browser keeps "notify only when a session waits on you".
const ONLY_WAITS_KEY = "cargento:notify-only-waits";

// -- the store: one mutable state object and a subscriber -----------------------------------
const state = {
  board: null,
  fetchedAt: 0, // Date.now() when the board arrived
  lastOk: null, // Date of the last successful refresh
  lastContact: Date.now(),
  missed: 0,
  error: null,
  route: routeOf(location.hash),
  notify: typeof Notification === "undefined" ? "unsupported" : Notification.permission,
  transport: "starting",
  onlyWaits: readOnlyWaits(),
  announce: "", // what the live region last said: state changes only
};
let redraw = () => {};
const update = (patch) => {
  Object.assign(state, patch);
  redraw();
};

// -- notifications: a session starts waiting, or a turn that worked a while goes quiet --------
//: A turn must have worked this long before its going quiet is worth a notification.
const QUIET_AFTER_S = 30;
function readOnlyWaits() {
  try {
    return localStorage.getItem(ONLY_WAITS_KEY) === "1";
  } catch (_) {
    return false;
  }
}
function setOnlyWaits(on) {
  try {
    localStorage.setItem(ONLY_WAITS_KEY, on ? "1" : "0");
  } catch (_) {
    /* a browser that keeps nothing still honours the choice for this tab */
  }
  update({ onlyWaits: on });
}

let previous = null;
// Per session: when its current working spell began (board clock, ms) and the spell already
// notified as gone quiet, so one turn raises "has gone quiet" at most once.
const spells = new Map();
const quietSaid = new Map();
// The ids of the feature announcements (slots.js announce) standing on the last board.
const announced = new Set();
function spellStart(s, at) {
  // The turn's own start when the board has one, else when this tab first saw it working.
  return s.turn ? at - s.turn.elapsed_s * 1000 : null;
}
// Precision, the same rules the server's lanes keep: a wait raises only once it still stands
// CONFIRM_MS after this tab saw it open (an approval answered in a second raises nothing), at
// most once per wait; never about a session this visible tab is showing, nor one whose tmux
// pane is in front of you (the terminal raise's reading, /api/data's focus.in_front); held
// through quiet hours and raised when they end if it still stands; and not at all when the
// server hands gates to this machine's own notification service (the same wait would ping
// twice).
const CONFIRM_MS = Math.max(0, ((CONFIG.notifications && CONFIG.notifications.confirm_s) ?? 5) * 1000);
const confirming = new Map(); // key -> {since, title, body}
function showingHere(key) {
  const r = state.route;
  return document.visibilityState === "visible" && r.view === "session" && `${r.harness}:${r.sid}` === key;
}
function terminalInFront(key) {
  const f = state.board && state.board.focus;
  return Boolean(f && Array.isArray(f.in_front) && f.in_front.includes(key));
}
function inQuietHours(when = new Date()) {
  const span = CONFIG.notifications && CONFIG.notifications.quiet_hours;
  const m = span && span.match(/^(\d\d):(\d\d)-(\d\d):(\d\d)$/);
  if (!m) return false;
  const at = when.getHours() * 60 + when.getMinutes();
  const start = +m[1] * 60 + +m[2];
  const end = +m[3] * 60 + +m[4];
  return end < start ? at >= start || at < end : at >= start && at < end;
}
function serverRaisesGates() {
  const n = CONFIG.notifications;
  return Boolean(n && n.enabled && n.available);
}
function confirmWaits() {
  const board = state.board;
  if (!board) return;
  const byKey = new Map(board.sessions.map((s) => [s.key, s]));
  for (const [key, wait] of confirming) {
    const s = byKey.get(key);
    if (!s || s.state !== "needs_input") {
      confirming.delete(key); // answered (or gone) before it was confirmed: nothing raised
      continue;
    }
    if (Date.now() - wait.since < CONFIRM_MS) continue;
    confirming.delete(key);
    if (state.notify === "granted" && !showingHere(key) && !terminalInFront(key) && !serverRaisesGates()) {
      if (inQuietHours()) holdForQuiet(key, { ...wait, stands: "needs_input" });
      else show(wait.title, wait.body, key);
    }
  }
  if (confirming.size) setTimeout(confirmWaits, CONFIRM_MS + 250);
}
// Quiet hours hold a confirmed wait (or a turn gone quiet) rather than drop it, as the server's
// lanes do: when the window ends it is raised then if it still stands, the session still in
// the state it was held in (answered, or working again, meanwhile: nothing). Bounded.
const QUIET_HOLD_LIMIT = 64;
const quietHeld = new Map(); // key -> {title, body, stands: the state it must still be in}
let quietTimer = null;
function msUntilQuietEnd(when = new Date()) {
  const span = CONFIG.notifications && CONFIG.notifications.quiet_hours;
  const m = span && span.match(/^(\d\d):(\d\d)-(\d\d):(\d\d)$/);
  if (!m) return 0;
  const end = new Date(when);
  end.setHours(+m[3], +m[4], 0, 0);
  if (end <= when) end.setDate(end.getDate() + 1);
  return end - when;
}
function holdForQuiet(key, wait) {
  quietHeld.delete(key);
  quietHeld.set(key, wait);
  while (quietHeld.size > QUIET_HOLD_LIMIT) quietHeld.delete(quietHeld.keys().next().value);
  scheduleQuietRelease();
}
function scheduleQuietRelease() {
  if (quietTimer || !quietHeld.size) return;
  // Re-read at least every minute: a laptop asleep across the end must not wait a day.
  quietTimer = setTimeout(releaseQuiet, Math.min(msUntilQuietEnd() + 250, 60000));
}
function releaseQuiet() {
  quietTimer = null;
  if (inQuietHours()) return scheduleQuietRelease();
  const byKey = new Map(((state.board && state.board.sessions) || []).map((s) => [s.key, s]));
  for (const [key, wait] of [...quietHeld]) {
    quietHeld.delete(key);
    const s = byKey.get(key);
    if (!s || s.state !== wait.stands) continue; // answered, or at work again, while held
    const serverSays = wait.stands === "needs_input" && serverRaisesGates();
    if (state.notify === "granted" && !showingHere(key) && !terminalInFront(key) && !serverSays) show(wait.title, wait.body, key);
  }
}

function notifyTransitions(board) {
  const at = Date.parse(board.generated_at);
  const now = new Map(board.sessions.map((s) => [s.key, s]));
  const changes = [];
  for (const [key, s] of now) {
    const before = previous ? previous.get(key) : undefined;
    if (s.state === "working") {
      const start = spellStart(s, at);
      const known = spells.get(key);
      // A new spell: none known, or the turn start moved (a new turn), never a re-read of one.
      if (!known || (start != null && Math.abs(known.start - start) > 5000)) spells.set(key, { start: start ?? at, last: at });
      else known.last = at;
    }
    if (!previous || before === undefined || before === s.state) continue;
    const name = s.title || s.project || s.display_id;
    changes.push(`${name} (${s.harness_label}) ${s.state === "needs_input" ? "needs input" : `is now ${(STATE_TEXT[s.state] || s.state).toLowerCase()}`}`);
    if (state.notify !== "granted") continue;
    if (before !== "needs_input" && s.state === "needs_input") {
      const what = s.waiting && s.waiting.text ? s.waiting.text : s.detail;
      if (!confirming.has(key)) {
        confirming.set(key, { since: Date.now(), title: `${s.harness_label}: ${name} is waiting on you`, body: what });
        setTimeout(confirmWaits, CONFIRM_MS + 250);
      }
    } else if (before === "working" && s.state === "idle" && !state.onlyWaits && !showingHere(key) && !terminalInFront(key)) {
      const spell = spells.get(key);
      const worked = spell ? (spell.last - spell.start) / 1000 : 0;
      if (spell && worked >= QUIET_AFTER_S && quietSaid.get(key) !== spell.start) {
        quietSaid.set(key, spell.start);
        const title = `${s.harness_label}: ${name} has gone quiet`;
        const body = "It was working and has stopped writing; open it to see where it stands.";
        if (inQuietHours()) holdForQuiet(key, { title, body, stands: "idle" });
        else show(title, body, key);
      }
    }
  }
  for (const key of spells.keys()) if (!now.has(key)) spells.delete(key);
  // What a feature announces (a question): said and raised once, when it first appears; what
  // stood when the page opened is on the page already. A direct question is not held by quiet
  // hours, and the server raises it on the desktop where it can.
  const standing = announcementsFrom(board);
  for (const a of standing) {
    if (announced.has(a.id)) continue;
    announced.add(a.id);
    if (!previous) continue;
    changes.push(`${a.title}: ${a.body}`);
    if (state.notify === "granted" && !(a.key && showingHere(a.key)) && !serverRaisesGates()) show(a.title, a.body, a.id);
  }
  const ids = new Set(standing.map((a) => a.id));
  for (const id of announced) if (!ids.has(id)) announced.delete(id);
  previous = new Map([...now].map(([k, s]) => [k, s.state]));
  if (confirming.size) queueMicrotask(confirmWaits);
  return changes;
}
function show(title, body, tag) {
  try {
    const n = new Notification(title, { body, tag });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch (_) {
    /* a notification that cannot be shown is not an error worth a banner */
  }
}
async function askNotify() {
  if (typeof Notification === "undefined") return;
  const answer = await Notification.requestPermission();
  update({ notify: answer });
  if (answer === "granted") reportTabLane();
}

// This tab has a notification lane of its own: say so to the server, which notes beside each
// later raise how long before it a tab had reported (a statement about a tab, not a delivery).
// -- presence: whether this tab is in front of someone, and which session it shows ----------
// The server reads it twice: a raise about the session a visible tab shows is not sent, and
// no visible tab for a while is "away" for the reach nudges. Reported on load, on every
// visibility or route change, every PRESENCE_MS while visible, and as hidden on pagehide.
const PRESENCE_MS = 15000;
const TAB_ID = (() => {
  const fresh = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  try {
    let id = sessionStorage.getItem("cargento:tab");
    if (!id) sessionStorage.setItem("cargento:tab", (id = fresh()));
    return id;
  } catch (_) {
    return fresh();
  }
})();
function presence(visible = document.visibilityState === "visible") {
  const r = state.route;
  return { tab: TAB_ID, visible, session: r.view === "session" ? { harness: r.harness, session_id: r.sid } : null };
}
function reportPresence() {
  if (!CONFIG.notifications) return; // no hub: nobody to tell
  fetch("/api/presence", {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(presence()),
  }).catch(() => {
    /* the next beat reports again */
  });
}
document.addEventListener("visibilitychange", reportPresence);
window.addEventListener("hashchange", () => setTimeout(reportPresence, 0));
window.addEventListener("pagehide", () => {
  if (CONFIG.notifications && navigator.sendBeacon) {
    navigator.sendBeacon("/api/presence", new Blob([JSON.stringify(presence(false))], { type: "application/json" }));
  }
});
setInterval(() => {
  if (document.visibilityState === "visible") reportPresence();
}, PRESENCE_MS);
reportPresence();

async function reportTabLane() {
  if (state.notify !== "granted" || !CONFIG.notifications) return; // no hub: nobody to tell
  try {
    await fetch("/api/tab-lane", { method: "POST", cache: "no-store" });
  } catch (_) {
    /* the next load or reconnect reports again */
  }
}

// -- fetching ---------------------------------------------------------------------------------
let fetching = null;
// A revision announced while a fetch is in flight: that fetch may answer the board before it,
// so another follows once it is done (else the page would wait for the next revision or ping).
let announcedMeanwhile = null;
async function refresh(revision) {
  if (fetching) {
    if (revision != null) announcedMeanwhile = revision;
    return fetching;
  }
  fetching = (async () => {
    try {
      const r = await fetch("/api/data" + SUFFIX, { cache: "no-store", headers: { Accept: "application/json" } });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const text = await r.text();
      // The page's own work on a revision runs from here to the render's commit (see App).
      performance.mark("cargento:board");
      // Rows equal to the drawn ones stay the drawn objects: only what moved redraws.
      const board = reuseUnchanged(JSON.parse(text), state.board);
      learnHarnesses(board.harnesses);
      const changes = notifyTransitions(board);
      const now = Date.now();
      const recovered = state.missed > 0 || state.error != null; // the server may have restarted
      const patch = { board, fetchedAt: now, lastOk: new Date(now), lastContact: now, missed: 0, error: null };
      if (changes.length) patch.announce = changes.slice(0, 5).join("; ") + (changes.length > 5 ? `; and ${changes.length - 5} more` : "");
      else if (state.missed >= 2) patch.announce = "The board is live again.";
      measuring = true;
      update(patch);
      if (recovered) reportTabLane();
      return true;
    } catch (e) {
      update({ error: String(e.message || e) });
      return false;
    } finally {
      fetching = null;
      const wanted = announcedMeanwhile;
      announcedMeanwhile = null;
      if (wanted != null && (!state.board || state.board.revision !== wanted)) refresh(wanted);
    }
  })();
  return fetching;
}

function onRevision(revision) {
  state.lastContact = Date.now();
  if (!state.board || revision !== state.board.revision) refresh(revision);
  else if (state.missed) update({ missed: 0 });
}

// -- the stream: one tab per browser holds it, the others hear it on a BroadcastChannel -------
const channelName = `cargento:${location.host}:${ALL ? "all" : "window"}`;
const channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel(channelName) : null;
if (channel) {
  channel.onmessage = (ev) => {
    const m = ev.data || {};
    if (m.type === "board") onRevision(m.revision);
    else if (m.type === "ping") {
      state.lastContact = Date.now();
      if (state.missed) update({ missed: 0 });
      if (state.board && m.revision !== state.board.revision) refresh(m.revision);
    }
  };
}

function openStream() {
  if (typeof EventSource === "undefined") return false;
  const es = new EventSource("/api/stream" + SUFFIX);
  es.addEventListener("board", (ev) => {
    const m = JSON.parse(ev.data);
    onRevision(m.revision);
    if (channel) channel.postMessage({ type: "board", revision: m.revision });
  });
  es.addEventListener("ping", (ev) => {
    const m = JSON.parse(ev.data);
    state.lastContact = Date.now();
    if (state.missed) update({ missed: 0 });
    if (state.board && m.revision !== state.board.revision) refresh(m.revision);
    if (channel) channel.postMessage({ type: "ping", revision: m.revision });
  });
  es.onopen = () => update({ transport: "stream" });
  return true;
}

function startLive() {
  if (typeof EventSource === "undefined") {
    update({ transport: "polling" });
    return;
  }
  if (navigator.locks && channel) {
    update({ transport: "shared" });
    navigator.locks.request(channelName, () => {
      openStream();
      return new Promise(() => {}); // held for the life of this tab
    });
  } else {
    openStream();
  }
}

// Every beat: a beat with no contact is missed; then ask directly, which also serves the
// polling fallback. Two missed beats in a row make the header say "stalled".
setInterval(async () => {
  const quiet = Date.now() - state.lastContact > BEAT_MS * 1.5;
  if (state.transport === "polling" || quiet) {
    const ok = await refresh();
    if (!ok) {
      const missed = state.missed + 1;
      const patch = { missed };
      if (missed === 2) patch.announce = `The board has stalled; it shows the state as of ${clock(state.lastOk)}.`;
      update(patch);
    }
  } else {
    redraw();
  }
}, BEAT_MS);
setInterval(() => redraw(), 1000);

// -- routing and keys ---------------------------------------------------------------------------
let focusHeading = false;
window.addEventListener("hashchange", () => {
  focusHeading = true; // after the new view renders, focus moves to its heading
  update({ route: routeOf(location.hash) });
  window.scrollTo(0, 0);
});

function go(hash) {
  if (location.hash !== hash) location.hash = hash;
}

document.addEventListener("keydown", (ev) => {
  if (ev.metaKey || ev.ctrlKey || ev.altKey) return;
  const t = ev.target;
  if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
  if (ev.key === "a") go("#n=attention");
  else if (ev.key === "p") go("#n=projects");
  else if (ev.key === "s") go("#n=sessions");
  else if (featureTabs().some(([, , k]) => k && k === ev.key)) go("#n=" + featureTabs().find(([, , k]) => k === ev.key)[0]);
  else if (ev.key === "Escape" && state.route.view === "session") {
    // From a session to its project (to Sessions when it has none)...
    const p = state.route.project;
    const known = p && state.board && state.board.sessions.some((s) => (s.project || "") === p);
    go(p && known ? `#n=project:${encodeURIComponent(p)}` : "#n=sessions");
  } else if (ev.key === "Escape" && state.route.view !== "sessions") go("#n=sessions"); // ...and otherwise to Sessions
  else return;
  ev.preventDefault();
});

// -- the page -----------------------------------------------------------------------------------
function Header() {
  const b = state.board;
  // Sessions marked handled (POST /api/dismiss) leave the published counts until they write again.
  const c = b ? { ...b.counts, ...((b.dismissals && b.dismissals.counts) || {}) } : null;
  const stalled = state.missed >= 2;
  const running = b ? b.sessions.filter((s) => s.state === "working" && s.state_source !== "store").length : 0;
  const fromStores = c ? c.working - running : 0;
  // What waits on you: the native gates the board counts, and what a feature says waits
  // beyond them (an ask_operator question), each counted once.
  const beyond = b ? waitsBeyondGates(b) : null;
  const waiting = c ? c.needs_input + beyond.sessions.length + beyond.offBoard : 0;
  const tabs = [
    ["sessions", "Sessions", "s"],
    ["projects", "Projects", "p"],
    ["attention", "Attention", "a"],
    ...featureTabs(),
  ];
  const current = state.route.view === "project" ? "projects" : state.route.view;
  const since = state.lastOk ? Math.round((Date.now() - state.lastOk) / 1000) : null;
  return html`<header class="top">
    <h1 class="brand"><a href="#n=sessions">Cargento</a></h1>
    ${c
      ? html`<div class="counts">
          <span class="c-run" data-count="running" title=${`${plural(fromStores, "more row reads", "more rows read")} Working from its store alone; only a lifecycle event says a session is running`}>${plural(running, "event-backed running session")}</span>
          <span class="c-sub">${plural(c.subagents, "subagent")} observed${c.subagents ? `, ${c.subagents_running} running` : ""}</span>
        </div>`
      : null}
    ${c && waiting
      ? html`<a class="blocks" href="#n=attention" data-count=${waiting}>${plural(waiting, "block")} reported — open Attention</a>`
      : null}
    <nav class="tabs" aria-label="Views">
      ${tabs.map(([key, label, k]) => html`<a href=${"#n=" + key} aria-current=${current === key ? "page" : undefined}
        class=${current === key ? "on" : ""} data-view=${key}>${label}${key === "attention" && c ? html` <span class="count att-count">${waiting}</span>` : null}<kbd aria-hidden="true">${k}</kbd></a>`)}
    </nav>
    <div class=${"live" + (stalled ? " stalled" : "")}>
      ${stalled
        ? html`<span class="dot" aria-hidden="true"></span>stalled — last successful update ${clock(state.lastOk)}${since != null ? ` (${since} s ago)` : ""}; the board is shown as of then`
        : state.lastOk
          ? html`<span class="dot" aria-hidden="true"></span>live · updated ${clock(state.lastOk)}`
          : "connecting…"}
      ${b && b.as_of ? html` · as of ${b.as_of}` : null}
    </div>
    <span class=${"native native-" + NATIVE.state} data-native=${NATIVE.state} title=${NATIVE.long}>
      <span aria-hidden="true">${NATIVE.short}</span><span class="sr-only">${NATIVE.long}</span>
    </span>
    ${state.notify === "default"
      ? html`<button type="button" class="btn small" onClick=${askNotify}>Enable notifications</button>`
      : null}
    ${state.notify === "granted"
      ? html`<label class="only-waits small"><input type="checkbox" checked=${state.onlyWaits}
          onChange=${(ev) => setOnlyWaits(ev.currentTarget.checked)} /> notify only when a session waits on you</label>`
      : null}
    <div class="sr-only" role="status" aria-live="polite" id="announce">${state.announce}</div>
    <${Slot} name="header" board=${b} />
    ${CONFIG.store_resets.length
      ? html`<ul class="store-resets" aria-label="Own stores reset at start">
          ${CONFIG.store_resets.map((r) => html`<li class="store-reset" data-store=${r.store}>
            <b>${r.store}</b> was reset${r.at ? ` at ${clock(new Date(r.at))}` : ""}: ${r.text}</li>`)}
        </ul>`
      : null}
  </header>`;
}

function Main() {
  const b = state.board;
  if (!b) return html`<p class="boot">${state.error ? `Cannot reach the dashboard: ${state.error}` : "Loading the board…"}</p>`;
  // Stalled: the clocks stop at the last successful update, so no timer counts on past it.
  const stalled = state.missed >= 2;
  const drift = stalled ? 0 : Date.now() - state.fetchedAt;
  const ctx = {
    board: b, // the whole document, for the features' row slots (their keys beside sessions)
    boardNow: Date.parse(b.generated_at) + drift,
    drift: drift / 1000,
    stalled,
    native: NATIVE,
    browserNotify: state.notify,
    recordEveryMs: BEAT_MS,
    recordKept: CONFIG.notifications != null,
  };
  const r = state.route;
  const own = viewFor(r.view);
  if (own) return html`<${own} board=${b} ctx=${ctx} route=${r} />`;
  if (r.view === "projects") return html`<${ProjectsView} board=${b} ctx=${ctx} />`;
  if (r.view === "project") return html`<${ProjectView} board=${b} ctx=${ctx} project=${r.project} />`;
  if (r.view === "attention") return html`<${AttentionView} board=${b} ctx=${ctx} />`;
  if (r.view === "session") return html`<${SessionPage} board=${b} ctx=${ctx} route=${r} />`;
  return html`<${SessionsView} board=${b} ctx=${ctx} />`;
}

let measuring = false;
function App() {
  const [, setTick] = useState(0);
  useEffect(() => {
    redraw = () => setTick((n) => n + 1);
  }, []);
  useLayoutEffect(() => {
    if (measuring) {
      measuring = false;
      performance.measure("cargento:revision", "cargento:board");
    }
    if (focusHeading) {
      focusHeading = false;
      const heading = document.querySelector("main .view-h");
      if (heading) heading.focus({ preventScroll: true });
    }
  });
  const stalled = state.missed >= 2;
  return html`<${Header} /><${Strip} board=${state.board} /><main id="main" data-view=${state.route.view}
    class=${stalled ? "stalled" : ""}><${Main} /></main>`;
}

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
refresh().then(() => {
  reportTabLane(); // on load, while permission is granted
  startLive();
});
