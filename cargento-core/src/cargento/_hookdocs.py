"""Render the hooks reference (``docs/plugins/hooks.md``) from the hookspec docstrings."""

from __future__ import annotations

import inspect

from cargento import hookspecs

__all__ = ["render"]


def render() -> str:
    """The Markdown hooks reference: one section per hook, signature and docstring verbatim."""
    out = [
        "# Hooks reference",
        "",
        "Generated from `cargento/hookspecs.py` by `python -m cargento._hookdocs > docs/plugins/hooks.md`;",
        "a test keeps this page equal to the docstrings, so the docstrings are the reference.",
        "",
        inspect.cleandoc(hookspecs.__doc__ or ""),
        "",
    ]
    for name in hookspecs.HOOK_NAMES:
        fn = getattr(hookspecs, name)
        sig = str(inspect.signature(fn)).replace("'", "")
        required = " (required)" if name in hookspecs.REQUIRED_HOOKS else ""
        out += [f"## `{name}`{required}", "", "```python", "@hookimpl", f"def {name}{sig}", "```", ""]
        out += [inspect.cleandoc(fn.__doc__ or ""), ""]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    print(render(), end="")
