"""Clicking a confusion-matrix cell lists its rows (issue 28).

The cell targets of :func:`slb.viz.cells.clickable_cells` sit on the heatmap's cells and carry
their texts; :func:`slb.viz.cells.clicked_cell` and ``dashboard.curve_ui.cell_name`` turn a
Streamlit selection into the cell whose count the matrix shows; on Compare the operating
point's matrix is drawn with ``on_select`` (the real click: ``tests/test_browser_cells.py``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard import curve_ui
from slb.viz.cells import CELLS_TRACE, clickable_cells, clicked_cell
from slb.viz.evaluation import confusion_figure
from slb.viz.multiclass import confusion_figure_k

HOSTILE = "<b>x</b>"


def _truth_said(seed=0, n=200):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    said = np.where(rng.random(n) < 0.7, y, ~y)
    return y, said


def test_each_target_sits_on_its_cell_and_maps_to_the_rows_it_counts():
    y, said = _truth_said()
    counts = pd.DataFrame(  # rows true [−, +], columns predicted [−, +]
        [[np.sum(~y & ~said), np.sum(~y & said)], [np.sum(y & ~said), np.sum(y & said)]]
    )
    fig = clickable_cells(confusion_figure(counts, pos_name=HOSTILE, neg_name="well"))
    heat, cells = fig.data[0], fig.data[1]
    assert cells.name == CELLS_TRACE and cells.type == "scatter"
    assert heat.hoverinfo == "skip" and "click" in cells.hovertemplate  # the target hovers
    assert fig.layout.clickmode == "event+select" and fig.layout.dragmode is False
    assert HOSTILE not in json.dumps(list(cells.x) + list(cells.y))  # escaped labels
    for k, (i, j) in enumerate(fig.layout.meta["cells"]):
        assert (cells.x[k], cells.y[k]) == (heat.x[j], heat.y[i])
        assert cells.text[k] == heat.text[i][j]
        sel = {"selection": {"points": [{"curve_number": 1, "point_index": k, "x": cells.x[k]}]}}
        assert clicked_cell(sel, fig) == (i, j)
        truth, predicted = curve_ui.CELLS[curve_ui.cell_name(i, j)]
        # the count drawn in the clicked cell is the number of rows the listing will show
        assert fig.layout.meta["counts"][i][j] == np.sum((y == truth) & (said == predicted))


def test_a_selection_elsewhere_picks_no_cell():
    fig = clickable_cells(
        confusion_figure(pd.DataFrame([[3, 1], [2, 4]]), pos_name="a", neg_name="b")
    )
    assert clicked_cell(None, fig) is None
    assert clicked_cell({"selection": {"points": []}}, fig) is None
    heat_click = {"points": [{"curve_number": 0, "point_index": 1}]}  # the heatmap itself
    assert clicked_cell(heat_click, fig) is None
    assert clicked_cell({"points": [{"curve_number": 1, "point_index": 9}]}, fig) is None
    assert clicked_cell({"points": [{"curve_number": 1, "point_number": 3}]}, fig) == (1, 1)
    assert clicked_cell({"points": [{"curve_number": 1, "point_index": 1}]}, fig.to_dict()) == (
        0,
        1,
    )
    with pytest.raises(ValueError, match="heatmap"):
        clickable_cells(go.Figure(go.Bar(x=[1], y=[2])))


def test_k_class_matrices_get_a_target_per_cell():
    counts = pd.DataFrame(np.arange(9).reshape(3, 3), index=list("abc"), columns=list("abc"))
    fig = clickable_cells(confusion_figure_k(counts))
    assert len(fig.data[1].x) == 9 and fig.layout.meta["cells"][5] == [1, 2]
    assert clicked_cell({"points": [{"curve_number": 1, "point_index": 5}]}, fig) == (1, 2)


@pytest.mark.slow
def test_compare_draws_the_operating_matrix_clickable():
    """AppTest: the operating point's matrix is a selectable chart with the cell targets, and
    the keyboard's selectbox lists a cell's rows (AppTest cannot click a chart)."""
    from test_app import chart, csv_upload, goto, new_app, small_csv

    at = goto(csv_upload(new_app(), "patients.csv", small_csv()), "pages/compare.py")
    at.session_state["cmp_eval_open"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    el = next(e for e in at.get("plotly_chart") if e.proto.id.endswith("-cmp_op_confusion"))
    assert list(el.proto.selection_mode)  # on_select with points: a click is an event
    spec = chart(at, "cmp_op_confusion")
    assert [t.get("name") for t in spec["data"]][1] == CELLS_TRACE
    assert spec["layout"]["meta"]["cells"] == [[0, 0], [0, 1], [1, 0], [1, 1]]
    at.selectbox(key="cmp_op_cell").set_value("true + predicted − (FN)").run()
    fn = spec["layout"]["meta"]["counts"][0][1]
    assert any(
        f"{fn} predictions in the cell true + predicted − (FN)" in c.value for c in at.caption
    )
