"""``python3 -m tools.vcluster``: see :mod:`tools.vcluster.cli`."""
import sys

from .cli import main

sys.exit(main())
