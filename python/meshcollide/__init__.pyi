"""Type stubs of ``meshcollide`` (the native module ``meshcollide._meshcollide``)."""

from os import PathLike
from typing import Any, Literal, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike[str]]
_Bv = Literal[
    "kdop6", "kdop14", "kdop18", "kdop26", "boxtree", "rtree",
    "dual6", "dual14", "dual18", "dual26", "obb", "sphere", "auto",
]

PAIRS_HEADER: str

class InputError(ValueError):
    """Bad input (a mesh, poses, an option); the message names the file and line or row."""

class GpuError(RuntimeError):
    """The GPU pipeline failed (no adapter, device lost, out of memory, validation)."""

def load_mesh(path: _Path) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Vertices float64 ``(n, 3)`` and triangles int64 ``(m, 3)`` (FORMATS.md numbering).

    A ``.mch`` file (``meshcollide build``) gives the mesh it holds."""

def load_poses(path: _Path) -> npt.NDArray[np.float64]:
    """``poses.csv`` as float64 ``(P, 7)`` rows ``qw,qx,qy,qz,tx,ty,tz``, checked."""

def self_collide(
    vertices: npt.ArrayLike,
    triangles: npt.ArrayLike,
    *,
    frames: Optional[Any] = None,
    bv: Literal["kdop6", "kdop14", "kdop18", "kdop26"] = "kdop18",
    mode: Literal["all", "first"] = "all",
    leaf_size: int = 1,
    backend: Literal["auto", "cpu", "gpu"] = "auto",
) -> npt.NDArray[np.int64]:
    """Self-collision (``meshcollide self``): int64 ``(K, 3)`` rows ``frame, tri_a, tri_b``
    with ``tri_a < tri_b``; neighbours sharing vertices count only where they meet outside
    their shared vertices. ``frames``: an iterable of ``(n, 3)`` vertex arrays, one per
    frame (the hierarchy is refitted); without it, frame 0 is the mesh as given.
    ``backend``: ``auto`` (a hardware GPU, else the CPU), ``cpu`` or ``gpu`` (the same
    pairs)."""

def write_pairs(path: _Path, pairs: npt.NDArray[np.int64]) -> None:
    """Writes ``pairs.csv`` atomically (temporary file, then rename)."""

class Collider:
    """Both hierarchies of a scene: A the environment, B the flying mesh."""

    def __init__(
        self,
        vertices_a: npt.ArrayLike,
        triangles_a: npt.ArrayLike,
        vertices_b: npt.ArrayLike,
        triangles_b: npt.ArrayLike,
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
    ) -> "Collider":
        """Loads A and B (mesh files, or ``.mch`` files of ``meshcollide build``, whose saved
        hierarchy is used without rebuilding; one built with other options raises
        ``InputError`` naming the file and each difference)."""
    def query(
        self,
        poses: npt.ArrayLike,
        mode: Literal["all", "first"] = "all",
        backend: Literal["auto", "cpu", "gpu"] = "auto",
        first_pose: int = 0,
    ) -> npt.NDArray[np.int64]:
        """Rows ``pose, tri_a, tri_b`` (int64 ``(K, 3)``) in ``pairs.csv`` order."""
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
