"""Exact collision detection between triangle meshes (k-DOP hierarchies, CPU and GPU).

The Python face of the ``meshcollide`` Rust library: meshes and poses are NumPy arrays,
results are ``pairs.csv`` rows. See ``help(Collider)`` and the README's "Python" section.
"""

import os as _os


def _runtime_dir():
    """A valid XDG_RUNTIME_DIR before wgpu probes Vulkan, as the command line ensures:
    without one, Mesa's drivers make libwayland print `error: XDG_RUNTIME_DIR is invalid`."""
    cur = _os.environ.get("XDG_RUNTIME_DIR", "")
    if _os.name != "posix" or (_os.path.isabs(cur) and _os.path.isdir(cur)):
        return
    import tempfile

    d = _os.path.join(tempfile.gettempdir(), "meshcollide-runtime-%d" % _os.getuid())
    try:
        _os.makedirs(d, mode=0o700, exist_ok=True)
        if _os.stat(d).st_uid == _os.getuid():
            _os.environ["XDG_RUNTIME_DIR"] = d
    except OSError:
        pass


_runtime_dir()

from ._meshcollide import (  # noqa: E402
    Collider,
    GpuError,
    InputError,
    Scene,
    __version__,
    load_mesh,
    load_poses,
    self_collide,
)



def _constructor_signature(cls, positional):
    """``inspect.signature(cls)`` (and ``help``) on every Python the wheel serves: an
    abi3 build run by CPython 3.9 has no class text signature (pyo3 leaves it out of the
    type's doc there), so the class gets one built from ``from_files``'s keywords (the same
    options read both) after its positional arguments (``(name, default)``, ``default``
    ``inspect.Parameter.empty`` for none). Newer Pythons read the extension's own."""
    import inspect

    try:
        inspect.signature(cls)
        return
    except ValueError:
        pass
    p = inspect.Parameter
    arrays = [p(n, p.POSITIONAL_OR_KEYWORD, default=d) for n, d in positional]
    keywords = [k for k in inspect.signature(cls.from_files).parameters.values() if k.kind is p.KEYWORD_ONLY]
    try:
        cls.__signature__ = inspect.Signature(arrays + keywords)
    except (AttributeError, TypeError):
        pass


def _signatures():
    import inspect

    none = inspect.Parameter.empty
    _constructor_signature(Collider, [(n, none) for n in ("vertices_a", "triangles_a", "vertices_b", "triangles_b")])
    _constructor_signature(Scene, [("meshes", none), ("bodies", none), ("static", None)])


_signatures()

__all__ = [
    "Collider",
    "GpuError",
    "InputError",
    "Scene",
    "__version__",
    "load_mesh",
    "load_poses",
    "self_collide",
    "write_pairs",
]

PAIRS_HEADER = "pose,tri_a,tri_b"


def _check_pairs(pairs):
    """``pairs`` as an integer ``(K, 3)`` array of ``pairs.csv`` rows, or ``InputError``
    naming the first row that breaks the format (docs/FORMATS.md: pose, tri_a, tri_b, each a
    non-negative integer; sorted by (pose, tri_a, tri_b), no duplicates). A file is not
    written from rows that are not one: a reader of ``pairs.csv`` relies on its order."""
    import numpy as np

    try:
        a = np.asarray(pairs)
    except ValueError as e:
        raise InputError(f"pairs: not an array of integers: {e}") from None
    if a.dtype.kind not in "iu":
        raise InputError(f"pairs: expected an integer array, found dtype {a.dtype} "
                         "(nothing is converted that could change a value)")
    if a.ndim != 2 or a.shape[1] != 3:
        raise InputError(f"pairs: expected shape (K, 3), found {list(a.shape)}")
    if a.dtype.kind == "i":
        neg = np.flatnonzero((a < 0).any(axis=1))
        if len(neg):
            i = int(neg[0])
            raise InputError(f"pairs: row {i} {a[i].tolist()}: negative value "
                             f"(pose, tri_a and tri_b are non-negative)")
    if len(a) > 1:
        p, q = a[:-1], a[1:]
        # Row i + 1 after row i in (pose, tri_a, tri_b) order, strictly (no duplicate).
        after = (q[:, 0] > p[:, 0]) | ((q[:, 0] == p[:, 0]) & (
            (q[:, 1] > p[:, 1]) | ((q[:, 1] == p[:, 1]) & (q[:, 2] > p[:, 2]))))
        bad = np.flatnonzero(~after)
        if len(bad):
            i = int(bad[0]) + 1
            if (a[i] == a[i - 1]).all():
                raise InputError(f"pairs: row {i} {a[i].tolist()} repeats row {i - 1} "
                                 "(pairs.csv has no duplicates)")
            raise InputError(f"pairs: row {i} {a[i].tolist()} comes before row {i - 1} "
                             f"{a[i - 1].tolist()} (pairs.csv is sorted by pose, tri_a, tri_b)")
    return a


def write_pairs(path, pairs):
    """Writes ``pairs`` (rows ``pose, tri_a, tri_b``) as ``pairs.csv`` atomically: to a
    temporary file next to ``path``, synced, then renamed into place. ``pairs`` is checked
    first (an integer ``(K, 3)`` array, non-negative, sorted by (pose, tri_a, tri_b), no
    duplicates: what ``Collider.query`` returns, or shards of it concatenated in pose
    order); ``InputError`` names the first bad row, and nothing is written then."""
    import os

    rows = _check_pairs(pairs)
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    try:
        with open(tmp, "w", newline="\n") as f:
            f.write(PAIRS_HEADER + "\n")
            f.writelines("%d,%d,%d\n" % (p, a, b) for p, a, b in rows.tolist())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
