"""A lenient, bounded reader of JavaScript object literals.

Current Codex builds run tools from a JavaScript "code mode" cell, so a plan update reaches
the rollout as source text such as ``await tools.update_plan({plan: [{step: 'Read', status:
"completed"},]})``. This module reads the literal argument of such a call without executing
anything: unquoted keys, single, double and back-tick quotes, trailing commas and comments are
accepted; anything else (a variable, a function call, a template with ``${...}``) makes the
whole literal unreadable, which callers treat as "no plan here".
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_SOURCE", "call_argument", "parse_literal"]

#: Source text longer than this is not examined at all.
MAX_SOURCE = 256 * 1024
_MAX_DEPTH = 32
_MAX_ITEMS = 2000
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None, "undefined": None}


class _Unreadable(Exception):
    """The text is not a plain literal this reader accepts."""


class _Reader:
    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.items = 0

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r\n\ufeff\u00a0":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise _Unreadable
                self.pos = end + 2
            else:
                return

    def peek(self) -> str:
        self.skip()
        if self.pos >= len(self.text):
            raise _Unreadable
        return self.text[self.pos]

    def value(self, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise _Unreadable
        self.items += 1
        if self.items > _MAX_ITEMS:
            raise _Unreadable
        ch = self.peek()
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.arr(depth)
        if ch in "'\"`":
            return self.string()
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            number = match.group()
            return float(number) if any(c in number for c in ".eE") else int(number)
        ident = _IDENT.match(self.text, self.pos)
        if ident and ident.group() in _WORDS:
            self.pos = ident.end()
            return _WORDS[ident.group()]
        raise _Unreadable

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == quote:
                self.pos += 1
                # JavaScript strings are UTF-16: join escaped surrogate pairs, replace lone ones.
                return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
            if ch == "\\":
                self.pos += 1
                if self.pos >= len(text):
                    raise _Unreadable
                esc = text[self.pos]
                if esc == "u":
                    digits = text[self.pos + 1 : self.pos + 5]
                    if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                        raise _Unreadable
                    out.append(chr(int(digits, 16)))
                    self.pos += 5
                    continue
                if esc == "\n":
                    self.pos += 1
                    continue
                out.append(_ESCAPES.get(esc, esc))
                self.pos += 1
                continue
            if quote == "`" and text.startswith("${", self.pos):
                raise _Unreadable
            if ch == "\n" and quote != "`":
                raise _Unreadable
            out.append(ch)
            self.pos += 1
        raise _Unreadable

    def key(self) -> str:
        ch = self.peek()
        if ch in "'\"":
            return self.string()
        ident = _IDENT.match(self.text, self.pos)
        if ident:
            self.pos = ident.end()
            return ident.group()
        number = _NUMBER.match(self.text, self.pos)
        if number:
            self.pos = number.end()
            return number.group()
        raise _Unreadable

    def obj(self, depth: int) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        while True:
            if self.peek() == "}":
                self.pos += 1
                return out
            name = self.key()
            if self.peek() != ":":
                raise _Unreadable
            self.pos += 1
            out[name] = self.value(depth + 1)
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "}":
                raise _Unreadable

    def arr(self, depth: int) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        while True:
            if self.peek() == "]":
                self.pos += 1
                return out
            out.append(self.value(depth + 1))
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "]":
                raise _Unreadable


def parse_literal(text: str, start: int = 0) -> tuple[Any, int] | None:
    """Parse one literal beginning at *start*; return it and the offset after it, or ``None``."""
    if len(text) > MAX_SOURCE:
        return None
    reader = _Reader(text, start)
    try:
        value = reader.value(0)
    except (_Unreadable, RecursionError, ValueError):
        return None
    return value, reader.pos


def call_argument(source: str, callee: re.Pattern[str]) -> list[Any]:
    """The literal first argument of every call to *callee* in *source*, in source order.

    *callee* must match the callee name up to and including the opening parenthesis. A call
    whose argument is not a plain literal is left out.
    """
    if len(source) > MAX_SOURCE:
        return []
    found: list[Any] = []
    for match in callee.finditer(source):
        parsed = parse_literal(source, match.end())
        if parsed is None:
            continue
        value, end = parsed
        reader = _Reader(source, end)
        try:
            closer = reader.peek()
        except _Unreadable:
            continue
        if closer in "),":
            found.append(value)
    return found
