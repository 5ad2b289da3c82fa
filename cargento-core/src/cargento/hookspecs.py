"""The harness hook specifications: the whole contract between core and a harness plugin.

A harness plugin is a module registered under the entry-point group ``cargento.harness``; the
entry-point name is the harness id. It implements these hooks with ``@cargento.hookimpl``.
Core never fans a hook out to every plugin at once: each call goes to the one plugin that owns
the session or the event (or, for :func:`discover`, :func:`harness_info`, :func:`event_lane` and
:func:`hook_targets` and :func:`telemetry`, to each plugin in turn), inside its own guard, so one plugin's fault never
reaches another plugin's row.

The store hooks (:func:`discover` to :func:`simulate`) read what a harness wrote. The event hooks
say what its live events mean (:func:`event_lane`, :func:`refine_event`) and where
``cargento hooks`` installs the forwarders that send them (:func:`hook_targets`).
:func:`telemetry` names what the harness's own OpenTelemetry export carries. The quota
hooks say where a harness's vendor publishes its allowance (:func:`quota_endpoint`) and how to
read what the vendor or the harness's status line publishes (:func:`read_quota`). The reading
hooks say what work of a session a drift reading may quote (:func:`work_record`) and which
installed command-line program can read one (:func:`reading_provider`).

Rules for every hook:

* Read only. Never create, write, rename or lock anything under a harness store; open SQLite
  through :func:`cargento.readers.open_ro`.
* Regular files only: open files through the readers or :func:`cargento.readers.open_regular`
  (a plain ``open()`` of a named pipe blocks until someone writes to it).
* No network, no subprocesses, no ``time.time()``: the clock is ``ctx.now``.
* Bounded work: use the bounded readers in :mod:`cargento.readers`; keep per-file state in
  ``ctx.cache`` so a refresh costs what changed.
* Raise :class:`cargento.HarnessError` for expected problems (a locked or corrupt store); it is
  shown as a one-line reason. Any other exception is recorded as a bug fault with its traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    # Annotations only (pluggy reads the parameter names, never the types): the event and
    # telemetry vocabularies load when a hook that speaks them is first called, not at start.
    from collections.abc import Mapping
    from datetime import datetime
    from pathlib import Path
    from typing import Any

    from cargento.events.payloads import LifecycleEvent
    from cargento.events.targets import HookTarget
    from cargento.events.vocabulary import EventLane
    from cargento.models import (
        Discovery,
        Gate,
        HarnessContext,
        HarnessInfo,
        ModelInfo,
        QuotaEndpoint,
        QuotaWindow,
        ReadingProvider,
        SessionReading,
        SessionRef,
        Simulation,
        Usage,
        WorkRecord,
    )
    from cargento.telemetry.vocabulary import TelemetryVocabulary

__all__ = ["HOOK_NAMES", "PROJECT", "REQUIRED_HOOKS", "hookspec"]

PROJECT = "cargento"
hookspec = pluggy.HookspecMarker(PROJECT)

#: Every hook a harness plugin may implement, in the order core calls them.
HOOK_NAMES = (
    "harness_info",
    "discover",
    "read_session",
    "gate_state",
    "model",
    "usage",
    "simulate",
    "event_lane",
    "refine_event",
    "hook_targets",
    "telemetry",
    "quota_endpoint",
    "read_quota",
    "work_record",
    "reading_provider",
)
#: Hooks a plugin must implement to be loaded.
REQUIRED_HOOKS = ("harness_info", "discover", "read_session")


@hookspec
def harness_info() -> HarnessInfo:  # type: ignore[empty-body]
    """Say who this harness is and what its store can tell.

    Called once when the plugin is loaded, before any other hook.

    :returns: a :class:`~cargento.models.HarnessInfo` whose ``key`` equals the plugin's
        entry-point name. A plugin whose key differs is not loaded (status ``invalid``).

    .. versionadded:: 0.1
    """


@hookspec
def discover(ctx: HarnessContext) -> Discovery:  # type: ignore[empty-body]
    """Find this harness's stores and the sessions in them.

    Called once per board build (and by ``cargento --diagnose``), before any session is read.
    Resolve store roots with :func:`cargento.locations.resolve_root` so relocation variables
    are authoritative. Report every path searched in ``locations`` with what is there
    (``missing``, ``unreadable`` or ``present``) even when nothing was found, because that is
    what ``--diagnose`` shows. Return one :class:`~cargento.models.SessionRef` per session with
    a cheap ``modified_at`` (a ``stat``, never a parse) so core can apply the display window
    before reading. A sub-store that cannot be listed is skipped and named in ``problems``.

    Walk folders with :func:`cargento.readers.glob_files` or :func:`cargento.readers.scan_dir`
    and open files only through the readers or :func:`cargento.readers.open_regular`: a link
    loop, a dangling link, a named pipe with a session's name or a file that cannot be read is
    then skipped on its own, and named in ``problems`` as ``<path>: <cause>`` (see
    :func:`cargento.readers.unreadable`), never hiding its neighbours or blocking the board.
    ``--diagnose`` lists every such line as an unreadable store and exits non-zero.

    :param ctx: the clock, environment, home directory, platform, window and cache.
    :returns: a :class:`~cargento.models.Discovery`; never ``None``. A harness with no data on
        this machine returns its locations with status ``missing`` and no sessions.

    .. versionadded:: 0.1
    """


@hookspec
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one session this plugin discovered.

    Called for each :class:`~cargento.models.SessionRef` inside the display window whose
    ``fingerprint`` changed since the last build (or that has none). Record facts, not
    verdicts: timestamps of activity, what the store says about the current turn
    (:class:`~cargento.models.TurnEvidence`), tasks, subagents, title, cwd, the latest
    instruction. Core derives the state, the detail line, the turn estimate and the project
    label from them the same way for every harness.

    A child session (a subagent with its own store) sets ``parent_id`` and ``agent_name``;
    core folds it onto its parent's row as a pill, and keeps it as a row of its own when the
    parent is not on the board.

    :param ref: a session returned by this plugin's :func:`discover`.
    :param ctx: the clock, environment and the plugin's cache.
    :returns: a :class:`~cargento.models.SessionReading`, or ``None`` when the ref turned out
        not to be a session (for example a file holding only metadata records) or is gone
        (deleted since :func:`discover` listed it: no row, and not a fault). Raise
        :class:`~cargento.HarnessError` for a store that is there and cannot be read.

    .. versionadded:: 0.1
    """


@hookspec
def gate_state(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    """Say whether the session stands at a gate waiting on the human.

    Called after :func:`read_session` for every session read, on every board build (a gate's
    standing changes with the clock even when no file does). Only harnesses whose store
    records waits implement it. Say what is asked only where the harness allows: a Copilot
    gate names the kind (command or URL), never the command.

    :param reading: this plugin's reading of the session.
    :param ctx: the clock, environment and the plugin's cache.
    :returns: a :class:`~cargento.models.Gate`, or ``None`` when the store records no standing
        wait. ``None`` is not an all-clear: whether the harness can report waits at all is
        declared in :class:`~cargento.models.HarnessInfo`.

    .. versionadded:: 0.1
    """


@hookspec
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """Name the model the session uses, exactly as the harness's own records write it.

    Called after :func:`read_session` for every session read.

    :param reading: this plugin's reading of the session.
    :param ctx: the clock, environment and the plugin's cache.
    :returns: a :class:`~cargento.models.ModelInfo`, or ``None`` when the store names no
        model (never a guess from the harness's current default).

    .. versionadded:: 0.1
    """


@hookspec
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Measure the session's consumption: output tokens in the last ten minutes, totals,
    rate-limit snapshots and AI Units, where the store records them.

    Called after :func:`read_session` for every session read, on every board build (the
    window slides with ``ctx.now``). Count each API response once.

    :param reading: this plugin's reading of the session.
    :param ctx: the clock, environment and the plugin's cache.
    :returns: a :class:`~cargento.models.Usage` whose unmeasured fields are ``None``, or
        ``None`` when nothing is measured. Never report an unmeasured figure as zero.

    .. versionadded:: 0.1
    """


@hookspec
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    """Write a realistic demo store for this harness under *home* and keep it live.

    Called once by ``cargento --demo``, with *home* a fresh temporary directory that stands in
    for the user's home directory (``ctx.home`` is the same path and ``ctx.env`` points every
    relocation variable there). Write the store exactly as the harness would (the same store
    builders your tests use): some finished sessions from earlier, and sessions that are live
    now. Return a :class:`~cargento.models.Simulation` whose ``step(now)`` the demo calls about
    once a second to append what the harness would have written by *now* (turns starting and
    ending, tool calls, tokens, tasks advancing, subagents coming and going, waits and their
    answers). This is the one hook that writes, and only ever below *home*. A simulation
    with a ``close()`` method (for example one holding database connections open, as a running
    harness does) has it called when the demo stops, before the demo home is removed.

    A simulation may also play the harness's hooks, so the surfaces fed by lifecycle events
    (the irreversible-command reports, for one) appear in the demo too: give it a
    ``drain_events()`` method returning the hook bodies its steps produced since the last call,
    each exactly as the harness's hook would post it to ``POST /api/events/<key>`` (a Claude
    Code ``PostToolUse`` with its ``session_id``, ``tool_name`` and ``tool_input``, say),
    naming a session its store really holds. The demo calls it after every ``step`` and the
    dashboard feeds each body to its event hub through the same ingestion a real hook's post
    takes; nothing else about the demo changes (with ``--no-events`` they are dropped).

    :param home: the demo home; nothing outside it may be touched.
    :param ctx: the clock (``ctx.now`` is the demo's start), environment and cache.
    :returns: a :class:`~cargento.models.Simulation`, or ``None`` when the plugin offers no demo.

    .. versionadded:: 0.1
    """


@hookspec
def event_lane() -> EventLane | None:
    """Declare this harness's live-event vocabulary: the lane ``POST /api/events/<key>`` serves.

    Called once per registry (the table is built once, so the event path costs one dictionary
    lookup). Only harnesses whose hooks or adapters forward lifecycle events implement it.
    Map each of the harness's own hook event names to one of core's kinds
    (:data:`cargento.events.payloads.EventKind`: ``turn_started``, ``turn_stopped``,
    ``permission``, ``tool_finished``, ``notification``, ``wait_opened``, ``status``, ...), name
    the adapter that feeds the lane, and set the flags: ``receives_notify`` (this lane takes
    ``POST /api/notify``), ``reports_irreversible`` (its finished shell commands feed the
    irreversible-command reports), ``unnamed_event``/``status_fields`` (how a body that names no
    event is read). Core then parses every body the same way; names the table does not list are
    accepted and ignored.

    :returns: an :class:`~cargento.events.vocabulary.EventLane`, or ``None`` for no lane.

    .. versionadded:: 0.2
    """


@hookspec
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:  # type: ignore[empty-body]
    """Apply this harness's own payload rules to an event core has read generically.

    Called for every accepted event on this plugin's lane (and for ``POST /api/notify`` when
    the lane receives it), after core's generic reading, on the server's event path: keep it
    to field lookups, no I/O. Use it for what the table cannot say: a permission gate that
    carries no text (the harness never says which), a prompt's own wording, a notification
    detail that makes a gate a command gate, a notification message that becomes gate text.
    Return ``attrs.evolve(event, ...)``; never change ``harness`` or ``session_id``. A fault
    keeps the generic event.

    :param event: the generic :class:`~cargento.events.payloads.LifecycleEvent`.
    :param body: the raw JSON body as received (untrusted: check every type).
    :returns: the refined event (the same event when nothing applies).

    .. versionadded:: 0.2
    """


@hookspec
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:  # type: ignore[empty-body]
    """Declare where ``cargento hooks install/remove/show`` puts this harness's hooks.

    Called by ``cargento hooks`` (never by the dashboard). Resolve each path the way the
    harness does, with your own relocation variables (a config directory variable wins over
    the home default); a target installed per project reads *project* and, when it is
    ``None``, returns the target with ``path=None`` and ``unavailable`` saying to pass
    ``--project``. Core's one merge engine writes every target: hooks merged into a settings
    file (``style="settings"``: the events, the forwarder and its arguments, sync/async and
    timeout), a status line (``style="status_line"``), or a bundled adapter file copied
    (``style="adapter_file"`` with its ``adapter_text``). Target names are unique across
    plugins; the first is usually the harness key.

    :param env: the environment of the command (read relocation variables here).
    :param home: the user's home directory.
    :param project: ``--project DIR`` when given.
    :returns: a tuple of :class:`~cargento.events.targets.HookTarget` (empty for none).

    .. versionadded:: 0.2
    """


@hookspec
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary | None:
    """Declare the names this harness's own OpenTelemetry export uses, and how to switch it on.

    Called once per run by the dashboard's OTLP receiver and by ``cargento telemetry``. Only
    harnesses that export OpenTelemetry implement it. Take the names from the harness's own
    documentation: the resource ``service.name`` values, the attributes that carry the
    session id, the metric or log event that carries exact output tokens (and cost, API
    errors and tool decisions where the harness reports them), and any local file it writes
    telemetry to. The setup says what the harness needs to export to *endpoint* (the
    receiver's base URL, ``http://127.0.0.1:4318``) with prompt logging left off.

    Telemetry never decides a session's state: it corroborates figures the store reading
    already shows, and a feed that goes quiet is shown as stale.

    :param env: the environment (read relocation variables here).
    :param home: the user's home directory.
    :param endpoint: the OTLP/HTTP base URL exports should go to.
    :returns: a :class:`~cargento.telemetry.TelemetryVocabulary`, or ``None``.

    .. versionadded:: 0.3
    """


@hookspec
def quota_endpoint(env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint | None:
    """Declare the vendor endpoint that publishes this harness's allowance, and where the
    harness keeps the login that may ask it.

    Called once per dashboard run. Declaring reads nothing: the capacity feature reads the
    login, exactly where this says the harness keeps it, only after the reader has answered
    the page's disclosure with consent (never under ``--no-usage``), sends it only as the
    bearer token of this one request, at most once per five minutes while a page is open, and
    never refreshes, writes, logs or serves it. Say where *this* harness keeps its login on
    *platform*; where that is unverified, return an endpoint with ``unavailable`` saying so
    rather than a guessed path. The reply is read by :func:`read_quota` with ``source="reply"``.

    :param env: the environment the dashboard reads (a relocation variable moves the login's
        file with the store).
    :param home: the home directory.
    :param platform: ``linux``, ``darwin`` or ``win32``.
    :returns: a :class:`~cargento.models.QuotaEndpoint`, or ``None`` when the harness's vendor
        publishes no allowance.

    .. versionadded:: 0.2
    """


@hookspec
def read_quota(document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:  # type: ignore[empty-body]
    """Read the allowance windows in a quota document this harness's side published.

    *source* says which document: ``reply``, the JSON reply of this plugin's
    :func:`quota_endpoint`; or ``pushed``, the quota block the harness's status line pushed
    (``POST /api/usage``, or a ``status`` event's ``quota`` on its event lane). Called on the
    server's request path: field lookups only, no I/O. The document is untrusted: check every
    type, bound every string.

    :param document: the parsed JSON (any shape).
    :param source: ``reply`` or ``pushed``.
    :param now: the moment it was received (a reading's time, and the anchor of relative resets).
    :returns: the windows read, in a stable order, each name once; ``()`` when the document holds
        no readable window (the dashboard then withholds the reading and says so, never a zero).

    .. versionadded:: 0.2
    """


@hookspec
def work_record(ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord | None:
    """Say what a session demonstrably did, for a drift reading to set against your words.

    Called by the dashboard's observer when a reading of this harness's session is prepared
    (never on the board's refresh path), and with ``tool_output=False`` to word its disclosure.
    Only harnesses whose store records the session's work implement it (each command run with
    what it printed, each file written, each tool result); a harness that does not is shown as
    "Cargento can't read work from this harness", and only its instructions, tasks,
    dispatches and gate are sent.

    With ``tool_output=False`` read nothing: return the record's ``describes`` wording and no
    lines. With ``tool_output=True`` read the session's own files (read-only, through the
    bounded readers in :mod:`cargento.readers`) and return one line per piece of work, oldest
    first, with at most the last 180 characters of each output. When the session's file is not
    found, return a record with no lines and a note saying so, never an empty "all clear".
    Lines are redacted by the dashboard before anything is counted or sent.

    :param ref: the session, as ``discover`` last found it (``path`` may be empty when the
        session is no longer in the discovery; locate it by ``session_id`` then).
    :param ctx: the usual context (environment, home, clock, cache).
    :param tool_output: whether the reader allowed tool output for the reading's destination.
    :returns: a :class:`~cargento.models.WorkRecord`, or ``None`` when this session has no work
        record.

    .. versionadded:: 0.3
    """


@hookspec
def reading_provider() -> ReadingProvider | None:
    """Declare the command-line program this harness ships that can read a session for a drift
    reading: non-interactively, with no tools, in a read-only mode, the prompt on standard input.

    Called once per dashboard run (and on each route check, which looks the executable up on
    ``PATH``; nothing is run until the reader presses the button and allows the provider). A
    session of this harness is read by its own provider first when it is installed, then by the
    others in :attr:`~cargento.models.ReadingProvider.default_rank` order; a harness with no
    provider of its own uses that order directly. The argv is printed, exactly, in the
    disclosure beside the button and in ``docs/readings.md``: keep both true.

    :returns: a :class:`~cargento.models.ReadingProvider`, or ``None`` when this harness ships
        no such program.

    .. versionadded:: 0.3
    """
