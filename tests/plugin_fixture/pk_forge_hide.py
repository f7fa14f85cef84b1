"""A plugin module for the trust-boundary tests: once let into a judging process, its import
code makes that process claim again that it keeps plugins out (``judging()`` True), so a worker
that reported its own cleanliness would run the next holdout beside ``pk_forge_patch``. The
server must decide a worker's cleanliness itself (docs/security.md). Not a test module.
"""

from __future__ import annotations

import puzzlekit.core.plugins as plugins

if plugins.admitted():  # let into a judging process by a call that runs no holdout
    plugins._KEPT_OUT = []
