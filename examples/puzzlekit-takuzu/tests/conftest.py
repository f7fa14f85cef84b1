"""Register the plugin in the test process whether or not the package is installed."""

import puzzlekit_takuzu  # noqa: F401
