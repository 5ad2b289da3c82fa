"""The stable metadata fields of an Antigravity conversation database, decoded bounded.

Only metadata is decoded, never conversation content:

* a step's ``metadata`` blob: field 1 a timestamp message (1 seconds, 2 nanos), field 9 a usage
  message whose field 3 is the output tokens, field 30 the tool summary, field 31 the tool
  action; ``step_type`` 14 is user input (a prompt boundary), 15 a model response carrying usage;
* the ``trajectory_metadata_blob`` row ``main``: field 5 the parent conversation id (this
  conversation is a subagent), else field 6 when it differs from the conversation's own id;
  field 8 a label message, 2 the role ("Research Auditor") and 1 the type;
* the newest ``gen_metadata`` blob: top-level field 1 holds the model display name in its field
  21, which is the last field of the blob. Only the blob's last bytes are read, and the name is
  accepted only when its ``0xAA 0x01 <length>`` frame ends exactly at the end of the blob.
"""

from __future__ import annotations

from datetime import UTC, datetime

import attrs
from cargento.labels import clip
from cargento.sharedmethods import shared_methods

from cargento_harness_antigravity.protobuf import Decoded, decode, read_varint

__all__ = [
    "MODEL_TAIL_BYTES",
    "PROMPT_STEP",
    "RESPONSE_STEP",
    "STEP_FIELDS",
    "TRAJECTORY_FIELDS",
    "StepFacts",
    "Trajectory",
    "model_name",
    "step_facts",
    "trajectory",
]

#: The step metadata fields this build reads, by number, with the wire type it reads each as.
STEP_FIELDS = {1: 2, 9: 2, 30: 2, 31: 2}
#: The ``main`` trajectory fields this build reads, with their wire types.
TRAJECTORY_FIELDS = {5: 2, 6: 2, 8: 2}
PROMPT_STEP = 14
RESPONSE_STEP = 15
#: How many trailing bytes of a generation-metadata blob are read for the model name.
MODEL_TAIL_BYTES = 64
_NAME_TAG = b"\xaa\x01"  # field 21, wire type 2
_MAX_EPOCH = 253402300799


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class StepFacts:
    """One step's metadata."""

    idx: int
    step_type: int | None
    status: int | None
    at: datetime | None
    output_tokens: int | None = None
    summary: str | None = None
    action: str | None = None
    #: The metadata blob did not decode to its end (a truncated or foreign field).
    broken: bool = False
    #: Fields this build reads met in a wire type it does not (schema drift), named.
    unknown: tuple[str, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Trajectory:
    """Who a conversation belongs to and what it is called."""

    parent_id: str | None = None
    role: str | None = None
    kind: str | None = None
    broken: bool = False
    #: Fields this build reads met in a wire type it does not (schema drift), named.
    unknown: tuple[str, ...] = ()


def _mismatched(msg: Decoded, expected: dict[int, int], where: str) -> tuple[str, ...]:
    """The fields of *msg* this build reads that arrive in another wire type than it reads
    them as: a protobuf schema change the reader would otherwise pass over in silence. Field
    numbers it does not read are not drift: the schema is not public, and most fields are
    content, which is never decoded."""
    return tuple(
        f"{where} field {number} as wire type {wire}"
        for number, wire, _ in msg.fields
        if number in expected and wire != expected[number]
    )


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _timestamp(msg: Decoded | None) -> datetime | None:
    if msg is None:
        return None
    seconds = msg.varint(1)
    if seconds is None or not 0 < seconds < _MAX_EPOCH:
        return None
    nanos = msg.varint(2) or 0
    return datetime.fromtimestamp(seconds + min(nanos, 999_999_999) / 1e9, UTC)


def _label(text: str | None) -> str | None:
    return clip(text, 80) or None if text and text.isprintable() else None


def step_facts(idx: object, step_type: object, status: object, metadata: object) -> StepFacts | None:
    """Decode one ``steps`` row; ``None`` when its index is not an integer."""
    index = _int(idx)
    if index is None:
        return None
    blob = metadata if isinstance(metadata, bytes) else None
    msg = decode(blob)
    usage_raw = msg.bytes(9)
    usage = decode(usage_raw) if usage_raw is not None else None
    tokens = usage.varint(3) if usage is not None else None
    stamp_raw = msg.bytes(1)
    stamp = decode(stamp_raw) if stamp_raw is not None else None
    return StepFacts(
        idx=index,
        step_type=_int(step_type),
        status=_int(status),
        at=_timestamp(stamp),
        output_tokens=tokens,
        summary=_label(msg.text(30)),
        action=_label(msg.text(31)),
        unknown=_mismatched(msg, STEP_FIELDS, "step metadata"),
        broken=blob is not None
        and (
            not msg.complete or (usage is not None and not usage.complete) or (stamp is not None and not stamp.complete)
        ),
    )


def trajectory(data: object, own_id: str) -> Trajectory:
    """Decode the ``main`` trajectory metadata of conversation *own_id*."""
    if not isinstance(data, bytes):
        return Trajectory()
    msg = decode(data)
    parent = msg.text(5)
    if not parent:
        other = msg.text(6)
        parent = other if other and other != own_id else None
    if parent is not None and (not parent.isprintable() or len(parent) > 128 or parent == own_id):
        parent = None
    label = msg.bytes(8)
    labels = decode(label) if label is not None else None
    return Trajectory(
        parent_id=parent,
        role=_label(labels.text(2)) if labels else None,
        kind=_label(labels.text(1)) if labels else None,
        broken=not msg.complete,
        unknown=_mismatched(msg, TRAJECTORY_FIELDS, "trajectory"),
    )


def model_name(tail: object) -> str | None:
    """The model display name framed at the very end of a generation-metadata blob.

    *tail* is the blob's last :data:`MODEL_TAIL_BYTES` bytes (or the whole blob when shorter).
    """
    if not isinstance(tail, bytes):
        return None
    start = 0
    while True:
        pos = tail.find(_NAME_TAG, start)
        if pos < 0:
            return None
        start = pos + 1
        got = read_varint(tail, pos + len(_NAME_TAG))
        if got is None:
            continue
        length, body = got
        if length == 0 or body + length != len(tail):
            continue
        try:
            name = tail[body:].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if name.isprintable() and name.strip():
            return name.strip()
