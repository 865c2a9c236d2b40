"""Start a dashboard server's warm-up: open one session (headless Chromium) and leave.

Streamlit runs no app code until a browser session connects, so the server-start warm-up
(``dashboard/warmup.py``) begins with the first visit.  Run this right after starting each
server process, before the class arrives::

    python scripts/warm_server.py http://127.0.0.1:8501 [http://127.0.0.1:8502 ...]

It waits until each server has drawn its home page (the warm-up thread then runs on its own
in that server) and prints how long that took.
"""

from __future__ import annotations

import argparse
import sys
import time

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("urls", nargs="+")
    ap.add_argument("--chromium", default=CHROMIUM, help="browser executable")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per server")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
        try:
            for url in args.urls:
                page = browser.new_page()
                t0 = time.monotonic()
                page.goto(url)
                page.get_by_test_id("stSidebar").get_by_text("Current setup").wait_for(
                    timeout=args.timeout * 1000
                )
                print(f"{url}: home page drawn in {time.monotonic() - t0:.1f} s; warm-up started")
                page.close()
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
