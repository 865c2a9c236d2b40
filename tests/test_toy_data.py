"""The toy 2-D generators (slb.data.toy): seeded, sized as asked, with their known structure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from slb.data.toy import SPIRAL_TURNS, TOY_DATASETS, circles, make_toy, moons, spirals, xor


@pytest.mark.parametrize("name", list(TOY_DATASETS))
def test_seeded_and_shaped(name):
    X, y = make_toy(name, n=151, noise=0.2, random_state=7)
    X2, y2 = make_toy(name, n=151, noise=0.2, random_state=7)
    X3, _ = make_toy(name, n=151, noise=0.2, random_state=8)
    pd.testing.assert_frame_equal(X, X2)
    pd.testing.assert_series_equal(y, y2)
    assert not X.equals(X3)  # another seed, another draw
    assert list(X.columns) == ["x1", "x2"] and X.shape == (151, 2)
    assert y.name == "label" and y.dtype == np.int64
    counts = y.value_counts().to_numpy()
    assert counts.max() - counts.min() <= 1  # balanced classes
    assert np.isfinite(X.to_numpy()).all()
    # shuffled: the labels are not in blocks
    assert (np.diff(y.to_numpy()) != 0).sum() > 10


def test_xor_labels_follow_the_quadrants():
    X, y = xor(n=400, noise=0.0, random_state=0)
    assert ((X["x1"] * X["x2"] > 0).to_numpy() == (y == 1).to_numpy()).all()
    assert X.abs().to_numpy().max() <= 1.0
    # each feature alone tells nothing: both classes are on both sides of 0
    for col in X:
        for k in (0, 1):
            assert 0.35 < (X.loc[y == k, col] > 0).mean() < 0.65
    # with noise, the quadrant rule still holds for most rows, not all
    Xn, yn = xor(n=2000, noise=0.1, random_state=0)
    agree = ((Xn["x1"] * Xn["x2"] > 0).to_numpy() == (yn == 1).to_numpy()).mean()
    assert 0.85 < agree < 1.0


def test_circles_radii_separate_the_classes():
    X, y = circles(n=300, noise=0.0, random_state=0)
    r = np.hypot(X["x1"], X["x2"]).to_numpy()
    np.testing.assert_allclose(r[y == 0], 1.0)
    np.testing.assert_allclose(r[y == 1], 0.5)
    Xn, yn = circles(n=2000, noise=0.05, random_state=0)
    rn = np.hypot(Xn["x1"], Xn["x2"]).to_numpy()
    assert ((rn > 0.75) == (yn == 0).to_numpy()).mean() > 0.99  # a ring around a disc


def test_moons_are_the_two_half_circles():
    X, y = moons(n=200, noise=0.0, random_state=0)
    up, down = X[y == 0].to_numpy(), X[y == 1].to_numpy()
    np.testing.assert_allclose(np.hypot(up[:, 0], up[:, 1]), 1.0)
    assert (up[:, 1] >= -1e-12).all()
    np.testing.assert_allclose(np.hypot(down[:, 0] - 1, down[:, 1] - 0.5), 1.0)
    assert (down[:, 1] <= 0.5 + 1e-12).all()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_spiral_arms(k):
    X, y = spirals(n=60 * k, noise=0.0, random_state=1, n_classes=k)
    r = np.hypot(X["x1"], X["x2"]).to_numpy()
    angle = np.arctan2(X["x2"], X["x1"]).to_numpy()
    # a point of arm c is at angle 2π (turns · r + c / k), modulo a full turn
    offset = (angle / (2 * np.pi) - SPIRAL_TURNS * r) % 1.0
    expected = y.to_numpy() / k
    diff = np.abs((offset - expected + 0.5) % 1.0 - 0.5)
    assert diff.max() < 1e-9
    assert sorted(np.unique(y)) == list(range(k))


def test_noise_moves_the_points():
    X0, _ = xor(n=300, noise=0.0, random_state=0)
    X1, _ = xor(n=300, noise=0.3, random_state=0)
    assert X1.abs().to_numpy().max() > 1.0
    assert not np.allclose(X0.to_numpy(), X1.to_numpy())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 3}, "at least 4"),
        ({"n": 10.5}, "whole number"),
        ({"noise": -0.1}, "noise"),
        ({"noise": float("nan")}, "noise"),
        ({"noise": 5}, "noise"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        xor(**kwargs)


def test_bad_names():
    with pytest.raises(ValueError, match="Unknown toy dataset"):
        make_toy("swirl")
    with pytest.raises(ValueError, match="between 2 and 6"):
        spirals(n_classes=1)
    with pytest.raises(ValueError, match="at least 6"):
        spirals(n=5, n_classes=3)


@pytest.mark.slow
def test_dashboard_toy_source():
    """The Data page's "Toy 2-D" source: the library's draw, its n, noise and seed controls."""
    import os
    from pathlib import Path

    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(
        str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=300
    )
    at.run()
    at.radio(key="data_source").set_value("toy").run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["dataset"]
    X, y = xor(n=400, noise=0.1, random_state=0)  # the defaults
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())
    np.testing.assert_array_equal(ds.y, y.to_numpy())  # class 1 is the positive class
    assert ds.positive_label == "1" and ds.data_seed == 0
    at.selectbox(key="toy_kind").set_value("circles").run()
    at.slider(key="toy_n").set_value(200).run()
    at.slider(key="toy_noise").set_value(0.05).run()
    at.number_input(key="toy_seed").set_value(4).run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["dataset"]
    X, y = circles(n=200, noise=0.05, random_state=4)
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())
    sidebar = "\n".join(m.value for m in at.sidebar.markdown)
    assert "toy circles" in sidebar and "data seed **4**" in sidebar
    at.selectbox(key="toy_kind").set_value("spirals3").run()
    ds = at.session_state["dataset"]
    assert ds.K == 3 and ds.n == 200 and ds.d == 2


@pytest.mark.slow
def test_dashboard_toy_settings_travel_in_the_address():
    """A link with the toy source restores its data (kind, n, noise, seed); a changed control
    is written back; a bad value is ignored with a warning."""
    import os
    from pathlib import Path

    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "app.py")

    def query(at) -> dict:
        return {k: at.query_params[k] for k in at.query_params}

    at = AppTest.from_file(app, default_timeout=300)
    for k, v in {"source": "toy", "toy": "moons", "toyn": "200", "noise": "0.05"}.items():
        at.query_params[k] = v
    at.query_params["toyseed"] = "3"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    X, y = moons(n=200, noise=0.05, random_state=3)
    ds = at.session_state["dataset"]
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())
    np.testing.assert_array_equal(ds.y, y.to_numpy())
    at.selectbox(key="toy_kind").set_value("circles").run()
    at.slider(key="toy_noise").set_value(0.2).run()
    q = query(at)
    assert q["source"] == "toy" and q["toy"] == "circles" and q["noise"] == "0.2"
    assert q["toyn"] == "200" and q["toyseed"] == "3"
    # another source: the toy parameters leave the address
    at.radio(key="data_source").set_value("bundled").run()
    assert not {"toy", "toyn", "noise", "toyseed"} & set(query(at))
    # a bad value is ignored, named in a warning
    bad = AppTest.from_file(app, default_timeout=300)
    bad.query_params["source"] = "toy"
    bad.query_params["noise"] = "9"
    bad.run()
    assert not bad.exception, [e.value for e in bad.exception]
    assert bad.session_state["cfg"]["toy_noise"] == 0.1
    assert any("noise" in w.value for w in bad.warning), [w.value for w in bad.warning]
