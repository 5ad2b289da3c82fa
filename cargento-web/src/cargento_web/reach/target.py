"""Where reach nudges go, and in which of two shapes.

The URL is ``--reach-url``, else ``CARGENTO_REACH_URL``, else the first line of
``~/.cargento/reach_url`` (``CARGENTO_HOME`` relocates it); ``--no-reach`` resolves none. Its
shape picks the body:

* **ntfy**: a topic URL on a host whose first label starts with ``ntfy`` (``ntfy.sh``,
  ``ntfy.example.net``) and whose path is one topic segment (``https://ntfy.sh/my-topic``):
  a plain-text body with ``Title`` and ``Priority`` headers, as ntfy's publish API takes it;
* **webhook**: any other ``http(s)`` URL: a JSON body ``{"text": ...}``, the shape Slack's
  incoming webhooks take (and Mattermost's, and most chat bridges').

The URL itself is a secret (an ntfy topic is readable by anyone who knows it), so the page and
the record name only its shape and host.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

import attrs
from cargento.sharedmethods import shared_methods
from cargento.statedir import state_dir

__all__ = ["REACH_FILE", "REACH_VARIABLE", "ReachTarget", "resolve_target", "shape_of"]

REACH_VARIABLE = "CARGENTO_REACH_URL"
REACH_FILE = "reach_url"
Shape = Literal["ntfy", "webhook"]
_TOPIC = re.compile(r"^/[A-Za-z0-9_-]{1,64}/?$")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ReachTarget:
    url: str = attrs.field(repr=False)
    shape: Shape
    #: Where the URL was read from (the flag, the variable or the file).
    source: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "?"


def shape_of(url: str) -> Shape:
    """``ntfy`` for an ntfy topic URL (see the module notes), else ``webhook``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host.split(".")[0].startswith("ntfy") and _TOPIC.match(parts.path or "") and not parts.query:
        return "ntfy"
    return "webhook"


def _valid(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and len(url) <= 2048


def resolve_target(flag: str | None, env: Mapping[str, str], *, off: bool = False) -> tuple[ReachTarget | None, str]:
    """The run's target and a sentence saying where it came from, or why there is none."""
    if off:
        return None, "reach nudges are off for this run (--no-reach)"
    candidates: list[tuple[str, str | None]] = [
        ("--reach-url", flag),
        (REACH_VARIABLE, env.get(REACH_VARIABLE, "").strip() or None),
    ]
    path = state_dir(env) / REACH_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:4096].strip()
        candidates.append((str(path), text.splitlines()[0].strip() if text else None))
    except OSError:
        pass
    for source, url in candidates:
        if url is None:
            continue
        if not _valid(url):
            return None, f"{source} is not an http:// or https:// URL, so no reach nudge is posted"
        return ReachTarget(url=url, shape=shape_of(url), source=source), f"from {source}"
    return None, f"no reach URL is set (--reach-url, {REACH_VARIABLE} or {path})"
