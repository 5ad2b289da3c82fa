// Pure formatting helpers shared by the views (no DOM, no state).

export function ago(seconds) {
  if (seconds == null || !isFinite(seconds)) return "unknown";
  const s = Math.max(0, seconds);
  if (s < 5) return "just now";
  if (s < 60) return `${Math.floor(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function duration(seconds) {
  if (seconds == null || !isFinite(seconds)) return "—";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export function clock(date) {
  if (!date) return "—";
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function rate(perMin) {
  // null is unmeasured and never a zero: an empty slot, labelled for a screen reader and a tooltip.
  if (perMin == null) return { text: "", label: "output rate unmeasured" };
  const v = perMin >= 100 ? Math.round(perMin) : Math.round(perMin * 10) / 10;
  return { text: `${v} tok/min`, label: `${v} output tokens per minute over the last ten minutes` };
}

export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many || one + "s"}`;
}

export const STATE_TEXT = { needs_input: "Needs input", working: "Working", idle: "Idle", starting: "Starting" };

export const SCANNING_NOTE = "Read by scanning: no turn end can be observed here";

export const LONG_TURN_NOTE = "This request has run, or is estimated to run, 15 minutes or more";

export const NO_ESTIMATE_NOTE = "no estimate (no comparable finished turn)";

// A short age for a column: "12s", "4m", "3h", "2d".
export function shortAge(seconds) {
  if (seconds == null || !isFinite(seconds)) return "";
  const s = Math.max(0, seconds);
  if (s < 60) return `${Math.floor(s)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

// Subagent pills of one row, each with the label it is shown under: a name two pills share is
// told apart by as much of each subagent's own id as it takes (at least six characters), or,
// where the ids cannot tell them apart, by their place: #1, #2...
export function pillLabels(subagents) {
  const groups = new Map();
  subagents.forEach((a, i) => {
    if (!groups.has(a.name)) groups.set(a.name, []);
    groups.get(a.name).push(i);
  });
  const labels = subagents.map((a) => a.name);
  for (const [name, members] of groups) {
    if (members.length < 2) continue;
    const ids = members.map((i) => subagents[i].session_id || "");
    const distinct = ids.every(Boolean) && new Set(ids).size === ids.length;
    if (!distinct) {
      members.forEach((i, n) => (labels[i] = `${name} #${n + 1}`));
      continue;
    }
    let width = 6;
    while (new Set(ids.map((x) => x.slice(0, width))).size < ids.length) width += 2;
    members.forEach((i, n) => (labels[i] = `${name} · ${ids[n].slice(0, width)}`));
  }
  return labels;
}

// Fragment routes: #n=sessions, #n=projects, #n=attention, #n=project:<p>, #n=session:<p>:<h>:<sid>
export function parseRoute(hash) {
  const raw = (hash || "").replace(/^#/, "");
  const m = raw.match(/(?:^|&)n=([^&]*)/);
  const n = m ? m[1] : "";
  const dec = (s) => {
    try {
      return decodeURIComponent(s);
    } catch (_) {
      return null;
    }
  };
  if (n === "projects" || n === "attention" || n === "sessions") return { view: n };
  // A feature's own view (slots.js); the page shows Sessions where no feature registered it.
  if (/^[a-z][a-z-]*$/.test(n)) return { view: n };
  if (n.startsWith("project:")) {
    const project = dec(n.slice(8));
    return project == null ? { view: "sessions" } : { view: "project", project };
  }
  if (n.startsWith("session:")) {
    const parts = n.slice(8).split(":").map(dec);
    if (parts.length === 3 && parts.every((p) => p != null) && parts[1] && parts[2]) {
      return { view: "session", project: parts[0], harness: parts[1], sid: parts[2] };
    }
  }
  return { view: "sessions" };
}

const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());

export function sessionHash(session) {
  return `#n=session:${enc(session.project || "")}:${enc(session.harness)}:${enc(session.session_id)}`;
}

// How a list names the sessions of *sessions*: a function of one session giving its title,
// with its display id when another session there shows the same title (two rows that read
// alike are told apart by id), and the harness and id when it published no title. The titles
// are counted once, so naming every row of a list stays linear.
export function sessionLabels(sessions) {
  const shown = new Map();
  for (const o of sessions) if (o.title) shown.set(o.title, (shown.get(o.title) || 0) + 1);
  return (s) => {
    if (!s.title) return `${s.harness_label} ${s.display_id}`;
    return shown.get(s.title) > 1 ? `${s.title} (${s.display_id})` : s.title;
  };
}

export function projectHash(project) {
  return `#n=project:${enc(project)}`;
}

export function routeHash(route) {
  if (route.view === "session") return `#n=session:${enc(route.project || "")}:${enc(route.harness)}:${enc(route.sid)}`;
  if (route.view === "project") return projectHash(route.project);
  return `#n=${route.view}`;
}

// Native (desktop) notification availability as the server checked it at start; never assumed.
// Returns { state: "available" | "unavailable" | "off" | "unknown", short, long }.
export function nativeNotifications(n) {
  if (!n) {
    return { state: "unknown", short: "desktop: unknown", long: "This dashboard was started without its notification lane, so it cannot say whether desktop notifications work here." };
  }
  const checked = n.checked_at ? ` (checked at start, ${new Date(n.checked_at).toLocaleTimeString()})` : "";
  if (!n.enabled) {
    return { state: "off", short: "desktop: off", long: `Desktop notifications are off for this run: ${n.detail}.` };
  }
  if (n.available) {
    return { state: "available", short: "desktop: available", long: `Desktop notifications are available on this machine through ${n.backend}: ${n.detail}${checked}.` };
  }
  return { state: "unavailable", short: "desktop: unavailable", long: `Desktop notifications are not available on this machine: ${n.detail}${checked}. A raise is recorded as having no backend, and a dashboard tab can still show browser notifications once permission is granted.` };
}

// This tab's own (browser) notification permission, in words.
export const BROWSER_NOTIFY_TEXT = {
  granted: "this tab shows browser notifications (permission granted)",
  default: "this tab shows no browser notifications until you enable them",
  denied: "this browser refused notifications for this page",
  unsupported: "this browser has no notifications",
};
