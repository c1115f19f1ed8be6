"""meshcollide.self_collide against the command line (`meshcollide self`, itself checked
against an exact rational oracle in the Rust tests) and known geometric facts."""

import os
import subprocess

import numpy as np
import pytest

import meshcollide
from conftest import csv_rows


def cli_self(cli, mesh, out_dir, *args):
    out = out_dir / "self.csv"
    r = subprocess.run([cli, "self", str(mesh), "--out", str(out), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return csv_rows(out.read_bytes())


@pytest.mark.parametrize("kind", ["folded-sheet", "spindle-torus", "torus"])
def test_pairs_equal_the_command_line(cli, tmp_path, kind):
    mesh = tmp_path / f"{kind}.obj"
    r = subprocess.run([cli, "generate", kind, "--out", str(mesh)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    v, t = meshcollide.load_mesh(mesh)
    for bv, args in [("kdop18", []), ("kdop6", ["--bv", "kdop6", "--leaf-size", "4"])]:
        want = cli_self(cli, mesh, tmp_path, *args)
        got = meshcollide.self_collide(v, t, bv=bv, leaf_size=4 if bv == "kdop6" else 1)
        assert got.dtype == np.int64 and got.shape[1] == 3
        np.testing.assert_array_equal(got, want)
        first = meshcollide.self_collide(v, t, mode="first")
        assert len(first) == min(1, len(want))
        if len(first):
            assert any((first[0] == w).all() for w in want)
    # A closed torus does not touch itself; the others do.
    assert (len(want) == 0) == (kind == "torus")


def test_neighbours_count_only_where_they_fold_into_each_other():
    # Two triangles sharing the edge (0, 1): flat, then folded onto each other.
    v = np.array([[0, 0, 0], [1, 0, 0], [0.5, 1, 0], [0.5, -1, 0]], dtype=np.float64)
    t = np.array([[0, 1, 2], [0, 1, 3]])
    assert len(meshcollide.self_collide(v, t)) == 0
    folded = v.copy()
    folded[3] = [0.5, 0.5, 0.0]  # into the first triangle's plane and area
    np.testing.assert_array_equal(meshcollide.self_collide(folded, t), [[0, 0, 1]])
    # The same two triangles without shared indices (unwelded copies) touch along the edge.
    v2 = np.vstack([v, v[[0, 1]]])
    t2 = np.array([[0, 1, 2], [4, 5, 3]])
    np.testing.assert_array_equal(meshcollide.self_collide(v2, t2), [[0, 0, 1]])
    # Frames: flat, folded, flat again.
    got = meshcollide.self_collide(v, t, frames=[v, folded, v])
    np.testing.assert_array_equal(got, [[1, 0, 1]])


def test_bad_input_names_what_is_wrong():
    v = np.zeros((4, 3))
    v[:, 0] = [0, 1, 0, 0]
    v[:, 1] = [0, 0, 1, -1]
    t = np.array([[0, 1, 2], [0, 1, 3]])
    with pytest.raises(meshcollide.InputError, match=r"frames\[1\]: 3 vertices, the mesh has 4"):
        meshcollide.self_collide(v, t, frames=[v, v[:3]])
    with pytest.raises(meshcollide.InputError, match="obb"):
        meshcollide.self_collide(v, t, bv="obb")
    with pytest.raises(meshcollide.InputError, match="unknown"):
        meshcollide.self_collide(v, t, mode="some")
    with pytest.raises(meshcollide.InputError, match="leaf_size"):
        meshcollide.self_collide(v, t, leaf_size=0)
    bad = v.copy()
    bad[2, 0] = np.nan
    with pytest.raises(meshcollide.InputError):
        meshcollide.self_collide(v, t, frames=[bad])


def self_gpu_or_skip(v, t, **kw):
    try:
        return meshcollide.self_collide(v, t, backend="gpu", **kw)
    except meshcollide.GpuError as e:
        if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise


@pytest.mark.parametrize("kind", ["folded-sheet", "spindle-torus"])
def test_gpu_backend_equals_the_cpu(cli, tmp_path, kind):
    mesh = tmp_path / f"{kind}.obj"
    r = subprocess.run([cli, "generate", kind, "--n", "40", "--out", str(mesh)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    v, t = meshcollide.load_mesh(mesh)
    for kw in [{}, {"bv": "kdop6", "leaf_size": 4}]:
        want = meshcollide.self_collide(v, t, backend="cpu", **kw)
        assert len(want) > 0
        np.testing.assert_array_equal(self_gpu_or_skip(v, t, **kw), want)
        first = self_gpu_or_skip(v, t, mode="first", **kw)
        assert len(first) == 1 and any((first[0] == w).all() for w in want)
    # Frames: the hierarchy refitted on the CPU, re-sent to the GPU.
    frames = [v * 1.0, v * [1.0, 1.0, 0.0], v * 2.0]
    want = meshcollide.self_collide(v, t, frames=frames, backend="cpu")
    np.testing.assert_array_equal(self_gpu_or_skip(v, t, frames=frames), want)
    with pytest.raises(meshcollide.InputError, match="backend"):
        meshcollide.self_collide(v, t, backend="tpu")
