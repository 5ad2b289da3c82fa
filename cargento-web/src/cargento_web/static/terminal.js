// The read-only terminal prototype's own page (GET /terminal, framed by the cockpit's Console):
// xterm renders the registered pane's last lines, refetched every two seconds. Nothing typed
// here goes anywhere: xterm's input is switched off and no route accepts input.
import { Terminal } from "/static/vendor/xterm.mjs";

const term = new Terminal({ disableStdin: true, cursorBlink: false, convertEol: true, scrollback: 400, rows: 24, cols: 100, fontSize: 12 });
term.open(document.getElementById("term"));
const status = document.getElementById("term-status");
let last = null;

async function pull() {
  try {
    const r = await fetch("/api/terminal", { cache: "no-store", headers: { Accept: "application/json" } });
    const body = await r.json();
    if (!body.registered) {
      status.textContent = `Not registered: ${body.reason}.`;
    } else if (!body.available) {
      status.textContent = body.reason;
    } else {
      const text = body.lines.join("\n");
      if (text !== last) {
        last = text;
        term.reset();
        term.write(text);
      }
      status.textContent = `Pane ${body.pane}, read-only · last ${body.max_lines} lines${body.clipped ? " (clipped)" : ""} · read ${new Date(body.read_at).toLocaleTimeString()}`;
    }
    document.body.dataset.registered = body.registered ? "yes" : "no";
  } catch (e) {
    status.textContent = `The dashboard did not answer: ${e.message || e}`;
  }
}
pull();
setInterval(pull, 2000);
