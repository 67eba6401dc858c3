"""Run ``kjoin ARG ...`` in a fresh interpreter as on a bare install, and list every module it imported.

``python -I -S tests/support/fresh_start.py ROOT DEPENDENCY_FOLDER ... -- ARG ...``: the interpreter starts
without ``site`` (no ``.pth`` file, no editable install's finder, no ``sitecustomize``, which import
``pathlib``, ``importlib.util`` and more before any command runs), so what is loaded afterwards is what
``kjoin`` itself imports. ``ROOT`` is the checkout, laid out as the installed package (``kjoin.oracle`` is
``ROOT/oracle``, pyproject.toml's ``package-dir``); each ``DEPENDENCY_FOLDER`` holds a core dependency
(msgspec, tabulate, tqdm). ``typing_extensions`` is blocked as on a bare install, where nothing brings it:
msgspec imports it (and ``inspect`` with it) only when it is installed. Prints the command's output, an
``-- imported modules --`` line, then the names of all imported modules, one per line; exits with the
command's code.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    separator = argv.index("--")
    root, *dependencies = argv[:separator]
    sys.path[:0] = [root, *dependencies]
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # not installed: ImportError
    import kjoin

    kjoin.__path__.append(root)  # kjoin.<folder> is ROOT/<folder>, as installed
    from kjoin.conformance.cli import main as kjoin_main

    code = kjoin_main(argv[separator + 1 :])
    sys.stdout.write("\n-- imported modules --\n" + "\n".join(sorted(sys.modules)) + "\n")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
