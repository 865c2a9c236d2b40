"""skops.io against slb.persistence on every catalogued model (issue 12, item 4).

For each classifier of ``slb.evaluation.registry.CLASSIFIERS`` fitted on 300 Pima rows: can
skops save it, does ``skops.io.loads`` load it without trusting extra types, file sizes,
save/load times, identical predictions; then a 261 kB skops file whose ``schema.json``
inflates to 256 MiB, with the peak memory Python allocates while skops refuses it.  The
result is quoted in ``slb/persistence.py``'s docstring.  skops is not a dependency; install it
aside to run this::

    pip install --target /tmp/skops_env skops prettytable
    PYTHONPATH=/tmp/skops_env:. python benchmarks/skops_vs_json.py
"""

from __future__ import annotations

import io
import time
import tracemalloc
import zipfile

import skops
import skops.io as sio

from slb import load_dataset
from slb.evaluation.registry import CLASSIFIERS, make_classifier
from slb.persistence import load_model, save_model


def _skops(model, X) -> str:
    try:
        t = time.perf_counter()
        data = sio.dumps(model)
        t_save = time.perf_counter() - t
    except Exception as e:  # noqa: BLE001 - the measurement is whether it works
        return f"skops cannot save it ({type(e).__name__}: {str(e)[:70]})"
    untrusted = sio.get_untrusted_types(data=data)
    try:
        sio.loads(data)
        default = "loads"
    except Exception as e:  # noqa: BLE001
        default = f"refused ({type(e).__name__})"
    t = time.perf_counter()
    again = sio.loads(data, trusted=untrusted)
    t_load = time.perf_counter() - t
    same = bool((again.predict(X) == model.predict(X)).all())
    return (
        f"skops {len(data) / 1e3:.0f} kB, save {t_save * 1e3:.0f} ms, load {t_load * 1e3:.0f} "
        f"ms, same={same}, without trust: {default}, untrusted types {untrusted[:3]}"
    )


def _ours(model, X) -> str:
    buf = io.BytesIO()
    t = time.perf_counter()
    save_model(model, buf)
    t_save = time.perf_counter() - t
    t = time.perf_counter()
    again = load_model(buf.getvalue())
    t_load = time.perf_counter() - t
    same = bool((again.predict(X) == model.predict(X)).all())
    return (
        f"ours {len(buf.getvalue()) / 1e3:.0f} kB, save {t_save * 1e3:.0f} ms, load "
        f"{t_load * 1e3:.0f} ms, same={same}"
    )


def _bomb() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("schema.json", "w", force_zip64=True) as out:
            out.write(b'{"a": "')
            for _ in range(64):
                out.write(b" " * 2**22)
            out.write(b'"}')
    data = buf.getvalue()
    tracemalloc.start()
    try:
        sio.loads(data)
    except Exception as e:  # noqa: BLE001
        print(f"skops on the bomb: {type(e).__name__}: {str(e)[:80]}")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"skops bomb: file {len(data) / 1e3:.0f} kB, peak traced {peak / 1e6:.0f} MB")


def main() -> None:
    print("skops", skops.__version__)
    X, y = load_dataset("pima")
    X, y = X.iloc[:300], y.iloc[:300]
    for name in CLASSIFIERS:
        model = make_classifier(name, random_state=0).fit(X, y)
        print(f"{name}: {_skops(model, X)} | {_ours(model, X)}", flush=True)
    _bomb()


if __name__ == "__main__":
    main()
