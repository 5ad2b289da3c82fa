"""Every loaded harness's telemetry vocabulary, asked of its plugin once: what the dashboard's
receiver maps exports with and what ``cargento telemetry`` installs."""

from __future__ import annotations

from collections.abc import Mapping

from cargento.platforms import home_from
from cargento.plugins import Registry
from cargento.telemetry.vocabulary import TelemetryVocabulary

__all__ = ["declared_vocabularies"]


def declared_vocabularies(registry: Registry, env: Mapping[str, str], endpoint: str) -> dict[str, TelemetryVocabulary]:
    """By harness key; a plugin whose hook fails (the fault is recorded on the registry) or
    declines has none."""
    home = home_from(env)
    found: dict[str, TelemetryVocabulary] = {}
    for key in registry.loaded():
        if not registry.implements(key, "telemetry"):
            continue
        value = getattr(registry.call(key, "telemetry", env=env, home=home, endpoint=endpoint), "value", None)
        if isinstance(value, TelemetryVocabulary):
            found[key] = value
    return found
