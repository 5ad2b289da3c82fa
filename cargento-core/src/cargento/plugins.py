"""Loading harness plugins one at a time, and calling them one at a time.

Every entry point in the ``cargento.harness`` group ends with exactly one recorded status:
``loaded``, ``blocked``, ``incompatible``, ``import-error``, ``invalid`` or ``duplicate``.
Nothing here ever aborts the process, and a broken plugin never stops another from loading
or being called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import attrs
import pluggy

from cargento import entrypoints, hookspecs, releaseprefix
from cargento.errors import HarnessError
from cargento.models import HarnessInfo
from cargento.sharedmethods import shared_methods

__all__ = [
    "ENTRY_POINT_GROUP",
    "Fault",
    "FaultKind",
    "Ok",
    "PluginRecord",
    "Registry",
    "load_registry",
]

ENTRY_POINT_GROUP = "cargento.harness"
Status = Literal["loaded", "blocked", "incompatible", "import-error", "invalid", "duplicate"]
#: ``expected`` (a HarnessError), ``bug`` (any other exception) or ``contract`` (a plugin broke
#: the hook's contract: a wrong return type, or a value core refuses).
FaultKind = Literal["expected", "bug", "contract"]
#: How many faults each harness keeps (the count in ``Registry.fault_counts`` goes on).
FAULTS_KEPT = 20

#: What each hook may return, as ``module:name`` (``None`` allowed where it is listed). The
#: types are looked up on a hook's first call (:func:`_expected`), so a run that never asks for
#: an event lane or a telemetry vocabulary never imports those modules.
_RETURNS: dict[str, tuple[str, ...]] = {
    "harness_info": ("cargento.models:HarnessInfo",),
    "discover": ("cargento.models:Discovery",),
    "read_session": ("cargento.models:SessionReading", "None"),
    "gate_state": ("cargento.models:Gate", "None"),
    "model": ("cargento.models:ModelInfo", "None"),
    "usage": ("cargento.models:Usage", "None"),
    "simulate": ("cargento.models:Simulation", "None"),
    "event_lane": ("cargento.events.vocabulary:EventLane", "None"),
    "refine_event": ("cargento.events.payloads:LifecycleEvent",),
    "hook_targets": ("builtins:tuple",),
    "telemetry": ("cargento.telemetry.vocabulary:TelemetryVocabulary", "None"),
    "quota_endpoint": ("cargento.models:QuotaEndpoint", "None"),
    "read_quota": ("builtins:tuple",),
    "work_record": ("cargento.models:WorkRecord", "None"),
    "reading_provider": ("cargento.models:ReadingProvider", "None"),
}
_expected_types: dict[str, tuple[type, ...]] = {}


def _expected(hook: str) -> tuple[type, ...] | None:
    """The types *hook* may return (``None`` for a hook without a declared return)."""
    found = _expected_types.get(hook)
    if found is None:
        names = _RETURNS.get(hook)
        if names is None:
            return None
        found = tuple(_named_type(name) for name in names)
        _expected_types[hook] = found
    return found


def _named_type(name: str) -> type:
    if name == "None":
        return type(None)
    module, _, attribute = name.partition(":")
    found: type = getattr(importlib.import_module(module), attribute)
    return found


def _format_exc() -> str:
    """The traceback of the exception being handled (:mod:`traceback` loads on the first)."""
    import traceback

    return traceback.format_exc()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class PluginRecord:
    """What became of one harness plugin."""

    name: str
    status: Status
    dist: str | None = None
    version: str | None = None
    module: str | None = None
    hooks: tuple[str, ...] = ()
    requires_core: str | None = None
    error: str | None = None
    traceback: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Fault:
    """A failed hook call, attributed to its harness."""

    harness: str
    hook: str
    #: ``expected`` (a HarnessError), ``bug`` (any other exception) or ``contract`` (wrong type,
    #: or a value core refuses). See :data:`FaultKind`.
    kind: str
    message: str
    at: datetime
    traceback: str | None = None


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Ok:
    value: Any


def _core_version() -> str:
    from cargento import __version__

    return __version__


def _env_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [x.strip() for x in value.split(",") if x.strip()]


class Registry:
    """The loaded harness plugins, their records, and guarded per-harness calls."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.records: dict[str, PluginRecord] = {}
        self.harnesses: dict[str, HarnessInfo] = {}
        self.faults: dict[str, list[Fault]] = {}
        self.fault_counts: dict[str, int] = {}
        self._callers: dict[tuple[str, str], Any] = {}
        self._implements: dict[tuple[str, str], bool] = {}
        self._clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    # -- registration -------------------------------------------------------------------

    def add(
        self,
        plugin: object,
        name: str,
        *,
        dist: str | None = None,
        version: str | None = None,
        requires_core: str | None = None,
    ) -> PluginRecord:
        """Register *plugin* under harness id *name* and record the outcome."""
        module = getattr(plugin, "__name__", type(plugin).__name__)
        base: dict[str, Any] = {
            "name": name,
            "dist": dist,
            "version": version,
            "module": module,
            "requires_core": requires_core,
        }
        if name in self.records and self.records[name].status == "loaded":
            return self._record(
                PluginRecord(
                    status="duplicate",
                    error=f"harness id {name!r} is already taken by {self.records[name].dist or self.records[name].module}",
                    **base,
                )
            )
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            self._drop(plugin, name)
            return self._record(PluginRecord(status="invalid", error=str(exc), **base))
        except ValueError as exc:
            return self._record(PluginRecord(status="duplicate", error=str(exc), **base))
        # A caller made before this registration leaves out only the plugins registered then,
        # so it would take this one in too (harness_info, called for each plugin as it loads,
        # answered the last plugin's info for every harness once all had loaded).
        self._callers.clear()
        hooks = tuple(sorted(h.name for h in (self.pm.get_hookcallers(plugin) or [])))
        unknown = [h for h in hooks if h not in hookspecs.HOOK_NAMES]
        missing = [h for h in hookspecs.REQUIRED_HOOKS if h not in hooks]
        if unknown or missing:
            self._drop(plugin, name)
            why = []
            if unknown:
                why.append("unknown hook(s): " + ", ".join(unknown))
            if missing:
                why.append("missing required hook(s): " + ", ".join(missing))
            return self._record(PluginRecord(status="invalid", hooks=hooks, error="; ".join(why), **base))
        info = self.call(name, "harness_info")
        if isinstance(info, Fault) or not isinstance(info.value, HarnessInfo):
            self._drop(plugin, name)
            msg = info.message if isinstance(info, Fault) else "harness_info returned nothing"
            return self._record(PluginRecord(status="invalid", hooks=hooks, error=msg, **base))
        if info.value.key != name:
            self._drop(plugin, name)
            return self._record(
                PluginRecord(
                    status="invalid",
                    hooks=hooks,
                    error=f"harness_info key {info.value.key!r} differs from entry-point name {name!r}",
                    **base,
                )
            )
        self.harnesses[name] = info.value
        return self._record(PluginRecord(status="loaded", hooks=hooks, **base))

    def note(self, record: PluginRecord) -> PluginRecord:
        """Record a plugin that was not registered (blocked, incompatible, import error)."""
        return self._record(record)

    def _record(self, record: PluginRecord) -> PluginRecord:
        if record.name not in self.records or self.records[record.name].status != "loaded":
            self.records[record.name] = record
        else:
            self.records[f"{record.name}#{len(self.records)}"] = record
        return record

    def _drop(self, plugin: object, name: str) -> None:
        try:
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
        except Exception:  # pragma: no cover - pluggy leaves state behind rarely
            pass
        self._callers = {k: v for k, v in self._callers.items() if k[0] != name}
        self._implements = {k: v for k, v in self._implements.items() if k[0] != name}
        self.pm.set_blocked(name)
        self.pm.unblock(name)

    # -- calls --------------------------------------------------------------------------

    def _caller(self, harness: str, hook: str) -> Any:
        """*hook* of the one plugin *harness*: pluggy's caller without the plugins registered
        now (so :meth:`add` drops every cached caller when it registers another)."""
        key = (harness, hook)
        caller = self._callers.get(key)
        if caller is None:
            others = [p for n, p in self.pm.list_name_plugin() if n != harness and p is not None]
            caller = self.pm.subset_hook_caller(hook, remove_plugins=others)
            self._callers[key] = caller
        return caller

    def implements(self, harness: str, hook: str) -> bool:
        """True when the loaded plugin *harness* implements *hook* (cached per pair)."""
        key = (harness, hook)
        known = self._implements.get(key)
        if known is None:
            plugin = self.pm.get_plugin(harness)
            known = plugin is not None and any(h.name == hook for h in (self.pm.get_hookcallers(plugin) or []))
            self._implements[key] = known
        return known

    def call(self, harness: str, hook: str, **kwargs: Any) -> Ok | Fault:
        """Call *hook* on the one plugin *harness*, guarded; never raises."""
        try:
            results = self._caller(harness, hook)(**kwargs)
            value = results[0] if results else None
        except HarnessError as exc:
            return self.record_fault(harness, hook, str(exc) or type(exc).__name__, kind="expected")
        except Exception as exc:
            return self.record_fault(harness, hook, f"{type(exc).__name__}: {exc}", kind="bug", traceback=_format_exc())
        expected = _expected(hook)
        if expected is not None and not isinstance(value, expected):
            names = " or ".join("None" if t is type(None) else t.__name__ for t in expected)
            return self.record_fault(
                harness, hook, f"{hook} returned {type(value).__name__}, expected {names}", kind="contract"
            )
        return Ok(value)

    def record_fault(
        self,
        harness: str,
        hook: str,
        message: str,
        *,
        kind: FaultKind = "contract",
        traceback: str | None = None,
    ) -> Fault:
        """Attribute a fault to *harness*'s *hook*, exactly as a failed :meth:`call` does.

        For faults found outside a call: a hook that returned, but returned something core
        refuses (a session of another harness, say). The fault is kept with the harness's
        recent faults (the newest :data:`FAULTS_KEPT`), counted in :attr:`fault_counts`, shown
        on its strip entry on the next board and by ``cargento --diagnose``. The message is cut
        to 500 characters. Returns the recorded :class:`Fault`.
        """
        fault = Fault(
            harness=harness, hook=hook, kind=kind, message=message[:500], traceback=traceback, at=self._clock()
        )
        bucket = self.faults.setdefault(harness, [])
        bucket.append(fault)
        del bucket[:-FAULTS_KEPT]
        self.fault_counts[harness] = self.fault_counts.get(harness, 0) + 1
        return fault

    def last_fault(self, harness: str) -> Fault | None:
        """The newest fault kept for *harness*, or ``None`` when it has none."""
        kept = self.faults.get(harness)
        return kept[-1] if kept else None

    def loaded(self) -> list[str]:
        """Harness ids that loaded, in a stable order."""
        return sorted(self.harnesses)

    def relocation_variables(self) -> tuple[str, ...]:
        """Every relocation variable a loaded plugin declares
        (:attr:`~cargento.models.HarnessInfo.relocation_variables`), sorted, each once."""
        return tuple(sorted({v for info in self.harnesses.values() for v in info.relocation_variables}))

    def failed(self) -> list[PluginRecord]:
        """Installed plugins that did not load for a reason other than being switched off."""
        return [r for r in self.records.values() if r.status not in ("loaded", "blocked")]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _Candidate:
    """A plugin to load: its harness id, how to import it, and the distribution it came from."""

    name: str
    load: Callable[[], object]
    dist_name: str | None = None
    dist_version: str | None = None
    requires: tuple[str, ...] = ()


def _constant(value: object) -> Callable[[], object]:
    return lambda: value


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
#: What a bare specifier list (``>=0.1,<0.2``, ``==0.1.*``) is written with: no extras,
#: marker, URL or parenthesis, which only the full requirement parser reads.
_SPECIFIER_CHARACTERS = _NAME_CHARACTERS | frozenset("<>=!~*,+ \t")


def _requires_core(requires: Sequence[str]) -> str | None:
    """The specifier of the distribution's unconditional ``cargento-core`` requirement.

    A ``Requires-Dist`` line naming another distribution is passed over by its name alone,
    and ``cargento-core`` followed by a bare specifier list is read with
    :class:`~packaging.specifiers.SpecifierSet`; anything else goes through the full PEP 508
    parser. (``packaging.requirements`` and its marker grammar cost every start about 8 ms,
    for lines that are nearly always ``cargento-core==0.1.*``.) The answer is the same as the
    full parser's for every line (a test holds it to that).
    """
    for raw in requires:
        text = raw.strip()
        end = 0
        while end < len(text) and text[end] in _NAME_CHARACTERS:
            end += 1
        if not _names_core(text[:end]):
            continue  # a requirement of another distribution, or one no parser reads
        rest = text[end:]
        if releaseprefix.plain_specifier(rest):
            return rest  # ``==0.1.*`` or ``<1,>=0.1``, as SpecifierSet writes it back
        # SpecifierSet passes over an empty clause (``cargento-core,<1``); PEP 508 does not.
        if _SPECIFIER_CHARACTERS.issuperset(rest) and all(part.strip() for part in rest.split(",")):
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                return str(SpecifierSet(rest)) or None
            except InvalidSpecifier:
                pass
        found = _full_requirement(text)
        if found is not None:
            return found or None
    return None


def _names_core(name: str) -> bool:
    return name.lower().replace("_", "-") == "cargento-core"


def _full_requirement(text: str) -> str | None:
    """The specifier of *text* when it is an unconditional ``cargento-core`` requirement
    (``""`` for one with no specifier), else ``None``."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    if _names_core(req.name) and not req.marker:
        return str(req.specifier)
    return None


def _core_satisfies(core: str, requires: str) -> bool:
    """Whether core's version *core* meets *requires* (a specifier that cannot be read, or a
    version that cannot, is no reason to refuse the plugin)."""
    plain = releaseprefix.matches(core, requires)
    if plain is not None:
        return plain
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return Version(core) in SpecifierSet(requires, prereleases=True)
    except (InvalidVersion, ValueError):
        return True


def _shown_version(core: str) -> str:
    """*core* as :class:`packaging.version.Version` writes it (a plain release as it is)."""
    if releaseprefix.release(core) is not None:
        return core
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(core))
    except InvalidVersion:
        return core


def load_registry(
    *,
    entry_points: bool = True,
    only: Iterable[str] | None = None,
    block: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    extra: Iterable[tuple[str, object]] = (),
) -> Registry:
    """Build a registry: load every ``cargento.harness`` entry point, each in isolation.

    :param only: an allow-list of harness ids (``CARGENTO_LOAD_PLUGINS`` when ``None``).
    :param block: harness ids to switch off (added to ``CARGENTO_BLOCK_PLUGINS``).
    :param extra: ``(id, plugin)`` pairs registered directly, as tests do.
    """
    env = env if env is not None else {}
    allow = list(only) if only is not None else _env_list(env.get("CARGENTO_LOAD_PLUGINS"))
    blocked = set(block) | set(_env_list(env.get("CARGENTO_BLOCK_PLUGINS")) or [])
    registry = Registry()
    core = _core_version()
    candidates: list[_Candidate] = []
    if entry_points:
        seen: set[tuple[str, str]] = set()
        for ep in entrypoints.entry_points(ENTRY_POINT_GROUP):
            key = (ep.name, ep.value)
            if key in seen:
                continue
            seen.add(key)
            candidates.append(
                _Candidate(
                    name=ep.name,
                    load=ep.load,
                    dist_name=ep.dist_name,
                    dist_version=ep.dist_version,
                    requires=ep.requires,
                )
            )
    for name, plugin in extra:
        candidates.append(_Candidate(name=name, load=_constant(plugin)))
    for candidate in sorted(candidates, key=lambda c: c.name):
        name, load = candidate.name, candidate.load
        dist_name, dist_version = candidate.dist_name, candidate.dist_version
        requires = _requires_core(candidate.requires)
        base: dict[str, Any] = {"name": name, "dist": dist_name, "version": dist_version, "requires_core": requires}
        if (allow is not None and name not in allow) or name in blocked or "*" in blocked:
            registry.note(PluginRecord(status="blocked", error="switched off for this run", **base))
            continue
        if requires and not _core_satisfies(core, requires):
            registry.note(
                PluginRecord(
                    status="incompatible",
                    error=f"needs cargento-core {requires}, installed {_shown_version(core)}",
                    **base,
                )
            )
            continue
        try:
            plugin = load()
        except Exception as exc:
            registry.note(
                PluginRecord(
                    status="import-error",
                    error=f"{type(exc).__name__}: {exc}",
                    traceback=_format_exc(),
                    **base,
                )
            )
            continue
        registry.add(plugin, name, dist=dist_name, version=dist_version, requires_core=requires)
    return registry
