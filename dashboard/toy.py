"""The Data page's toy 2-D source: XOR, circles, moons, spirals (:mod:`slb.data.toy`).

Its settings (``toy_kind``, ``toy_n``, ``toy_noise``, ``toy_seed``, with their defaults in
:data:`dashboard.state.DEFAULTS`) are drawn here and travel in the address as ``toy``,
``toyn``, ``noise`` and ``toyseed`` (registered with :func:`dashboard.urlstate.register` when
this module is imported, as ``app.py`` does); :mod:`dashboard.data` draws the table.
"""

from __future__ import annotations

import streamlit as st

from slb.data.toy import MAX_NOISE, TOY_DATASETS

from . import state, urlstate

#: The noise slider's end (the library accepts up to slb.data.toy.MAX_NOISE).
NOISE_MAX = min(0.6, MAX_NOISE)
N_RANGE = (50, 2000, 50)  # the rows slider: min, max, step


def _noise(text: str) -> float:
    """The address's noise: a number on the slider (0 to NOISE_MAX, two decimals)."""
    return round(urlstate.number(0.0, NOISE_MAX)(text), 2)


def _toy(c: dict) -> bool:
    return c["source"] == "toy"


for _param, _field in {
    "toy": urlstate.Field("toy_kind", urlstate.choice(TOY_DATASETS), when=_toy),
    "toyn": urlstate.Field("toy_n", urlstate.integer(*N_RANGE), when=_toy),
    "noise": urlstate.Field("toy_noise", _noise, show=lambda v: f"{float(v):g}", when=_toy),
    "toyseed": urlstate.Field("toy_seed", urlstate.integer(0, 2**31 - 1), when=_toy),
}.items():
    urlstate.register(_param, _field)


def widgets(cfg: dict) -> None:
    """The toy source's controls on the Data page: which data, rows n, noise, data seed."""
    if cfg["toy_kind"] not in TOY_DATASETS:
        cfg["toy_kind"] = state.DEFAULTS["toy_kind"]
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
        lo, hi, step = N_RANGE
        state.bound(
            st.slider, "Rows n", "toy_n", key="toy_n", min_value=lo, max_value=hi, step=step
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
