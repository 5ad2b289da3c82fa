// Telemetry in: a row whose figures come from its harness's own OpenTelemetry says so (the
// OTel mark), and the session page lists those exact figures. A feed gone quiet is "stale",
// never zero. Telemetry never decides a row's state.
import { h } from "preact";
import htm from "/static/vendor/htm.mjs";
import { feature } from "/static/config.js";
import { ago, rate } from "/static/format.js";
import { fill } from "/static/slots.js";
import { since } from "/static/views.js";

const html = htm.bind(h);
const CONFIG = feature("telemetry");

function figuresOf(board, session) {
  const t = board && board.telemetry;
  return t && t.sessions ? t.sessions[session.key] || null : null;
}

function isStale(f, ctx) {
  const age = since(ctx, f.last_at);
  const after = CONFIG ? CONFIG.stale_after_s : 150;
  return age != null && age > after;
}

function describe(f, ctx) {
  const parts = [];
  if (f.output_tokens != null) parts.push(`${f.output_tokens.toLocaleString()} output tokens (${rate(f.output_tokens_per_min).text || "rate unmeasured"})`);
  if (f.cost_usd != null) parts.push(`$${f.cost_usd.toFixed(2)}`);
  if (f.api_errors) parts.push(`${f.api_errors} API error${f.api_errors === 1 ? "" : "s"}`);
  const heard = ago(since(ctx, f.last_at));
  return `From this harness's own telemetry${f.tokens_from ? ` (${f.tokens_from})` : ""}: ${parts.join(", ") || "no figure yet"}; last heard ${heard}`;
}

function TelemetryMark({ session, ctx, board }) {
  const f = figuresOf(board || ctx.board, session);
  if (!f) return null;
  const stale = isStale(f, ctx);
  const text = stale ? `Telemetry feed stale: nothing since ${ago(since(ctx, f.last_at))}; its figures are not current` : describe(f, ctx);
  return html` <span class=${"otel-mark" + (stale ? " stale" : "")} data-otel=${stale ? "stale" : "live"} title=${text}>OTel<span class="sr-only">: ${text}</span></span>`;
}

function TelemetrySection({ session, ctx, board }) {
  if (!session) return null;
  const f = figuresOf(board, session);
  if (!f) return null;
  const stale = isStale(f, ctx);
  const decisions = Object.entries(f.decisions || {});
  return html`<section class="telemetry" aria-labelledby="h-telemetry">
    <h3 id="h-telemetry">Telemetry ${stale ? html`<span class="otel-mark stale">stale</span>` : null}</h3>
    <p class="muted small">Exact figures from ${session.harness_label}'s own OpenTelemetry export. They corroborate the row; they never decide its state.
      ${stale ? " The feed has gone quiet, so these figures are as of its last delivery." : ""}</p>
    <dl class="facts">
      <dt>Output tokens</dt><dd>${f.output_tokens == null ? html`<span class="muted">not reported</span>` : f.output_tokens.toLocaleString()}</dd>
      <dt>Output rate (10 min)</dt><dd>${f.output_tokens_per_min == null ? html`<span class="muted">not reported</span>` : rate(f.output_tokens_per_min).text}</dd>
      <dt>Cost</dt><dd>${f.cost_usd == null ? html`<span class="muted">not reported by this harness</span>` : `$${f.cost_usd.toFixed(4)}`}</dd>
      <dt>API errors</dt><dd>${f.api_errors}</dd>
      ${decisions.length ? html`<dt>Tool decisions</dt><dd>${decisions.map(([k, n]) => `${k} ${n}`).join(", ")}</dd>` : null}
      <dt>First heard</dt><dd>${f.first_at ? ago(since(ctx, f.first_at)) : html`<span class="muted">not recorded</span>`}</dd>
      <dt>Last heard</dt><dd>${ago(since(ctx, f.last_at))}</dd>
    </dl>
  </section>`;
}

// Attention's coverage details: whether the receiver listens, and which harnesses feed it.
function TelemetryCoverage({ board, ctx }) {
  const t = board && board.telemetry;
  if (!t) return null;
  const r = t.receiver || {};
  const listening = r.state === "listening";
  const where = listening
    ? `listening on 127.0.0.1:${r.port}`
    : r.state === "failed"
      ? `not listening: ${r.reason}`
      : `off: ${r.reason || "not started"}`;
  const feeds = Object.entries(t.feeds || {}).sort(([a], [b]) => a.localeCompare(b));
  const fed = feeds.length
    ? feeds.map(([h, f]) => `${h} ${isStale({ last_at: f.last_at }, ctx) ? "stale since" : "last fed"} ${ago(since(ctx, f.last_at))}`).join(", ")
    : "no harness has fed it this run";
  return html`<p class="telemetry-coverage" data-receiver=${r.state || "off"}>Telemetry receiver: ${where}; ${fed}. Telemetry corroborates figures and never decides a state.</p>`;
}

fill("row.marks", TelemetryMark, (board, s, ctx) => {
  const f = figuresOf(board, s);
  return f ? [isStale(f, ctx), describe(f, ctx), ago(since(ctx, f.last_at))] : null;
});
fill("attention.coverage", TelemetryCoverage);
fill("session.sections", TelemetrySection);
