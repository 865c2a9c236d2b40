"""``python -m slb_explorer``: the same as the ``slb-explorer`` command."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
