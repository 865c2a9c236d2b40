"""Reading a model file's container within its declared sizes and the loader's budgets.

:func:`slb.persistence.load_model` reads a file anyone may have written.  This module turns its
bytes into the parsed ``model.json`` and the arrays of ``arrays.npz`` without ever allocating
more than the file declares or :mod:`slb.persistence`'s limits allow: the central directories
are measured from their end records before :mod:`zipfile` parses them, every member's declared
size is checked before it is inflated and members are inflated in 1 MiB chunks that stop at the
declared size (``ZipExtFile.read()`` without a size asks zlib for up to 2 GiB at once), each
``.npy`` header's shape and dtype are checked before its body is read, the JSON is capped in
size, depth, entries, trees and estimators and may not hold bare ``NaN``/``Infinity``.  A
:class:`_Load` carries one call's time budget and tree-node count through reading and decoding.

The limits are module constants (re-exported by :mod:`slb.persistence`).
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
import time
import zipfile

import numpy as np

#: Limits of :func:`load_model` (bytes).  A model's arrays (training data of the densities)
#: are the big part; its JSON holds names and parameters only.
MAX_FILE_BYTES = 200 * 2**20
MAX_ARRAY_BYTES = 200 * 2**20
MAX_JSON_BYTES = 64 * 2**20  # SLB with all 124,750 pairs of 500 features: about 45 MB
MAX_JSON_DEPTH = 64
MAX_JSON_ITEMS = 5_000_000  # commas: bounds the objects json.loads creates
#: Trees in one file (a forest's), and estimators in all (the trees, the forest, its template
#: trees, a pipeline's steps): rebuilding one costs 2-4 ms.
MAX_TREES = 300
MAX_ESTIMATORS = MAX_TREES + 16
#: Nodes of all trees together (64 bytes each, plus the class weights).
MAX_TREE_NODES = 1_000_000
#: Default time budget of one :func:`load_model` call, in seconds.
MAX_LOAD_SECONDS = 10.0
_MEMBERS = {"model.json", "arrays.npz"}
#: Central directory sizes (bytes) of the model file and of its arrays' ``.npz``: zipfile
#: builds one object per entry before anything is checked (200,000 empty entries, 17 MB of
#: file: 105 MB and seconds), so the directory is measured first.  An entry takes at least 46
#: bytes; the ``.npz`` of a 300-tree forest has ~3,300 entries of ~100 bytes.
MAX_DIRECTORY_BYTES = 4096
MAX_ARRAY_DIRECTORY_BYTES = 2 * 2**20
_CHUNK = 2**20  # members are inflated this many bytes at a time
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _read_limited(file) -> bytes:
    """The file's bytes, refusing more than :data:`MAX_FILE_BYTES`."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        data = bytes(file)
    elif hasattr(file, "read"):
        data = file.read(MAX_FILE_BYTES + 1)
    else:
        with open(file, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"The model file is larger than {MAX_FILE_BYTES // 2**20} MiB.")
    return data


def _not_a_model(why: str) -> ValueError:
    return ValueError(
        f"This is not an SLB Explorer model file ({why}). Choose a file saved by the "
        'dashboard\'s "Download model" or by slb.persistence.save_model.'
    )


def _damaged(why: str) -> ValueError:
    return ValueError(
        f"The model file is damaged ({why}). Download or save the model again and load the new "
        "file."
    )


def _read_member(zf, info, ctx, out=None):
    """A zip member's bytes, inflated :data:`_CHUNK` bytes at a time.

    ``ZipExtFile.read()`` without a size asks zlib for up to 2 GiB at once and only then cuts
    the result to the declared size, so a member that declares 8 KB but inflates to 900 MB
    would cost 900 MB first.  Here every read asks for at most one chunk and the total stops at
    the declared size + 1; a member that is longer or shorter than it declares is refused.
    """
    if info.compress_type not in _COMPRESSIONS or info.flag_bits & 0x1:
        raise _not_a_model(f"{info.filename[:80]!r} is encrypted or compressed in an unknown way")
    limit = info.file_size
    out = io.BytesIO() if out is None else out
    got = 0
    try:
        with zf.open(info) as fh:
            while got <= limit:
                block = fh.read(min(_CHUNK, limit + 1 - got))
                if not block:
                    break
                out.write(block)
                got += len(block)
                ctx.check_time()
    except zipfile.BadZipFile as exc:
        raise _damaged(str(exc)) from None
    if got != limit:
        raise _damaged(f"{info.filename[:80]!r} holds {got:,} bytes, not the {limit:,} it declares")
    return out


def _check_directory(fh, limit: int, what: str) -> None:
    """Refuse a zip whose central directory is larger than ``limit`` bytes, or zip64 (which
    model files never use), before :class:`zipfile.ZipFile` parses it."""
    fh.seek(0, io.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - 22 - 65535))
    tail = fh.read()
    fh.seek(0)
    i = tail.rfind(b"PK\x05\x06")
    if i < 0 or len(tail) - i < 22:
        raise _not_a_model(f"{what} is not a zip archive")
    entries, cd_size = struct.unpack_from("<HI", tail, i + 10)
    if i >= 20 and tail[i - 20 : i - 16] == b"PK\x06\x07":
        raise _not_a_model(f"{what} is a zip64 archive")
    if cd_size > limit or entries * 46 > limit:
        raise ValueError(
            f"The model file's {what} lists {entries:,} entries in {cd_size:,} bytes; at most "
            f'{limit:,} bytes are read. Choose a file saved by the dashboard\'s "Download model" '
            "or by slb.persistence.save_model."
        )


def _read_container(data: bytes, ctx=None):
    """The parsed ``model.json`` of a model file (its arrays go to ``ctx.arrays``), every size
    checked before it is inflated."""
    ctx = _Load() if ctx is None else ctx
    _check_directory(io.BytesIO(data), MAX_DIRECTORY_BYTES, "archive")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _not_a_model(str(exc)) from None
    with zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        if sorted(names) != sorted(_MEMBERS):
            raise _not_a_model(f"unexpected contents {names[:5]!r}")
        by_name = {i.filename: i for i in infos}
        sizes = {i.filename: i.file_size for i in infos}
        if sizes["model.json"] > MAX_JSON_BYTES:
            raise ValueError(
                f"The model file's description is {sizes['model.json']:,} bytes unpacked; at "
                f"most {MAX_JSON_BYTES:,} are allowed."
            )
        if sizes["arrays.npz"] > MAX_ARRAY_BYTES:
            raise ValueError(
                f"The model file's arrays are {sizes['arrays.npz']:,} bytes unpacked; at most "
                f"{MAX_ARRAY_BYTES:,} are allowed."
            )
        text = _read_member(zf, by_name["model.json"], ctx).getvalue()
        doc = _parse_json(text)
        if b'"__tree__"' in text:
            _count_tree_nodes(doc)  # before the arrays are inflated
        del text
        npz = _read_member(zf, by_name["arrays.npz"], ctx)
    ctx.arrays = _read_arrays(npz, ctx)
    return doc


def _count_tree_nodes(doc) -> None:
    """Refuse a document whose trees declare more than :data:`MAX_TREE_NODES` nodes."""
    total, stack = 0, [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            tree = obj.get("__tree__")
            if isinstance(tree, dict) and isinstance(tree.get("__dict__"), list):
                for pair in tree["__dict__"]:
                    if isinstance(pair, list) and pair[:1] == ["node_count"]:
                        n = pair[1] if len(pair) == 2 else 0
                        total += n if isinstance(n, int) and n > 0 else 0
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    if total > MAX_TREE_NODES:
        _Load().add_tree(total)


def _refuse_constant(name):
    raise ValueError(
        f"The model file's description holds the bare constant {name}, which is not JSON; "
        "model files write non-finite numbers differently. Save the model again with "
        "slb.persistence.save_model."
    )


def _parse_json(raw: bytes):
    """``json.loads`` after a bracket-depth scan (deep nesting would exhaust the stack);
    bare ``NaN``/``Infinity`` (Python's JSON extension) are refused."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_a_model(f"the description is not UTF-8: {exc}") from None
    depth, items = _json_extent(raw)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(
            f"The model file's description is nested more than {MAX_JSON_DEPTH} levels deep."
        )
    if items > MAX_JSON_ITEMS:
        raise ValueError(f"The model file's description has more than {MAX_JSON_ITEMS:,} entries.")
    # strings that merely contain the markers only overcount
    n_trees, n_est = raw.count(b'"__tree__"'), raw.count(b'"__estimator__"')
    if n_trees > MAX_TREES or n_est > MAX_ESTIMATORS:
        raise ValueError(
            f"The model file holds {n_trees:,} trees and {n_est:,} estimators in all; at most "
            f"{MAX_TREES} trees and {MAX_ESTIMATORS} estimators are loaded "
            "(slb.persistence.MAX_TREES, MAX_ESTIMATORS). Refit the forest with fewer trees "
            "(n_estimators)."
        )
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise _not_a_model(f"the description is not valid JSON: {exc}") from None


def _json_extent(raw: bytes, chunk: int = 2**20) -> tuple[int, int]:
    """Largest bracket depth and number of commas of a JSON text, scanned with numpy.

    Hand-written because :mod:`json` has neither a depth limit (it recurses once per level)
    nor a size limit.  Brackets and commas inside strings only make the estimates larger,
    which errs on the safe side; UTF-8 multi-byte characters never contain ASCII bytes.
    """
    depth = peak = commas = 0
    for start in range(0, len(raw), chunk):
        b = np.frombuffer(raw, dtype=np.uint8, count=min(chunk, len(raw) - start), offset=start)
        step = np.isin(b, (91, 123)).astype(np.int64) - np.isin(b, (93, 125))
        run = np.cumsum(step) + depth
        commas += int(np.count_nonzero(b == 44))
        if run.size:
            peak, depth = max(peak, int(run.max())), int(run[-1])
    return peak, commas


def _read_arrays(npz, ctx=None) -> dict:
    """The arrays of the nested ``.npz`` (bytes or a binary file object); each ``.npy`` header
    is checked before its body is read, and bodies are read in bounded chunks."""
    ctx = _Load() if ctx is None else ctx
    fh = io.BytesIO(npz) if isinstance(npz, (bytes, bytearray, memoryview)) else npz
    fh.seek(0)
    if fh.read(2) != b"PK":
        raise _not_a_model("the arrays part is not an .npz archive")
    _check_directory(fh, MAX_ARRAY_DIRECTORY_BYTES, "arrays part")
    try:
        inner = zipfile.ZipFile(fh)
    except zipfile.BadZipFile as exc:
        raise _not_a_model(f"the arrays part is damaged: {exc}") from None
    arrays, budget = {}, MAX_ARRAY_BYTES
    with inner:
        infos = inner.infolist()
        declared = sum(i.file_size for i in infos)
        if declared > MAX_ARRAY_BYTES:
            raise ValueError(
                f"The model file's arrays declare {declared:,} bytes unpacked; at most "
                f"{MAX_ARRAY_BYTES:,} are allowed."
            )
        for info in infos:
            if not re.fullmatch(r"a\d{1,9}\.npy", info.filename):
                raise _not_a_model(f"unexpected array member {info.filename[:80]!r}")
            if info.compress_type not in _COMPRESSIONS or info.flag_bits & 0x1:
                raise _not_a_model(f"the array {info.filename[:80]!r} is compressed oddly")
            try:
                with inner.open(info) as member:
                    arr = _read_npy(member, info.file_size, budget, ctx)
            except zipfile.BadZipFile as exc:
                raise _damaged(str(exc)) from None
            budget -= arr.nbytes
            arrays[info.filename[: -len(".npy")]] = arr
    return arrays


def _read_npy(fh, member_size: int, budget: int, ctx=None) -> np.ndarray:
    """One ``.npy`` stream: numeric dtype and a size within the member and the budget."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise _not_a_model(f"unsupported .npy version {version}")
    if dtype.kind not in "biuf" or dtype.hasobject:
        raise ValueError(f"The model file holds an array of type {dtype}; only numbers load.")
    if any(k < 0 for k in shape):
        raise _not_a_model(f"an array declares the shape {tuple(shape)}")
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > min(member_size, budget):
        raise ValueError(
            f"An array of the model file declares shape {tuple(shape)} ({nbytes:,} bytes), more "
            "than the file holds or than is allowed."
        )
    return _read_body(fh, shape, fortran, dtype, nbytes, _Load() if ctx is None else ctx)


def _read_body(fh, shape, fortran, dtype, nbytes, ctx) -> np.ndarray:
    """The body of a ``.npy`` stream, read :data:`_CHUNK` bytes at a time into its array
    (``numpy.lib.format.read_array`` would read the header again and the body in one call)."""
    buf = np.empty(nbytes, dtype=np.uint8)
    got = 0
    while got < nbytes:
        block = fh.read(min(_CHUNK, nbytes - got))
        if not block:
            raise _damaged("an array is truncated")
        buf[got : got + len(block)] = np.frombuffer(block, dtype=np.uint8)
        got += len(block)
        ctx.check_time()
    if fh.read(1):
        raise _damaged("an array member holds more bytes than its shape")
    return buf.view(dtype).reshape(shape, order="F" if fortran else "C")


class _Load:
    """What one :func:`load_model` call has read and spent: arrays, time, estimators, nodes."""

    def __init__(self, max_seconds=None):
        self.arrays = {}
        self.max_seconds = MAX_LOAD_SECONDS if max_seconds is None else float(max_seconds)
        self.deadline = time.monotonic() + self.max_seconds
        self.steps = 0
        self.tree_nodes = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise ValueError(
                f"Loading the model file took more than {self.max_seconds:g} s, the time "
                "load_model allows (max_seconds): the file is too large or too complex. Refit "
                "a smaller model, or pass a larger max_seconds if you trust the file."
            )

    def tick(self) -> None:
        self.steps += 1
        if self.steps % 256 == 0:
            self.check_time()

    def add_tree(self, n_nodes: int) -> None:
        self.tree_nodes += n_nodes
        if self.tree_nodes > MAX_TREE_NODES:
            raise ValueError(
                f"The model file's trees have more than {MAX_TREE_NODES:,} nodes in all, more "
                "than load_model reads (slb.persistence.MAX_TREE_NODES): refit the forest with "
                "fewer or shallower trees (n_estimators, max_depth)."
            )
        self.check_time()
