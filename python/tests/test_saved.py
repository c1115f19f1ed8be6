"""Saved hierarchies (`.mch`) in the Python package: accepted wherever a mesh path is."""

import subprocess

import numpy as np
import pytest

import meshcollide
from conftest import csv_rows, run_cli


def build(cli, mesh, out, *args):
    r = subprocess.run([cli, "build", str(mesh), "--out", str(out), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_mch_files_give_the_pairs_of_their_meshes(scene, cli, tmp_path):
    a = build(cli, scene["a"], tmp_path / "a.mch")
    b = build(cli, scene["b"], tmp_path / "b.mch", "--leaf-size", "2")
    poses = meshcollide.load_poses(scene["poses"])
    want, _ = run_cli(cli, scene["a"], scene["b"], scene["poses"], tmp_path, "--backend", "cpu", "--leaf-size-b", "2")
    for pa, pb in [(a, b), (scene["a"], b), (a, scene["b"])]:
        c = meshcollide.Collider.from_files(pa, pb, leaf_size_b=2)
        np.testing.assert_array_equal(c.query(poses, backend="cpu"), csv_rows(want))
        # stats.json names the saved files, as the command line does.
        for key, p in [("saved_a", pa), ("saved_b", pb)]:
            assert c.last_stats.get(key) == (str(p) if str(p).endswith(".mch") else None), key
    # The mesh a .mch holds is the mesh it was built from, as written.
    for m, f in [(scene["a"], a), (scene["b"], b)]:
        v0, t0 = meshcollide.load_mesh(m)
        v1, t1 = meshcollide.load_mesh(f)
        np.testing.assert_array_equal(v0, v1)
        np.testing.assert_array_equal(t0, t1)


def test_mch_built_with_other_options_is_refused(scene, cli, tmp_path):
    a = build(cli, scene["a"], tmp_path / "a.mch", "--bv", "kdop14")
    with pytest.raises(meshcollide.InputError, match=r"a\.mch.*bv=kdop14 \(the query asks for kdop18\)"):
        meshcollide.Collider.from_files(a, scene["b"])
    b = build(cli, scene["b"], tmp_path / "b.mch", "--leaf-size", "3")
    with pytest.raises(meshcollide.InputError, match=r"b\.mch.*leaf_size_b=3 \(the query asks for 1\)"):
        meshcollide.Collider.from_files(scene["a"], b)
    # The same kind with its dual computed on load is accepted.
    meshcollide.Collider.from_files(a, scene["b"], bv="dual14")


def test_damaged_mch_is_an_input_error(scene, cli, tmp_path):
    a = build(cli, scene["a"], tmp_path / "a.mch")
    data = a.read_bytes()
    cut = tmp_path / "cut.mch"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(meshcollide.InputError, match="cut.mch"):
        meshcollide.Collider.from_files(cut, scene["b"])
    with pytest.raises(meshcollide.InputError, match="cut.mch"):
        meshcollide.load_mesh(cut)
