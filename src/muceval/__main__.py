"""``python -m muceval``: the same as the ``muceval`` command."""

import sys

from muceval.cli import main

sys.exit(main())
