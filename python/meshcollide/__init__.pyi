"""Type stubs of ``meshcollide`` (the native module ``meshcollide._meshcollide``)."""

from os import PathLike
from typing import Any, Iterable, Iterator, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike[str]]
# float64 or float32 arrays (or nested lists of Python floats, which NumPy makes float64):
# no other dtype is converted, so that nothing lossy is.
_Coords = Union[npt.NDArray[np.float64], npt.NDArray[np.float32], Sequence[Sequence[float]]]
# Any integer dtype; every value checked against the vertex count.
_Indices = Union[npt.NDArray[np.integer[Any]], Sequence[Sequence[int]]]
_Bv = Literal[
    "kdop6", "kdop14", "kdop18", "kdop26", "boxtree", "rtree",
    "dual6", "dual14", "dual18", "dual26", "obb", "sphere", "auto",
]

PAIRS_HEADER: str
__version__: str

class InputError(ValueError):
    """Bad input (a mesh, poses, an array's dtype or values, an option out of its range);
    the message names the file and line, the array and row, or the argument and its range.
    Control characters of quoted names and content are escaped (``\\u{1b}``)."""

class GpuError(RuntimeError):
    """The GPU pipeline failed (no adapter, device lost, out of memory, validation)."""

def load_mesh(path: _Path) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Vertices float64 ``(n, 3)`` and triangles int64 ``(m, 3)`` (docs/FORMATS.md numbering).

    A ``.mch`` file (``meshcollide build``) gives the mesh it holds."""

def load_poses(path: _Path) -> npt.NDArray[np.float64]:
    """``poses.csv`` in any of its forms, checked: float64 ``(P, 7)`` rows
    ``qw,qx,qy,qz,tx,ty,tz`` for a quaternion file (a ``qx,qy,qz,qw,…`` file's fields moved
    into that order), ``(P, 3, 4)`` rows ``[R | t]`` for a matrix file (``r00,…,tz``); the
    numbers as written. ``query`` takes either."""

def self_collide(
    vertices: _Coords,
    triangles: _Indices,
    *,
    frames: Optional[Iterable[_Coords]] = None,
    bv: Literal["kdop6", "kdop14", "kdop18", "kdop26"] = "kdop18",
    mode: Literal["all", "first"] = "all",
    leaf_size: int = 1,
    backend: Literal["auto", "cpu", "gpu"] = "auto",
    threads: Optional[int] = None,
    tolerance: float = 0.0,
) -> npt.NDArray[np.int64]:
    """Self-collision (``meshcollide self``): int64 ``(K, 3)`` rows ``frame, tri_a, tri_b``
    with ``tri_a < tri_b``; ``tolerance=eps``: pairs without a common vertex index within
    ``eps`` instead (exact; ``backend="gpu"`` on the GPU, ``"auto"`` on the CPU); neighbours sharing vertices count only where they meet outside
    their shared vertices. ``frames``: an iterable of ``(n, 3)`` vertex arrays, one per
    frame (the hierarchy is refitted); without it, frame 0 is the mesh as given; an empty
    ``frames`` raises ``InputError`` (``frames: the frame list names no frame``, as the
    command line refuses an empty frame list). ``backend``: ``auto`` (a hardware GPU, else
    the CPU), ``cpu`` or ``gpu`` (the same pairs). ``threads``: a pool of that many
    threads for this call (1 to 4096; default rayon's global pool: every core, or
    ``RAYON_NUM_THREADS``). Arrays, ``leaf_size`` (1 to 2**32 − 1) and ``threads`` are
    checked as ``Collider``'s."""

def write_pairs(path: _Path, pairs: npt.NDArray[np.integer[Any]]) -> None:
    """Writes ``pairs.csv`` atomically (temporary file, then rename). ``pairs`` must be an
    integer ``(K, 3)`` array of non-negative rows sorted by (pose, tri_a, tri_b) without
    duplicates (what ``query`` returns, or shards of it concatenated in pose order); else
    ``InputError`` names the first bad row and nothing is written."""

class Collider:
    """Both hierarchies of a scene: A the environment, B the flying mesh.

    Vertices are float64 or float32 ``(n, 3)`` arrays (no other dtype is converted: strings,
    complex, bool, object, float16, long double and integer arrays raise ``InputError``),
    every coordinate finite and 0 or of a magnitude from 2**-200 to 2**100, as in a file;
    triangles are ``(m, 3)`` arrays of any integer dtype (float indices are refused, whole or
    not), every index from 0 to n − 1, an error naming the row otherwise. Integer options
    are checked against their ranges (``InputError`` naming the option and the range; a
    ``TypeError`` for what is no integer, ``bool`` included): ``leaf_size``, ``leaf_size_b``
    1 to 2**32 − 1 (the boxtree takes at most 16), ``gpu_memory`` 1 to 2**44 − 1 MiB, ``rtree_min``, ``rtree_max`` as
    ``meshcollide query`` checks them whatever ``bv``, ``chunk_poses`` 1 to 2**20,
    ``threads`` 1 to 4096.

    ``threads``: the collider's own pool of that many threads, for its build and every
    query; default (``None``) rayon's global pool, every core or ``RAYON_NUM_THREADS``
    (read once per process, before the first parallel work)."""

    def __init__(
        self,
        vertices_a: _Coords,
        triangles_a: _Indices,
        vertices_b: _Coords,
        triangles_b: _Indices,
        *,
        bv: _Bv = "auto",
        box_test: Literal["align", "satlite", "sat", "lut"] = "satlite",
        dual_symmetric: bool = False,
        dual_order: Literal["pair", "fixed"] = "pair",
        split: Literal["splatter", "longest", "minsum", "minmax"] = "splatter",
        split_point: Literal["mean", "median"] = "mean",
        leaf_size: int = 1,
        leaf_size_b: Optional[int] = None,
        tumble: Literal["auto", "approx", "exact"] = "auto",
        descent: Optional[Literal["larger", "env"]] = None,
        coherence: Union[bool, Literal["auto", "on", "off"]] = "auto",
        gpu_memory: Optional[int] = None,
        rtree_collide: Literal["v1", "v2"] = "v2",
        rtree_min: int = 4,
        rtree_max: int = 8,
        chunk_poses: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> None: ...
    @staticmethod
    def from_files(
        path_a: _Path,
        path_b: _Path,
        *,
        bv: _Bv = "auto",
        box_test: Literal["align", "satlite", "sat", "lut"] = "satlite",
        dual_symmetric: bool = False,
        dual_order: Literal["pair", "fixed"] = "pair",
        split: Literal["splatter", "longest", "minsum", "minmax"] = "splatter",
        split_point: Literal["mean", "median"] = "mean",
        leaf_size: int = 1,
        leaf_size_b: Optional[int] = None,
        tumble: Literal["auto", "approx", "exact"] = "auto",
        descent: Optional[Literal["larger", "env"]] = None,
        coherence: Union[bool, Literal["auto", "on", "off"]] = "auto",
        gpu_memory: Optional[int] = None,
        rtree_collide: Literal["v1", "v2"] = "v2",
        rtree_min: int = 4,
        rtree_max: int = 8,
        chunk_poses: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> "Collider":
        """Loads A and B (mesh files, or ``.mch`` files of ``meshcollide build``, whose saved
        hierarchy is used without rebuilding; one built with other options raises
        ``InputError`` naming the file and each difference)."""
    def query(
        self,
        poses: _Coords,
        mode: Literal["all", "first"] = "all",
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        first_pose: int = 0,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
        tolerance: float = 0.0,
        budget: Optional[int] = None,
        budget_order: Optional[Literal["best", "depth", "breadth"]] = None,
    ) -> Union[npt.NDArray[np.int64], Tuple[npt.NDArray[np.int64], npt.NDArray[np.void]]]:
        """Rows ``pose, tri_a, tri_b`` (int64 ``(K, 3)``) in ``pairs.csv`` order, pose
        numbers ``first_pose + row``. ``poses``: a float64 or float32 array, each row checked
        as a ``poses.csv`` row: ``(P, 7)`` quaternion rows in the order ``quat`` names
        (``"wxyz"``: ``qw,qx,qy,qz,tx,ty,tz``; ``"xyzw"``: SciPy's ``as_quat()`` order), or
        ``(P, 3, 4)`` / ``(P, 4, 4)`` rigid transforms ``[R | t]`` applied as written (rows
        orthonormal within 1e-6; a 4×4's last row ``0 0 0 1``). ``first_pose``:
        from 0 to 2**63 − P, so that every pose number is an int64 (``InputError`` naming
        the range otherwise, never a wrap). ``tolerance``: every pair of triangles within
        this distance instead, decided exactly (a float at least 0; 0 is the ordinary
        query; ``backend="auto"`` runs it on the CPU, ``backend="gpu"`` on every binary tree
        (the k-DOPs, ``auto``'s kdop18, the dual, OBB and sphere trees), and raises
        ``InputError`` for the boxtree and the R-tree).
        ``budget``: at most this many node tests per pose (``query --budget``), spent in
        ``budget_order`` (default ``"best"``; with ``backend="gpu"`` ``"breadth"``, the
        only order the GPU runs); the call then returns ``(pairs, status)``, ``status`` a
        structured array with ``status.csv``'s columns: ``pose`` int64, ``answer``
        (``"contact"``, ``"free"`` or ``"maybe"``), ``complete`` bool, ``depth_bound``
        float64 (a proven upper bound on the penetration depth of any contact left
        undecided; 0 when complete), ``bv_tests`` uint64. Every hierarchy on the CPU
        (``backend="auto"`` too; ``auto`` answers on its kdop18 tree); with
        ``backend="gpu"`` the k-DOP, dual, OBB and sphere trees, breadth first, with the
        CPU's answers, node tests and bounds (``InputError`` for another order, the boxtree
        and the R-tree). ``InputError`` with a tolerance."""
    def distance(
        self,
        poses: _Coords,
        upto: Optional[float] = None,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
        backend: Literal["auto", "cpu", "gpu"] = "auto",
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The minimum distance between the meshes at each pose, as ``meshcollide distance``
        writes it: ``(distance, tri, points)``, float64 ``(P,)`` (the witness pair's exact
        distance rounded once, 0 when they intersect, ``inf`` without a witness), int64
        ``(P, 2)`` (``tri_a, tri_b``, ``-1`` without a witness) and float64 ``(P, 2, 3)``
        (the closest point on A's triangle, then on B's as posed, each coordinate rounded
        once; NaN without a witness). ``upto``: a pose farther apart than it has no witness
        and its search stops early. Runs on any hierarchy's binary tree (``bv="auto"`` uses its
        kdop18 tree; ``boxtree`` and ``rtree`` raise ``InputError``); poses as ``query`` takes
        them. ``backend="gpu"`` prunes node pairs on the GPU (the k-DOP trees and ``auto``'s
        kdop18; the others raise ``InputError``) with the same answers; ``"auto"`` and
        ``"cpu"`` answer on the CPU."""
    def inside(
        self,
        poses: _Coords,
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        first_pose: int = 0,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.str_]]:
        """``meshcollide query --solid``'s ``inside.csv``: the poses where the surfaces do
        not meet and one closed mesh lies inside the other, as ``(pose, inner)``: int64
        ``(P',)`` pose numbers (offset by ``first_pose``) and ``"a"`` or ``"b"`` (the mesh
        inside). Both meshes must be closed (``InputError`` naming the mesh and an open
        edge otherwise); decided exactly (ray parity with exact predicates)."""
    def contact_geometry(
        self,
        poses: _Coords,
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        first_pose: int = 0,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """``meshcollide query --contact-geometry``'s ``segments.csv``: ``(rows, points)``,
        int64 ``(K, 3)`` ``pose, tri_a, tri_b`` (pose numbers offset by ``first_pose``) and
        float64 ``(K, 2, 3)`` the edges of each intersecting pair's intersection set (a
        touching point as an edge from itself to itself, a segment, or a coplanar overlap
        polygon's edges), each coordinate its exact value rounded once."""
    def iter_query(
        self,
        poses: _Coords,
        chunk: int = 4096,
        mode: Literal["all", "first"] = "all",
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        first_pose: int = 0,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
        tolerance: float = 0.0,
    ) -> Iterator[Tuple[int, npt.NDArray[np.int64]]]:
        """``query`` a chunk of ``chunk`` poses at a time, for runs whose pairs would not fit
        in memory at once: yields ``(first, pairs)``, ``first`` the pose number of the
        chunk's first pose, ``pairs`` what ``query`` returns for the chunk (pose numbers
        absolute), so the chunks concatenated equal ``query(poses, ...)`` (with
        ``mode="first"``: the same poses in contact, the one pair kept per pose the
        traversal's first, which may differ from ``query``'s). Every argument
        and pose row is checked by the call, before any chunk runs; ``chunk`` from 1 to
        2**63 − 1. ``last_stats`` is the last chunk's."""
    def warm_up(self) -> None:
        """Runs the query's code on a small scene of the same volume and reads the top of
        this collider's trees (the build already did), so that the next query's code is in
        the CPU's caches; pairs and counters stay as they are."""
    @property
    def last_stats(self) -> Optional[dict[str, Any]]:
        """The last query's ``stats.json`` fields, or ``None`` before the first query."""
    @property
    def bv(self) -> str: ...
    @property
    def build_ms(self) -> float: ...
    @property
    def triangles(self) -> Tuple[int, int]: ...

class Scene:
    """Many bodies (meshes placed in the world) whose intersecting triangle pairs are found
    frame by frame: ``meshcollide scene`` with arrays (docs/FORMATS.md, "Scenes of many
    bodies"). ``meshes``: a sequence of ``(vertices, triangles)`` pairs, each checked as
    ``Collider``'s arrays (errors name ``meshes[k]``). ``bodies``: an integer array ``(B,)``,
    body ``i``'s mesh number; bodies naming the same mesh share one hierarchy, built once.
    ``static``: a bool array ``(B,)``, ``True`` for a body of the environment (placed once,
    never moved; two static bodies are never paired); default every body moving. No body is
    present until placed (``step``, ``insert``). ``bv``: a k-DOP (``auto`` is kdop18);
    ``mode="first"``: at most one contact per pair of bodies and frame; ``self_pairs``: also
    the pairs inside each moving body (``body_a = body_b``, ``tri_a < tri_b``);
    ``split``, ``split_point``, ``leaf_size`` and ``threads`` as ``Collider``'s."""

    def __init__(
        self,
        meshes: Sequence[Tuple[_Coords, _Indices]],
        bodies: Union[npt.NDArray[np.integer[Any]], Sequence[int]],
        static: Optional[Union[npt.NDArray[np.bool_], Sequence[bool]]] = None,
        *,
        bv: Literal["kdop6", "kdop14", "kdop18", "kdop26", "auto"] = "auto",
        mode: Literal["all", "first"] = "all",
        self_pairs: bool = False,
        split: Literal["splatter", "longest", "minsum", "minmax"] = "splatter",
        split_point: Literal["mean", "median"] = "mean",
        leaf_size: int = 1,
        threads: Optional[int] = None,
    ) -> None: ...
    @staticmethod
    def from_files(
        bodies_csv: _Path,
        *,
        bv: Literal["kdop6", "kdop14", "kdop18", "kdop26", "auto"] = "auto",
        mode: Literal["all", "first"] = "all",
        self_pairs: bool = False,
        split: Literal["splatter", "longest", "minsum", "minmax"] = "splatter",
        split_point: Literal["mean", "median"] = "mean",
        leaf_size: int = 1,
        threads: Optional[int] = None,
    ) -> "Scene":
        """Reads a bodies file (``body,mesh,kind`` rows; mesh paths relative to it; bodies
        naming the same file share one mesh); errors name the file and line."""
    def step(
        self,
        ids: Optional[Union[npt.NDArray[np.integer[Any]], Sequence[int]]] = None,
        poses: Optional[_Coords] = None,
        remove: Optional[Union[npt.NDArray[np.integer[Any]], Sequence[int]]] = None,
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        quat: Literal["wxyz", "xyzw"] = "wxyz",
    ) -> npt.NDArray[np.int64]:
        """One frame: places the bodies ``ids`` at ``poses`` (one each, any form ``query``
        takes), takes out the bodies ``remove``, then returns the frame's contacts: int64
        ``(K, 5)`` rows ``frame, body_a, tri_a, body_b, tri_b`` of ``contacts.csv``, sorted by
        ``frame, body_a, body_b, tri_a, tri_b``; ``frame`` is the frame counter (from 0, one
        more per step). The motions apply all or none: a body out of range or named twice, a
        static body placed again, an absent body removed raises ``InputError`` naming the
        body and changes nothing. ``backend`` as ``Collider.query``'s."""
    def insert(
        self,
        ids: Union[npt.NDArray[np.integer[Any]], Sequence[int]],
        poses: _Coords,
        quat: Literal["wxyz", "xyzw"] = "wxyz",
    ) -> None:
        """Places bodies as ``step`` does, without contacts; the frame counter stays."""
    def remove(self, ids: Union[npt.NDArray[np.integer[Any]], Sequence[int]]) -> None:
        """Takes bodies out as ``step`` does, without contacts; the frame counter stays."""
    def contacts(self, backend: Literal["auto", "cpu", "gpu"] = "auto") -> npt.NDArray[np.int64]:
        """The contacts as the scene stands, rows as ``step``'s numbered ``frame`` (the frame
        the motions since the last step belong to); the counter is not advanced."""
    def pose(self, i: int) -> Optional[npt.NDArray[np.float64]]:
        """Body ``i``'s world pose as a float64 ``(3, 4)`` matrix ``[R | t]``, or ``None``
        while it is absent."""
    @property
    def last_stats(self) -> Optional[dict[str, Any]]:
        """The last ``step``'s (or ``contacts``'s) ``frame``, ``backend``, ``contacts``,
        ``broad_pairs``, ``swaps``, ``broad_ms``, ``narrow_ms``, ``step_ms``, ``bv_tests``,
        ``tri_tests``, …; ``None`` before the first."""
    @property
    def body_count(self) -> int: ...
    @property
    def mesh_count(self) -> int: ...
    @property
    def frame(self) -> int: ...
    @property
    def bv(self) -> str: ...
    @property
    def build_ms(self) -> float: ...
