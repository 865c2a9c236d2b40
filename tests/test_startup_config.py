"""The dashboard's Streamlit settings that concern start-up (issue 27): no outbound call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a Streamlit process: ~10 s on a loaded machine
def test_no_external_address_lookup_at_start_up():
    # Headless, Streamlit asks an external service for the public IP to print an "External
    # URL" unless browser.serverAddress is set; the project's config sets it, so nothing
    # leaves the machine at start-up.  Read through Streamlit's own config loader.
    out = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("serverAddress")]
    assert lines == ['serverAddress = "localhost"'], lines
