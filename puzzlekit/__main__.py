import sys

from puzzlekit.cli import main

sys.exit(main())
