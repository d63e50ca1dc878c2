import sys

from volfft.cli import main

sys.exit(main())
