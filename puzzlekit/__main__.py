import sys

from puzzlekit.app.cli import main

sys.exit(main())
