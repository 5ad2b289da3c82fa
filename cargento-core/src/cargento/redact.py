"""Credential redaction: credential-shaped values never reach a page or the API.

Why hand-written patterns and not a secret-scanning library (decided for issue 13, measured
with ``bench/redaction.py`` on detect-secrets 1.5.0, Yelp's maintained Python scanner, over
every string of a 200-session board, 4,149 strings, the text ``/api/data`` redacts):

- Spans: detect-secrets reports "line N holds secret value X" for files under review; it
  cannot cut a span out of a string, so redacting would mean searching X again, and its
  keyword rules depend on the file type it guesses from a file name.
- Speed: its file scan took about 640 ms over the board's strings, these patterns about
  14 ms (the dozen patterns they replace: 16 ms; one search for any family's literal skips
  the rest for most strings); redaction runs on every board publication.
- Recall: with its default plugins and filters it found 11 of 20 credential families of the
  benchmark (it missed Anthropic and current OpenAI keys, Hugging Face, npm and Mailgun tokens,
  JWTs, ``Authorization: Basic``, ``--password <value>`` and ``API_KEY=...`` in plain text);
  these patterns find all 20. Its filters kept its false positives on commit hashes, UUIDs,
  base64 PNG data, paths, model ids and prose at 0 of 600, as do these patterns; without the
  filters (its ``--string`` mode) its entropy plugins flag every one of them.

So the rule families are those of maintained rule sets (detect-secrets' plugin list and
gitleaks' rule families: provider-prefixed tokens, private key blocks, JWTs, basic auth in
URLs, keyword assignments...), written as anchored patterns with a recognisable prefix or a
keyword before the value, with no entropy guessing, so a hash, a UUID or an image is never a
secret. Pure digit values of up to six digits after a keyword (``max_token=4096``) are counts.

Every pattern keeps the recognisable prefix (``sk-``, ``ghp_``, ``password=``,
``postgres://user:``) and replaces the value with :data:`MARK`, so a reader can tell what kind
of value it was; a private key block is replaced whole. :func:`redact` is idempotent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["FAMILIES", "MARK", "Family", "families", "redact", "redact_tree"]

MARK = "…REDACTED"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Family:
    """One credential family: its name and the pattern of one credential of it.

    Group 1, when the pattern has one, is the prefix kept in front of :data:`MARK`.
    """

    name: str
    pattern: re.Pattern[str]
    #: Replace the whole match (a key block), not only what follows the prefix.
    whole: bool = False


class _Spec(NamedTuple):
    """A family as written: compiled by :func:`families` the first time one is needed."""

    name: str
    pattern: str
    whole: bool
    flags: int


def _f(name: str, pattern: str, *, whole: bool = False, flags: int = 0) -> _Spec:
    return _Spec(name, pattern, whole, flags)


# A value boundary: the credential is not the middle of a longer word.
_END = r"(?![A-Za-z0-9_\-])"

# Written here, compiled on first use (:func:`families`): the patterns take about 8 ms to
# compile, and most runs never see a string with a hint of any of them (a board of ordinary
# titles, paths and tool names has none), so a start does not pay for them.
_SPECS: tuple[_Spec, ...] = (
    # -- key material ------------------------------------------------------------------------
    _f(
        "private key block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)",
        whole=True,
    ),
    _f("PuTTY private key", r"(PuTTY-User-Key-File-\d+:)[\s\S]*?(?:Private-MAC: [0-9a-f]+|$)"),
    _f("age secret key", r"\b(AGE-SECRET-KEY-1)[0-9A-Z]{50,}"),
    # -- model providers and hubs ------------------------------------------------------------
    _f("Anthropic / OpenAI key", r"\b(sk-(?:ant-|proj-|svcacct-|admin-)?)[A-Za-z0-9_\-]{16,}"),
    _f("Hugging Face token", r"\b(hf_|api_org_)[A-Za-z0-9]{30,}" + _END),
    _f("Groq key", r"\b(gsk_)[A-Za-z0-9]{40,}" + _END),
    _f("Replicate token", r"\b(r8_)[A-Za-z0-9]{30,}" + _END),
    _f("Perplexity key", r"\b(pplx-)[A-Za-z0-9]{40,}" + _END),
    _f("xAI key", r"\b(xai-)[A-Za-z0-9]{60,}" + _END),
    # -- code hosts and package registries ---------------------------------------------------
    _f("GitHub token", r"\b(gh[pousr]_)[A-Za-z0-9]{20,}"),
    _f("GitHub fine-grained token", r"\b(github_pat_)[A-Za-z0-9_]{20,}"),
    _f("GitLab token", r"\b(gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|oas|agent)-)[A-Za-z0-9_\-]{16,}"),
    _f("npm token", r"\b(npm_)[A-Za-z0-9]{30,}"),
    _f("PyPI token", r"\b(pypi-)AgE[A-Za-z0-9_\-]{40,}"),
    _f("Artifactory key", r"\b(AKC[a-zA-Z0-9]{10})[a-zA-Z0-9]{50,}" + _END),
    # -- chat and mail providers -------------------------------------------------------------
    _f("Slack token", r"\b(xox[abposre]-|xapp-)[A-Za-z0-9\-]{10,}"),
    _f("Slack webhook", r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]{20,}"),
    _f("Discord webhook", r"(https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/)[A-Za-z0-9_\-]{30,}"),
    _f("Discord bot token", r"\b([MNO][A-Za-z0-9_\-]{23,27}\.)[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}" + _END),
    _f("Telegram bot token", r"\b(\d{8,10}:)AA[A-Za-z0-9_\-]{33}" + _END),
    _f("SendGrid key", r"\b(SG\.)[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _f("Mailgun key", r"\b(key-)[0-9a-zA-Z]{32}" + _END),
    _f("Mailchimp key", r"\b()[0-9a-f]{32}-us\d{1,2}\b"),
    _f("Twilio key", r"\b(SK)[0-9a-fA-F]{32}\b"),
    # -- payments ----------------------------------------------------------------------------
    _f("Stripe secret key", r"\b((?:sk|rk)_(?:live|test)_)[0-9a-zA-Z]{10,}"),
    _f("Stripe webhook secret", r"\b(whsec_)[0-9a-zA-Z]{20,}"),
    _f("Square token", r"\b(sq0(?:atp|csp)-)[0-9A-Za-z_\-]{22,}"),
    _f("Shopify token", r"\b(shp(?:at|ca|pa|ss)_)[a-fA-F0-9]{32}\b"),
    # -- clouds and infrastructure -----------------------------------------------------------
    _f("AWS access key id", r"\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    _f("Google API key", r"\b(AIza)[0-9A-Za-z_\-]{30,}"),
    _f("Google OAuth token", r"\b(ya29\.)[0-9A-Za-z_\-]{20,}"),
    _f("Azure storage account key", r"(?i)\b(AccountKey\s*=\s*)[A-Za-z0-9+/]{20,}={0,2}"),
    _f("Azure shared access signature", r"(?i)([?&;]sig=|SharedAccessSignature\s*=\s*)[A-Za-z0-9%+/=]{16,}"),
    _f("DigitalOcean token", r"\b(do[opr]_v1_)[a-f0-9]{64}\b"),
    _f("Databricks token", r"\b(dapi)[a-f0-9]{32}(?:-\d)?\b"),
    _f("HashiCorp Vault token", r"\b(hv[sbr]\.)[A-Za-z0-9_\-]{20,}"),
    _f("Terraform Cloud token", r"\b([A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_\-]{60,}"),
    _f("Grafana token", r"\b(glc_|glsa_)[A-Za-z0-9_\-+/=]{30,}"),
    _f("Doppler token", r"\b(dp\.(?:pt|st|sa|ct|scim|audit)\.)[A-Za-z0-9]{40,}"),
    _f("Pulumi token", r"\b(pul-)[a-f0-9]{40}\b"),
    _f("Postman key", r"\b(PMAK-)[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _f("Linear key", r"\b(lin_api_)[A-Za-z0-9]{40}\b"),
    _f("Sentry token", r"\b(sntr[ysu]_)[A-Za-z0-9_=+/\-]{30,}"),
    _f("Tailscale key", r"\b(tskey-(?:auth|api|client|scim|webhook)?-?)[A-Za-z0-9]{10,}-[A-Za-z0-9]{10,}"),
    _f("Notion token", r"\b(secret_|ntn_)[A-Za-z0-9]{40,}" + _END),
    # -- generic shapes ----------------------------------------------------------------------
    _f("JSON web token", r"\b(eyJ)[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{8,}"),
    _f("JSON web token (any header)", r"\b(eyJ)[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{8,}"),
    _f("password in a URL", r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@\"'<>]+:)(?!//)[^\s@/\"'<>]+(?=@[^\s@])"),
    _f("basic authorization header", r"(?i)\b(authorization\s*[:=]\s*[\"']?basic\s+)[A-Za-z0-9+/]{8,}={0,2}"),
    _f("bearer token", r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
    _f("curl user", r"(?:^|(?<=\s))((?:-u|--user)\s+[\"']?[^\s:\"'-][^\s:\"']*:)[^\s\"']+"),
    _f(
        "secret command-line option",
        r"(?i)(--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|token|secret|api[-_]?key|access[-_]?key|auth[-_]?token)"
        r"(?:=|\s+)[\"']?)(?!-)[^\s\"']{2,}",
    ),
    _f(
        "secret assignment",
        r"(?i)\b([A-Za-z0-9_]*(?:api[_-]?key|secret|token|passw(?:or)?d|passwd|client[_-]?secret|access[_-]?key"
        r"|private[_-]?key|auth[_-]?key|signing[_-]?key)"
        r"[\"']?\s*[:=]\s*[\"']?)(?![0-9]{1,6}(?![^\s\"',;]))[^\s\"',;]{4,}",
    ),
)

# The families are tried only when one of these is in the text: most board strings are
# prose or paths, and this one search keeps redaction cheap for them.
_HINT = re.compile(
    r"-----BEGIN|PuTTY|AGE-SECRET|sk-|hf_|api_org_|gsk_|r8_|pplx-|xai-|gh[pousr]_|github_pat_|gl[a-z]{1,5}-|npm_|pypi-"
    r"|AKC|xox|xapp-|hooks\.slack|discord|[MNO][A-Za-z0-9_\-]{23,27}\.|\d:AA|SG\.|key-|-us\d|SK[0-9a-fA-F]"
    r"|_live_|_test_|whsec_|sq0|shp|AKIA|ASIA|ABIA|ACCA|AIza|ya29\.|(?i:accountkey|sig=|sharedaccess)|do[opr]_v1_|dapi"
    r"|hv[sbr]\.|atlasv1|glc_|glsa_|dp\.|pul-|PMAK-|lin_api_|sntr|tskey-|secret_|ntn_|eyJ|://[^\s@]*@"
    r"|(?i:basic|bearer|--user|-u\s|pass|token|secret|api[_-]?key|access[_-]?key|private[_-]?key|auth|signing)"
)


# The same question, asked fast of ASCII text (nearly every board string): sre tries each of
# the hint's ~55 alternatives at every position, and its case-insensitive groups are slower
# still (about 28 ms over the 4,900 distinct strings of a 640-session board). Lowered once,
# the text is searched for the hint's literals as one prefix tree (every alternative that
# starts with the same letters shares them), and a short case-sensitive pattern covers the
# pieces that are not literals: 5 ms for the same strings. Whatever the hint matches, this
# matches too (``tests/test_redact_hint.py``); it may match more, so a hit asks the hint itself.
_HINT_WORDS = (
    "-----begin", "putty", "age-secret", "sk-", "hf_", "api_org_", "gsk_", "r8_", "pplx-", "xai-",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "npm_", "pypi-", "akc", "xox", "xapp-",
    "hooks.slack", "discord", ":aa", "sg.", "key-", "-us", "_live_", "_test_", "whsec_", "sq0", "shp",
    "akia", "asia", "abia", "acca", "aiza", "ya29.", "accountkey", "sig=", "sharedaccess",
    "dop_v1_", "doo_v1_", "dor_v1_", "dapi", "hvs.", "hvb.", "hvr.", "atlasv1", "glc_", "glsa_",
    "dp.", "pul-", "pmak-", "lin_api_", "sntr", "tskey-", "secret_", "ntn_", "eyj", "://",
    "basic", "bearer", "--user", "pass", "token", "secret", "apikey", "api_key", "api-key",
    "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "auth",
    "signing",
)  # fmt: skip
#: The hint's pieces that are not literals, as it writes them (case-sensitive).
_HINT_SHAPES = r"gl[a-z]{1,5}-|[MNO][A-Za-z0-9_\-]{23,27}\.|SK[0-9a-fA-F]|-[uU]\s"


def _prefix_tree(words: Iterable[str]) -> str:
    """One pattern matching any of *words*, the alternatives that share a start sharing it
    (``ab(?:c|d)`` for ``abc`` and ``abd``); a word that another extends matches alone."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        if "" in node:
            return ""  # a word ends here: the longer ones need not be matched
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return pattern(tree)


@functools.cache
def _quick_hint() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(_prefix_tree(_HINT_WORDS)), re.compile(_HINT_SHAPES)


def _hinted(text: str) -> bool:
    """Whether *text* has a hint of any family (``_HINT`` matches it)."""
    if text.isascii():
        # ASCII lowers letter by letter, as the hint's case-insensitive groups compare.
        words, shapes = _quick_hint()
        if words.search(text.lower()) is None and shapes.search(text) is None:
            return False
    return _HINT.search(text) is not None


@functools.cache
def families() -> tuple[Family, ...]:
    """Every credential family, compiled (once, on the first call)."""
    return tuple(Family(spec.name, re.compile(spec.pattern, spec.flags), spec.whole) for spec in _SPECS)


if TYPE_CHECKING:
    #: Every credential family (compiled when first read).
    FAMILIES: tuple[Family, ...]


def __getattr__(name: str) -> Any:
    if name == "FAMILIES":
        return families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _keep_prefix(match: re.Match[str]) -> str:
    prefix = match.group(1) if match.groups() and match.group(1) else ""
    return prefix + MARK


def redact(text: str) -> str:
    """Replace every credential-shaped value in *text* with ``…REDACTED``.

    The recognisable prefix (``sk-``, ``ghp_``, ``password=``) is kept so a reader can tell
    what kind of value it was.
    """
    if not text or not _hinted(text):
        return text
    for family in families():
        if family.whole:
            text = family.pattern.sub(MARK, text)
        else:
            text = family.pattern.sub(_keep_prefix, text)
    return text


def redact_tree(value: Any, *, memo: dict[str, str] | None = None) -> Any:
    """*value* with :func:`redact` applied to every string value in it, at any depth
    (mappings, lists and tuples are rebuilt; keys, which are field names, and other values are
    kept as they are).

    The one step every outbound document goes through: the page's API answers, the server's
    own stores on disk, notification texts and log lines.

    Each distinct string is redacted once per call; a caller redacting one document in parts
    (row by row) passes the same *memo* to each part, so the parts share that work too.
    """
    return _redact_tree(value, {} if memo is None else memo)


#: The types of value a tree keeps as they are, told by ``type()`` (no isinstance of an ABC).
_KEPT_AS_IS = frozenset({int, float, bool, type(None)})


def _redact_tree(value: Any, done: dict[str, str]) -> Any:
    # A board repeats most of its strings (a state, a harness, a project on every row: 1,390
    # distinct of 5,596 at 160 sessions), so each distinct string is redacted once per tree.
    # The walk tells the exact types a document is made of (str, dict, list, a number, None)
    # by type() and handles a dict's strings and numbers in place, not by a call each: over a
    # 640-row board (21,824 strings, 4,849 distinct) 17.8 ms against 26.9 for isinstance tests
    # and a call per value, of which redacting the distinct strings is 9.5.
    kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            of = type(item)
            if of is str:
                found = done.get(item)
                if found is None:
                    found = done[item] = redact(item)
                out[key] = found
            elif of in _KEPT_AS_IS:
                out[key] = item
            else:
                out[key] = _redact_tree(item, done)
        return out
    if kind is str:
        found = done.get(value)
        if found is None:
            found = done[value] = redact(value)
        return found
    if kind is list or kind is tuple:
        return [item if type(item) in _KEPT_AS_IS else _redact_tree(item, done) for item in value]
    if kind in _KEPT_AS_IS:
        return value
    # Subclasses and other containers, as :func:`redact_tree` says.
    if isinstance(value, str):
        found = done.get(value)
        if found is None:
            found = done[value] = redact(value)
        return found
    if isinstance(value, Mapping):
        return {k: _redact_tree(v, done) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_tree(v, done) for v in value]
    return value
