"""Collider.query against the command line (`meshcollide query`) on the same files."""

import subprocess

import numpy as np
import pytest

import meshcollide
from conftest import csv_rows, fan, run_cli

COUNTERS = ["poses", "pairs", "bv_tests", "tri_tests", "bv_updates", "poses_in_contact", "bv", "mode",
            "split", "split_point", "leaf_size_a", "leaf_size_b", "tumble", "descent", "triangles_a",
            "triangles_b", "nodes_a", "nodes_b", "node_bytes", "hierarchy_bytes_a", "hierarchy_bytes_b",
            "depth_a", "depth_b", "box_test", "dual"]

CONFIGS = [
    ({}, []),
    ({"bv": "kdop6", "leaf_size": 4, "leaf_size_b": 2, "split": "longest", "split_point": "median"},
     ["--bv", "kdop6", "--leaf-size", "4", "--leaf-size-b", "2", "--split", "longest", "--split-point", "median"]),
    ({"bv": "kdop26", "tumble": "exact", "descent": "env"}, ["--bv", "kdop26", "--tumble", "exact", "--descent", "env"]),
    ({"bv": "dual14", "dual_symmetric": True}, ["--bv", "dual14", "--dual-symmetric"]),
    ({"bv": "boxtree", "box_test": "sat", "leaf_size": 3}, ["--bv", "boxtree", "--box-test", "sat", "--leaf-size", "3"]),
    ({"bv": "rtree", "rtree_collide": "v1"}, ["--bv", "rtree", "--rtree-collide", "v1"]),
    ({"bv": "obb"}, ["--bv", "obb"]),
    ({"bv": "sphere", "leaf_size": 2}, ["--bv", "sphere", "--leaf-size", "2"]),
]


@pytest.mark.parametrize("options,args", CONFIGS, ids=lambda x: str(x) if isinstance(x, dict) else None)
def test_pairs_and_counters_equal_the_command_line(scene, cli, tmp_path, options, args):
    data, stats = run_cli(cli, scene["a"], scene["b"], scene["poses"], tmp_path, "--backend", "cpu", *args)
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], **options)
    pairs = c.query(poses, backend="cpu")
    assert pairs.dtype == np.int64 and pairs.shape[1] == 3
    np.testing.assert_array_equal(pairs, csv_rows(data))
    assert len(pairs) > 0  # the scene has contacts
    s = c.last_stats
    assert s["backend"] == "cpu"
    for k in COUNTERS:
        assert s.get(k) == stats.get(k), k
    for k in ["build_ms", "query_ms", "load_ms", "threads"]:
        assert k in s


def test_arrays_equal_files_and_shards_keep_global_pose_numbers(scene):
    poses = meshcollide.load_poses(scene["poses"])
    from_files = meshcollide.Collider.from_files(scene["a"], scene["b"])
    whole = from_files.query(poses)
    arrays = meshcollide.Collider(scene["va"], fan(scene["qa"]), scene["vb"], fan(scene["qb"]).astype(np.uint32))
    np.testing.assert_array_equal(arrays.query(poses), whole)
    parts = [arrays.query(poses[s:e], first_pose=s) for s, e in [(0, 10), (10, 11), (11, 40), (40, len(poses))]]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    assert arrays.query(poses[:0]).shape == (0, 3)
    assert arrays.last_stats["poses"] == 0


def test_first_mode_reports_one_true_contact_per_pose_in_contact(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    every = {tuple(r) for r in c.query(poses).tolist()}
    first = c.query(poses, mode="first")
    assert c.last_stats["mode"] == "first"
    assert sorted({p for p, _, _ in every}) == first[:, 0].tolist()
    assert all(tuple(r) in every for r in first.tolist())


def test_warm_up_changes_no_pair_or_counter(scene):
    # Collider.warm_up runs a generated scene and reads this collider's trees: the queries
    # after it find and count what they did before it.
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv="obb")
    before, stats = c.query(poses, backend="cpu"), c.last_stats
    assert c.warm_up() is None
    np.testing.assert_array_equal(c.query(poses, backend="cpu"), before)
    assert {k: c.last_stats[k] for k in COUNTERS if k in stats} == {k: stats[k] for k in COUNTERS if k in stats}
    assert len(before) > 0


def test_auto_backend_runs_and_matches_cpu(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    np.testing.assert_array_equal(c.query(poses, backend="auto"), c.query(poses, backend="cpu"))


def test_coherence_gives_the_same_pairs_and_the_command_line_counters(scene, cli, tmp_path):
    # A coherent path: a turn in 900 steps (0.4 degrees apart), its first 96 poses.
    r = subprocess.run([cli, "poses", "--steps", "900", "--translate", "1", "0", "0", "--out",
                        str(tmp_path / "p900.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "p900.csv").read_text().splitlines()[:97]
    (tmp_path / "path.csv").write_text("\n".join(lines) + "\n")
    poses = meshcollide.load_poses(tmp_path / "path.csv")
    plain = meshcollide.Collider.from_files(scene["a"], scene["b"], coherence=False)
    coh = meshcollide.Collider.from_files(scene["a"], scene["b"], coherence=True)
    want = plain.query(poses, backend="cpu")
    np.testing.assert_array_equal(coh.query(poses, backend="cpu"), want)
    assert coh.last_stats["coherence"] is True and plain.last_stats["coherence"] is False
    assert coh.last_stats["bv_tests"] < plain.last_stats["bv_tests"]
    data, stats = run_cli(cli, scene["a"], scene["b"], tmp_path / "path.csv", tmp_path,
                          "--backend", "cpu", "--coherence")
    np.testing.assert_array_equal(csv_rows(data), want)
    assert stats["bv_tests"] == coh.last_stats["bv_tests"]
    # The default, "auto": on for this path on the CPU (the command line's default too),
    # off for unrelated poses (every 30th of the turn) and in first-contact mode.
    auto = meshcollide.Collider.from_files(scene["a"], scene["b"])
    np.testing.assert_array_equal(auto.query(poses, backend="cpu"), want)
    assert auto.last_stats["coherence"] is True
    assert auto.last_stats["bv_tests"] == coh.last_stats["bv_tests"]
    data, stats = run_cli(cli, scene["a"], scene["b"], tmp_path / "path.csv", tmp_path,
                          "--backend", "cpu")
    assert stats["coherence"] is True and stats["bv_tests"] == auto.last_stats["bv_tests"]
    sparse = np.ascontiguousarray(meshcollide.load_poses(tmp_path / "p900.csv")[::30])
    got = auto.query(sparse, backend="cpu")
    assert auto.last_stats["coherence"] is False
    np.testing.assert_array_equal(got, plain.query(sparse, backend="cpu"))
    auto.query(poses, mode="first", backend="cpu")
    assert auto.last_stats["coherence"] is False
    with pytest.raises(ValueError):
        meshcollide.Collider.from_files(scene["a"], scene["b"], coherence="sometimes")
