// The Cargento page: fetches the board, follows the live stream, routes on the URL fragment.
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { clock, nativeNotifications, parseRoute, plural } from "/static/format.js";
import { learnHarnesses } from "/static/marks.js";
import { AttentionView, ProjectView, ProjectsView, SessionPage, SessionsView, Strip } from "/static/views.js";

const html = htm.bind(h);
const meta = document.querySelector('meta[name="cargento-config"]');
const CONFIG = Object.assign({ heartbeat_s: 5, all: false, notifications: null, store_resets: [] }, meta ? JSON.parse(meta.content) : {});
const NATIVE = nativeNotifications(CONFIG.notifications);
const query = new URLSearchParams(location.search);
const ALL = query.has("all") ? !["0", "false", "no", "off", ""].includes(query.get("all")) : CONFIG.all;
const SUFFIX = query.has("all") ? `?all=${ALL ? 1 : 0}` : "";
const BEAT_MS = Math.max(250, CONFIG.heartbeat_s * 1000);

// -- the store: one mutable state object and a subscriber -----------------------------------
const state = {
  board: null,
  fetchedAt: 0, // Date.now() when the board arrived
  lastOk: null, // Date of the last successful refresh
  lastContact: Date.now(),
  missed: 0,
  error: null,
  route: parseRoute(location.hash),
  notify: typeof Notification === "undefined" ? "unsupported" : Notification.permission,
  transport: "starting",
};
let redraw = () => {};
const update = (patch) => {
  Object.assign(state, patch);
  redraw();
};

// -- notifications: a session starts waiting, or a working one goes quiet --------------------
let previous = null;
function notifyTransitions(board) {
  const now = new Map(board.sessions.map((s) => [s.key, s]));
  if (previous && state.notify === "granted") {
    for (const [key, s] of now) {
      const before = previous.get(key);
      if (!before) continue;
      const name = s.title || s.project || s.display_id;
      if (before !== "needs_input" && s.state === "needs_input") {
        const what = s.waiting && s.waiting.text ? s.waiting.text : s.detail;
        show(`${s.harness_label}: ${name} is waiting on you`, what, key);
      } else if (before === "working" && s.state === "idle") {
        show(`${s.harness_label}: ${name} has gone quiet`, "It was working and has stopped writing; open it to see where it stands.", key);
      }
    }
  }
  previous = new Map([...now].map(([k, s]) => [k, s.state]));
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
async function refresh() {
  if (fetching) return fetching;
  fetching = (async () => {
    try {
      const r = await fetch("/api/data" + SUFFIX, { cache: "no-store", headers: { Accept: "application/json" } });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const board = await r.json();
      learnHarnesses(board.harnesses);
      notifyTransitions(board);
      const now = Date.now();
      const recovered = state.missed > 0 || state.error != null; // the server may have restarted
      update({ board, fetchedAt: now, lastOk: new Date(now), lastContact: now, missed: 0, error: null });
      if (recovered) reportTabLane();
      return true;
    } catch (e) {
      update({ error: String(e.message || e) });
      return false;
    } finally {
      fetching = null;
    }
  })();
  return fetching;
}

function onRevision(revision) {
  state.lastContact = Date.now();
  if (!state.board || revision !== state.board.revision) refresh();
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
      if (state.board && m.revision !== state.board.revision) refresh();
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
    if (state.board && m.revision !== state.board.revision) refresh();
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
    if (!ok) update({ missed: state.missed + 1 });
  } else {
    redraw();
  }
}, BEAT_MS);
setInterval(() => redraw(), 1000);

// -- routing and keys ---------------------------------------------------------------------------
window.addEventListener("hashchange", () => {
  update({ route: parseRoute(location.hash) });
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
  else if (ev.key === "Escape" && state.route.view === "session") {
    const p = state.route.project;
    const known = p && state.board && state.board.sessions.some((s) => (s.project || "") === p);
    go(p && known ? `#n=project:${encodeURIComponent(p)}` : "#n=sessions");
  } else if (ev.key === "Escape" && state.route.view === "project") go("#n=projects");
  else return;
  ev.preventDefault();
});

// -- the page -----------------------------------------------------------------------------------
function Header() {
  const b = state.board;
  const c = b ? b.counts : null;
  const stalled = state.missed >= 2;
  const tabs = [
    ["sessions", "Sessions", "s"],
    ["projects", "Projects", "p"],
    ["attention", "Attention", "a"],
  ];
  const current = state.route.view === "project" ? "projects" : state.route.view;
  const since = state.lastOk ? Math.round((Date.now() - state.lastOk) / 1000) : null;
  return html`<header class="top">
    <div class="brand"><a href="#n=sessions">Cargento</a></div>
    ${c
      ? html`<div class="counts" aria-live="polite">
          <span class="c-run" data-count="working">${plural(c.working, "running session")}</span>
          <span class="c-sub">${plural(c.subagents, "subagent")} observed${c.subagents ? `, ${c.subagents_running} running` : ""}</span>
        </div>`
      : null}
    ${c && c.needs_input
      ? html`<a class="blocks" href="#n=attention" data-count=${c.needs_input}>${plural(c.needs_input, "block")} reported — open Attention</a>`
      : null}
    <nav class="tabs" aria-label="Views">
      ${tabs.map(([key, label, k]) => html`<a href=${"#n=" + key} aria-current=${current === key ? "page" : undefined}
        class=${current === key ? "on" : ""} data-view=${key}>${label}${key === "attention" && c ? html` <span class="count att-count">${c.needs_input}</span>` : null}<kbd aria-hidden="true">${k}</kbd></a>`)}
    </nav>
    <div class=${"live" + (stalled ? " stalled" : "")} role="status" aria-live="polite">
      ${stalled
        ? html`<span class="dot" aria-hidden="true"></span>stalled — last successful update ${clock(state.lastOk)}${since != null ? ` (${since} s ago)` : ""}`
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
  const ctx = {
    boardNow: Date.parse(b.generated_at) + (Date.now() - state.fetchedAt),
    drift: (Date.now() - state.fetchedAt) / 1000,
    native: NATIVE,
    browserNotify: state.notify,
    recordEveryMs: BEAT_MS,
    recordKept: CONFIG.notifications != null,
  };
  const r = state.route;
  if (r.view === "projects") return html`<${ProjectsView} board=${b} ctx=${ctx} />`;
  if (r.view === "project") return html`<${ProjectView} board=${b} ctx=${ctx} project=${r.project} />`;
  if (r.view === "attention") return html`<${AttentionView} board=${b} ctx=${ctx} />`;
  if (r.view === "session") return html`<${SessionPage} board=${b} ctx=${ctx} route=${r} />`;
  return html`<${SessionsView} board=${b} ctx=${ctx} />`;
}

function App() {
  const [, setTick] = useState(0);
  useEffect(() => {
    redraw = () => setTick((n) => n + 1);
  }, []);
  return html`<${Header} /><${Strip} board=${state.board} /><main id="main" data-view=${state.route.view}><${Main} /></main>`;
}

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
refresh().then(() => {
  reportTabLane(); // on load, while permission is granted
  startLive();
});
