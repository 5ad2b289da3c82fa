// Cargento extension for Pi: reports extension UI prompts in persisted sessions.
//
// Install: copy this file to ~/.pi/agent/extensions/cargento.js (or run
// `cargento hooks install pi`), then start a fresh Pi session.
//
// Pi hands every extension one shared UI context. This extension wraps its prompt methods
// (select, confirm, input, editor, custom) so that while any extension's prompt is open the
// Cargento dashboard shows the session waiting on you; answering or cancelling the prompt
// clears the wait. Only the session id, a request id and the kind of prompt are sent, never
// the prompt's title or the answer. A session that is not yet persisted (no session file on
// disk) is outside coverage, as is Pi's own startup trust prompt. The dashboard is found
// through its state file (CARGENTO_HOME, else ~/.cargento; CARGENTO_PORT, else 4553); with no
// dashboard running nothing is sent, and every failure is swallowed.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

const DEFAULT_PORT = 4553;
const TIMEOUT_MS = 2000;
const PROMPTS = ["select", "confirm", "input", "editor", "custom"];
const WRAPPED = Symbol.for("cargento.pi.wrapped");

function stateFile(env) {
  const port = Number.parseInt(env.CARGENTO_PORT || "", 10) || DEFAULT_PORT;
  const home = (env.CARGENTO_HOME || "").trim() || join(env.HOME || env.USERPROFILE || homedir(), ".cargento");
  return { port, path: join(home, `cargento-${port}.json`) };
}

async function send(body) {
  const { port, path } = stateFile(process.env);
  let capability = null;
  try {
    const state = JSON.parse(await readFile(path, "utf8"));
    if (state && typeof state.capability === "string") capability = state.capability;
  } catch {
    return false;
  }
  if (!capability || typeof globalThis.fetch !== "function") return false;
  try {
    const response = await globalThis.fetch(`http://127.0.0.1:${port}/api/events/pi`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Cargento-Capability": capability,
        "X-Cargento-Hook-At": (Date.now() / 1000).toFixed(3),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return response.ok;
  } catch {
    return false;
  }
}

function persistedSession(ctx) {
  try {
    const manager = ctx && ctx.sessionManager;
    if (!manager) return null;
    const file = typeof manager.getSessionFile === "function" ? manager.getSessionFile() : null;
    if (!file || !existsSync(file)) return null;
    const id = typeof manager.getSessionId === "function" ? manager.getSessionId() : null;
    return typeof id === "string" && id ? id : null;
  } catch {
    return null;
  }
}

export default function cargento(pi) {
  let latest = null;
  let seq = 0;
  let queue = Promise.resolve();
  const post = (body) => {
    queue = queue.then(() => send(body)).catch(() => false);
    return queue;
  };

  function wrap(ctx) {
    latest = ctx;
    const ui = ctx && ctx.ui;
    if (!ui || !ctx.hasUI || ui[WRAPPED]) return;
    for (const kind of PROMPTS) {
      const original = ui[kind];
      if (typeof original !== "function") continue;
      ui[kind] = async function (...args) {
        const sessionId = persistedSession(latest);
        if (!sessionId) return original.apply(this, args);
        seq += 1;
        const requestId = `${process.pid}-${Date.now()}-${seq}`;
        post({ event: "ui.prompt.opened", session_id: sessionId, request_id: requestId, prompt_kind: kind });
        try {
          return await original.apply(this, args);
        } finally {
          post({ event: "ui.prompt.closed", session_id: sessionId, request_id: requestId });
        }
      };
    }
    try {
      Object.defineProperty(ui, WRAPPED, { value: true });
    } catch {
      // a frozen UI context cannot be marked; it is wrapped once per load at worst
    }
  }

  for (const name of ["session_start", "session_switch", "before_agent_start", "agent_start", "turn_start", "tool_call"]) {
    try {
      pi.on(name, async (_event, ctx) => {
        try {
          wrap(ctx);
        } catch {
          // never disturb the session
        }
      });
    } catch {
      // an event this Pi build does not know
    }
  }
}
