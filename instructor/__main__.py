"""``python -m instructor`` is the ``course`` command."""

import sys

from instructor.cli import main

sys.exit(main())
