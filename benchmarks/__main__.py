"""``python -m benchmarks``: see benchmarks/command.py, or run it with --help."""

from benchmarks.command import main

raise SystemExit(main())
