"""Streamlit glue of the SLB Explorer dashboard, shared by ``app.py`` and ``pages/``.

* :mod:`dashboard.state`     per-session settings and widgets bound to them;
* :mod:`dashboard.data`      bundled / synthetic / uploaded data -> the session's dataset;
* :mod:`dashboard.compute`   cached computations (every number comes from :mod:`slb`);
* :mod:`dashboard.models`    the registry of classifiers the Compare page offers;
* :mod:`dashboard.controls`  widget groups shared by pages (λ, bandwidths);
* :mod:`dashboard.sidebar`   the sidebar every page shows;
* :mod:`dashboard.safety`    Markdown escaping and CSV formula neutralisation.

Figures are built by :mod:`slb.viz.figures` (pure plotly).  Nothing here keeps module-level
mutable state: all session data lives in ``st.session_state``.
"""
