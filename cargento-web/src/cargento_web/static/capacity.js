// Capacity: how much allowance is left and how fast it goes. The strip below the two session
// groups, quota pressure in Attention's off-count group, and the vendor-quota consent.
//
// The server (cargento_web.capacity) does the arithmetic and sends board.capacity: windows in
// run-out order, each with its share spent, its share of time gone, its pace colour, its
// projected run-out and its reset. This module only draws them, and asks for a vendor poll
// about once a minute while the page is visible and consent is on (the server keeps the
// five-minute floor per vendor).
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "/static/vendor/htm.mjs";
import { postJSON } from "/static/api.js";
import { feature } from "/static/config.js";
import { fill, offCount } from "/static/slots.js";

const html = htm.bind(h);
const CFG = feature("capacity");

// A span of seconds as the strip says it: 45m, 2h 05m, 3d 4h.
export function span(seconds) {
  if (seconds == null || !isFinite(seconds)) return "an unknown time";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return "under a minute";
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

function secondsUntil(stamp, nowMs) {
  return stamp ? (Date.parse(stamp) - nowMs) / 1000 : null;
}

function pct(value) {
  return `${Math.round(value)}%`;
}

function nowOf(board, ctx) {
  return ctx && ctx.boardNow ? ctx.boardNow : Date.parse(board.capacity.generated_at);
}

// The two times side by side, never compared: the projected run-out and the reset.
function times(w, nowMs) {
  const parts = [];
  if (w.run_out_at) {
    const left = secondsUntil(w.run_out_at, nowMs);
    parts.push(left <= 0 ? "spent" : `at this pace runs out in ${span(left)}`);
  } else if (w.clock) {
    parts.push(w.used_percent > 0 ? "too early in the window to measure a pace" : "nothing spent yet, so no pace to extend");
  } else {
    parts.push("a level with no clock, so no pace");
  }
  parts.push(w.resets_at ? `resets in ${span(secondsUntil(w.resets_at, nowMs))}` : "reset time not published");
  return parts.join(" · ");
}

const TONE_TEXT = {
  accent: "below sustainable pace",
  amber: "at or above sustainable pace",
  clay: "at one and a half times sustainable pace or more",
  ink: "no clock supports a pace",
};

function WindowRow({ w, nowMs }) {
  const used = Math.min(Math.max(w.used_percent, 0), 100);
  const label = `${w.harness_label} ${w.name}: ${pct(w.used_percent)} of the allowance spent${w.clock ? `, ${pct(w.elapsed_percent)} of the window's time gone` : ""}; ${TONE_TEXT[w.tone]}`;
  return html`<li class=${`cap-row tone-${w.tone}`} data-key=${w.key} data-tone=${w.tone}>
    <span class="cap-name">${w.harness_label} <b>${w.name}</b></span>
    <span class="cap-bar" role="img" aria-label=${label} title=${label}>
      <span class="cap-used" style=${`width: ${used}%`}></span>
      ${w.clock ? html`<span class="cap-time" style=${`left: ${Math.min(Math.max(w.elapsed_percent, 0), 100)}%`}></span>` : null}
    </span>
    <span class="cap-figures">${pct(w.used_percent)} spent${w.clock ? html` · ${pct(w.elapsed_percent)} of its time gone${w.pace != null ? html` · pace ${w.pace.toFixed(2)}×` : null}` : null}</span>
    <span class="cap-times">${times(w, nowMs)}</span>
    ${w.detail || w.source !== "store" ? html`<span class="cap-detail muted small">${[w.detail, SOURCE_TEXT[w.source]].filter(Boolean).join(" · ")}</span>` : null}
  </li>`;
}

const SOURCE_TEXT = {
  store: "",
  pushed: "pushed by its status line",
  vendor: "read from the vendor",
  demo: "",
};

function Budget({ cap }) {
  const parts = [];
  if (cap.budget) {
    parts.push(html`<p class="cap-budget">The remaining budget of ${cap.budget.harness_label} ${cap.budget.name} buys about <b>${Math.round(cap.budget.minutes)} minutes</b> at the pace measured so far.</p>`);
  } else if (cap.windows.length) {
    parts.push(html`<p class="cap-budget muted">No window has a measured pace yet, so what the remaining budget buys is unknown.</p>`);
  }
  if (cap.worked) {
    parts.push(html`<p class="cap-worked">Sessions in <b>${cap.worked.project}</b> worked ${span(cap.worked.seconds)} over ${cap.worked.intervals} ${cap.worked.intervals === 1 ? "interval" : "intervals"} seen to open and close since ${new Date(cap.worked.since).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}, the most measured working time of any project.</p>`);
  } else {
    parts.push(html`<p class="cap-worked muted">No working interval has been seen to open and close since this dashboard started, so no working time is measured yet.</p>`);
  }
  return parts;
}

function AIUnits({ units }) {
  if (!units.length) return null;
  return html`<div class="cap-units">
    <p class="muted small">Copilot AI Units per session, read from its store. GitHub keeps the entitlement on its servers, so there is no share of an allowance to show, and units are never added up.</p>
    <ul>${units.map((u) => html`<li key=${u.key}>${u.harness_label} <span class="mono">${u.display_id}</span>${u.title ? ` ${u.title}` : ""}: <b>${u.ai_units}</b> AI Units</li>`)}</ul>
  </div>`;
}

function vendorNames() {
  const names = (CFG && CFG.vendors) || [];
  return names.length ? names.join(", ") : "no installed harness";
}

// The first-run disclosure: what is read, where, how often, and what never happens to it.
function disclosure() {
  if (!((CFG && CFG.vendors) || []).length) return "No installed harness declares a vendor usage endpoint, so nothing would be read or asked.";
  return `${vendorNames()} publish their allowance only through their vendors' servers. If you allow it, this dashboard reads the login each of them keeps on this machine, exactly where the harness keeps it (its own Keychain item on macOS, or its own file elsewhere, where it keeps one), and asks that vendor's usage endpoint at most once every five minutes while a page is open. The login is only read: never refreshed, written, logged or shown. Until you answer, nothing is read and nothing is asked.`;
}

function Consent({ cap }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(null);
  async function answer(value) {
    setBusy(true);
    const r = await postJSON("/api/capacity/consent", { consent: value });
    setBusy(false);
    setProblem(r.ok ? (r.body && r.body.persisted === false ? "The answer holds for this run but could not be saved." : null) : `The answer was not taken (${r.status}).`);
  }
  if (cap.no_usage) {
    return html`<p class="cap-consent muted small">Vendor quota is off for this run (--no-usage): no vendor is asked, and quota a status line pushes is ignored. What a harness writes into its own store still shows.</p>`;
  }
  if (CFG && CFG.demo) {
    return html`<p class="cap-consent muted small">The demo asks no vendor and reads no login: the windows marked as stand-ins show what a vendor reading looks like.</p>`;
  }
  if (cap.consent === "unanswered") {
    return html`<div class="cap-consent cap-disclosure" role="group" aria-labelledby="cap-disclosure-h">
      <p id="cap-disclosure-h"><b>Vendor quota</b></p>
      <p class="small">${disclosure()}</p>
      <button type="button" class="btn" disabled=${busy} onClick=${() => answer("on")}>Allow vendor quota</button>
      <button type="button" class="btn" disabled=${busy} onClick=${() => answer("off")}>Not now</button>
      ${problem ? html`<p class="note risk">${problem}</p>` : null}
    </div>`;
  }
  const on = cap.consent === "on";
  return html`<div class="cap-consent">
    <label class="cap-switch small" title=${disclosure()}>
      <input type="checkbox" role="switch" checked=${on} disabled=${busy} onChange=${(e) => answer(e.currentTarget.checked ? "on" : "off")} />
      Vendor quota (${vendorNames()}) ${on ? "on: asked at most once every five minutes while a page is open" : "off: no login is read and nothing is asked"}
    </label>
    ${problem ? html`<p class="note risk">${problem}</p>` : null}
  </div>`;
}

// While consent is on and this page is visible, ask the server to poll what is due.
function usePolling(fetching) {
  useEffect(() => {
    if (!fetching) return undefined;
    const ask = () => {
      if (document.visibilityState === "visible") postJSON("/api/capacity/poll", {});
    };
    ask();
    const timer = setInterval(ask, Math.max(10, (CFG && CFG.ping_s) || 60) * 1000);
    return () => clearInterval(timer);
  }, [fetching]);
}

export function CapacityStrip({ board, ctx }) {
  const cap = board && board.capacity;
  usePolling(Boolean(cap && cap.vendor_fetching));
  if (!cap) return null;
  const nowMs = nowOf(board, ctx);
  return html`<section class="capacity" aria-labelledby="h-capacity">
    <h3 id="h-capacity" class="group-h">Capacity <span class="count">${cap.windows.length}</span></h3>
    ${cap.windows.length
      ? html`<ul class="cap-rows">${cap.windows.map((w) => html`<${WindowRow} key=${w.key} w=${w} nowMs=${nowMs} />`)}</ul>`
      : html`<p class="empty">No quota window is readable right now. That is not an unspent allowance: no source has published one.</p>`}
    ${cap.withheld.length
      ? html`<ul class="cap-withheld">${cap.withheld.map((x) => html`<li key=${`${x.key}:${x.name || ""}`}>${x.harness_label}${x.name ? ` ${x.name}` : ""}: withheld, ${x.reason}</li>`)}</ul>`
      : null}
    <${Budget} cap=${cap} />
    <${AIUnits} units=${cap.ai_units} />
    <${Consent} cap=${cap} />
  </section>`;
}

// Attention, off the session count: a window at or above 70 percent, or whose projected end
// falls before its reset. These never count as sessions.
export function quotaPressure(board) {
  const cap = board && board.capacity;
  if (!cap) return [];
  const nowMs = Date.parse(cap.generated_at);
  const limit = (CFG && CFG.pressure_percent) || 70;
  return cap.windows
    .filter((w) => w.pressure)
    .map((w) => {
      // Raised by the rule, but the two times are only set side by side, never compared here.
      const why = w.used_percent >= limit ? `at or above ${limit} percent` : "raised by the pace measured so far";
      return {
        kind: "quota",
        key: `quota:${w.key}`,
        text: `${w.harness_label} quota ${w.name}: ${pct(w.used_percent)} spent${w.clock ? `, ${pct(w.elapsed_percent)} of its time gone` : ""} (${why}); ${times(w, nowMs)}.`,
      };
    });
}

if (CFG) {
  fill("sessions.below", CapacityStrip);
  offCount(quotaPressure);
}
