"""``python -m slb.experiments``: the experiments' command line."""

from .cli import main

if __name__ == "__main__":
    main()
