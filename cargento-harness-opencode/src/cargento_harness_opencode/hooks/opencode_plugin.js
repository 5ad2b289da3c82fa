// Cargento passive plugin for OpenCode: reports a parent session's permission waits.
//
// Install: copy this file to <project>/.opencode/plugin/cargento.js (or run
// `cargento hooks install opencode --project <project>`), then start a fresh OpenCode
// session. Remove the copy and start a fresh session to uninstall.
//
// It listens to OpenCode's own bus events and never answers anything: a parent session's
// `permission.asked` opens a wait on the Cargento dashboard, the matching
// `permission.replied` closes it. Child (subagent) sessions and question events are left
// unclaimed. Only the session id and the request id are sent, never what was asked.
// The dashboard is found through its state file (CARGENTO_HOME, else ~/.cargento;
// CARGENTO_PORT, else 4553); with no dashboard running nothing is sent. Every failure is
// swallowed: this plugin must never disturb the session it watches.

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

const DEFAULT_PORT = 4553;
const TIMEOUT_MS = 2000;
const PENDING_LIMIT = 256;

function stateFile(env) {
  const port = Number.parseInt(env.CARGENTO_PORT || "", 10) || DEFAULT_PORT;
  const home = (env.CARGENTO_HOME || "").trim() || join(env.HOME || env.USERPROFILE || homedir(), ".cargento");
  return { port, path: join(home, `cargento-${port}.json`) };
}

async function capability(env) {
  const { port, path } = stateFile(env);
  try {
    const state = JSON.parse(await readFile(path, "utf8"));
    if (state && typeof state.capability === "string" && state.capability) {
      return { port, capability: state.capability };
    }
  } catch {
    // No dashboard, or one started with --no-events: stay silent.
  }
  return null;
}

// Not exported: OpenCode treats every exported function as a plugin.
async function send(body, env = process.env, fetchImpl = globalThis.fetch) {
  const found = await capability(env);
  if (!found || typeof fetchImpl !== "function") return false;
  try {
    const response = await fetchImpl(`http://127.0.0.1:${found.port}/api/events/opencode`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Cargento-Capability": found.capability,
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

async function isParent(client, sessionID) {
  try {
    const found = await client.session.get({ path: { id: sessionID } });
    const info = found && (found.data ?? found);
    if (!info || typeof info !== "object") return false;
    return !info.parentID;
  } catch {
    return false; // unknown: claim nothing
  }
}

export const CargentoPlugin = async ({ client }) => {
  // request id -> session id, for the parent waits this plugin reported.
  const pending = new Map();
  let queue = Promise.resolve();
  const post = (body) => {
    queue = queue.then(() => send(body)).catch(() => false);
    return queue;
  };
  return {
    event: async ({ event }) => {
      try {
        if (!event || typeof event.type !== "string") return;
        const props = event.properties || {};
        if (event.type === "permission.asked") {
          const sessionID = props.sessionID;
          const requestID = props.id;
          if (typeof sessionID !== "string" || typeof requestID !== "string") return;
          if (!(await isParent(client, sessionID))) return;
          pending.set(requestID, sessionID);
          if (pending.size > PENDING_LIMIT) pending.delete(pending.keys().next().value);
          await post({ event: "permission.asked", session_id: sessionID, request_id: requestID });
        } else if (event.type === "permission.replied") {
          const requestID = props.requestID ?? props.permissionID ?? props.id;
          if (typeof requestID !== "string" || !pending.has(requestID)) return;
          const sessionID = pending.get(requestID);
          pending.delete(requestID);
          await post({ event: "permission.replied", session_id: sessionID, request_id: requestID });
        }
      } catch {
        // never disturb the session
      }
    },
  };
};
