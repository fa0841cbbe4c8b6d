"""``python -m probesmith``: the same as the ``probesmith`` command."""

import sys

from probesmith.cli import main

sys.exit(main())
