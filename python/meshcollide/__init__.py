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
    load_mesh,
    load_poses,
    self_collide,
)

__all__ = [
    "Collider",
    "GpuError",
    "InputError",
    "load_mesh",
    "load_poses",
    "self_collide",
    "write_pairs",
]

PAIRS_HEADER = "pose,tri_a,tri_b"


def write_pairs(path, pairs):
    """Writes ``pairs`` (rows ``pose, tri_a, tri_b``) as ``pairs.csv`` atomically: to a
    temporary file next to ``path``, synced, then renamed into place."""
    import os

    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    try:
        with open(tmp, "w", newline="\n") as f:
            f.write(PAIRS_HEADER + "\n")
            f.writelines("%d,%d,%d\n" % (p, a, b) for p, a, b in pairs.tolist())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
