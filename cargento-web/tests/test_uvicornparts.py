"""uvicorn's Config and Server without its command line (:mod:`cargento_web.uvicornparts`).

Each check runs in a fresh interpreter, since the point is what the first ``uvicorn`` import
of a process does.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def test_config_and_server_come_without_the_command_line() -> None:
    out = _run(
        """
        import sys
        from cargento_web.uvicornparts import Config, Server, is_whole
        import uvicorn.config, uvicorn.server
        print(Config is uvicorn.config.Config, Server is uvicorn.server.Server)
        print(is_whole(sys.modules["uvicorn"]))
        print(sorted(m for m in ("click", "uvicorn.main", "uvicorn.supervisors", "watchfiles") if m in sys.modules))
        """
    )
    assert out.splitlines() == ["True True", "False", "[]"]


def test_the_package_exports_stay_answered() -> None:
    # uvicorn's own lifespan module asks the package for Config; a plugin or a test may ask it
    # for run or main: the first two come from their modules, the rest run the package.
    out = _run(
        """
        import sys
        import cargento_web.uvicornparts as parts
        import uvicorn
        from uvicorn import Config, Server, __version__
        import uvicorn.lifespan.on
        print(Config is parts.Config, Server is parts.Server, bool(__version__))
        print(parts.is_whole(uvicorn), "click" in sys.modules)
        run = uvicorn.run
        print(parts.is_whole(uvicorn), "click" in sys.modules, run is sys.modules["uvicorn.main"].run)
        print(uvicorn.Config is Config, uvicorn.main.name)
        try:
            uvicorn.no_such_name
        except AttributeError as exc:
            print("AttributeError", exc)
        """
    )
    assert out.splitlines() == [
        "True True True",
        "False False",
        "True True True",
        "True main",
        "AttributeError module 'uvicorn' has no attribute 'no_such_name'",
    ]


def test_an_earlier_import_is_left_alone() -> None:
    out = _run(
        """
        import uvicorn
        from cargento_web.uvicornparts import Config, is_whole, register_package
        print(is_whole(uvicorn), register_package(), Config is uvicorn.Config)
        """
    )
    assert out == "True False True"
