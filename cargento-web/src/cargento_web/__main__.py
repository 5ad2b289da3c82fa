"""``python -m cargento_web``: the detached server ``--daemon`` starts (and a plain entry)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    log_path: str | None = None
    if len(args) >= 2 and args[0] == "--detached-log":
        log_path = args[1]
        args = args[2:]
    if log_path is None:
        from cargento.cli import main as cli_main

        return cli_main(args)
    import os

    from cargento import codecache
    from cargento.starthold import held_for_start

    codecache.install_from(os.environ)  # attrs' generated methods compiled, as under ``cargento``
    with held_for_start():  # until the first board is out, as under ``cargento``
        from cargento.cli import UsageError, parse_args

        from cargento_web.cli import serve_options

        try:
            options = parse_args(args)
        except UsageError as exc:
            print(f"cargento: {exc}", file=sys.stderr)
            return 2
        if options.demo:
            codecache.read_only()  # the demo writes nothing of the user's
        return serve_options(options, log_path=log_path)


if __name__ == "__main__":
    sys.exit(main())
