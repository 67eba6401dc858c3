"""``KjoinError``: the base class of every error the package raises on purpose (docs/api.md, "Errors").

Every error class of the package derives from it as well as from the built-in class it always had
(``ValueError`` for bad input, ``RuntimeError`` for a failing tool), so ``except KjoinError`` catches any of
them and existing ``except ValueError`` handlers keep working. This module imports nothing: every part of
the package, the oracle and the command line's parser included, may import it at no cost.
"""

from __future__ import annotations

__all__ = ["KjoinError"]


class KjoinError(Exception):
    """Base class of every error the ``kjoin`` package raises on purpose."""
