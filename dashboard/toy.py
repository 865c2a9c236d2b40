"""The Data page's toy 2-D source: XOR, circles, moons, spirals (:mod:`slb.data.toy`).

Its settings (``toy_kind``, ``toy_n``, ``toy_noise``, ``toy_seed``) live in the session's
``cfg`` like every other setting; :func:`ensure_defaults` adds them to a session that does not
have them yet (they are not in :data:`dashboard.state.DEFAULTS`, which another part of the
app owns).  :mod:`dashboard.data` draws the table (``_toy``) from :func:`settings`.
"""

from __future__ import annotations

import streamlit as st

from slb.data.toy import MAX_NOISE, TOY_DATASETS

from . import state

#: The toy settings and their defaults.
TOY_DEFAULTS = {"toy_kind": "xor", "toy_n": 400, "toy_noise": 0.1, "toy_seed": 0}
#: The noise slider's end (the library accepts up to slb.data.toy.MAX_NOISE).
NOISE_MAX = min(0.6, MAX_NOISE)


def ensure_defaults(cfg: dict) -> dict:
    """Add the toy settings a session does not have yet; returns ``cfg``."""
    for k, v in TOY_DEFAULTS.items():
        cfg.setdefault(k, v)
    if cfg["toy_kind"] not in TOY_DATASETS:
        cfg["toy_kind"] = TOY_DEFAULTS["toy_kind"]
    return cfg


def settings(cfg: dict) -> tuple[str, int, float, int]:
    """``(kind, n, noise, seed)`` of the session (defaults added first)."""
    ensure_defaults(cfg)
    return (
        str(cfg["toy_kind"]),
        int(cfg["toy_n"]),
        round(float(cfg["toy_noise"]), 4),
        int(cfg["toy_seed"]),
    )


def widgets(cfg: dict) -> None:
    """The toy source's controls on the Data page: which data, rows n, noise, data seed."""
    ensure_defaults(cfg)
    state.bound(
        st.selectbox,
        "Toy data",
        "toy_kind",
        key="toy_kind",
        options=list(TOY_DATASETS),
        format_func=lambda k: TOY_DATASETS[k][1],
        help="Two features whose joint distribution, not each one alone, separates the "
        "classes: what SLB's pair terms capture. See the Decision surface page.",
    )
    a, b = st.columns(2)
    with a:
        state.bound(
            st.slider, "Rows n", "toy_n", key="toy_n", min_value=50, max_value=2000, step=50
        )
    with b:
        state.bound(
            st.slider,
            "Noise (standard deviation)",
            "toy_noise",
            key="toy_noise",
            min_value=0.0,
            max_value=NOISE_MAX,
            step=0.01,
            help="Gaussian noise added to both features (the data span 2 to 3 units).",
        )
    state.bound(
        st.number_input,
        "Data seed",
        "toy_seed",
        key="toy_seed",
        min_value=0,
        max_value=2**31 - 1,
        step=1,
    )
