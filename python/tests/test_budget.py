"""`Collider.query(poses, budget=N)`: the budgeted query's pairs and status array, the same
rows as `meshcollide query --budget N --status`, and consistent with the unbudgeted query
(which finds every pair): `free` only where it finds none, `contact` with real pairs."""

import os
import subprocess

import numpy as np
import pytest

import meshcollide


def status_rows(path):
    lines = path.read_text().splitlines()
    assert lines[0] == "pose,answer,complete,depth_bound,bv_tests"
    return [l.split(",") for l in lines[1:]]


@pytest.mark.parametrize("order", ["best", "depth", "breadth"])
def test_budget_equals_the_command_line(scene, cli, tmp_path, order):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    full = c.query(poses)
    for n in [1, 3, 20, 200]:
        pairs, status = c.query(poses, budget=n, budget_order=order)
        assert pairs.dtype == np.int64 and pairs.shape[1] == 3
        assert status.dtype.names == ("pose", "answer", "complete", "depth_bound", "bv_tests")
        assert len(status) == len(poses)
        assert (status["bv_tests"] <= n).all()
        st = tmp_path / "s.csv"
        r = subprocess.run([cli, "query", str(scene["a"]), str(scene["b"]), "--poses", str(scene["poses"]),
                            "--out", str(tmp_path / "p.csv"), "--budget", str(n), "--budget-order", order,
                            "--status", str(st)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for row, s in zip(status_rows(st), status):
            assert int(row[0]) == s["pose"]
            assert row[1] == s["answer"]
            assert (row[2] == "1") == bool(s["complete"])
            assert float(row[3]) == s["depth_bound"]
            assert int(row[4]) == s["bv_tests"]
        want = np.array([[int(x) for x in l.split(",")] for l in (tmp_path / "p.csv").read_text().splitlines()[1:]],
                        dtype=np.int64).reshape(-1, 3)
        np.testing.assert_array_equal(pairs, want)
        # Against the unbudgeted query: found pairs are real, `free` has none, a finished
        # search has them all.
        every = {tuple(p) for p in full}
        assert {tuple(p) for p in pairs} <= every
        for s in status:
            mine = {tuple(p) for p in pairs if p[0] == s["pose"]}
            theirs = {p for p in every if p[0] == s["pose"]}
            if s["answer"] == "free":
                assert s["complete"] and not theirs
            elif s["answer"] == "contact":
                assert mine
            else:
                assert s["answer"] == "maybe" and not s["complete"] and not mine and s["depth_bound"] >= 0
            if s["complete"]:
                assert mine == theirs and s["depth_bound"] == 0
    assert c.last_stats["budget"]["nodes"] == 200 and c.last_stats["budget"]["order"] == order


def test_budget_refuses_what_it_does_not_take(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    for kwargs, needle in [({"budget": 0}, "budget"), ({"budget": 5, "budget_order": "sideways"}, "budget_order"),
                           ({"budget": 5, "backend": "gpu", "budget_order": "best"}, "breadth"),
                           ({"budget": 5, "tolerance": 0.1}, "tolerance")]:
        with pytest.raises(meshcollide.InputError, match=needle):
            c.query(poses, **kwargs)
    with pytest.raises(OverflowError):
        c.query(poses, budget=-1)
    # The boxtree and the R-tree take a budget too (once refused by name); without a limit
    # their pairs are the unbudgeted query's.
    for bv in ["boxtree", "rtree"]:
        o = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
        pairs, status = o.query(poses, budget=5)
        assert (status["bv_tests"] <= 5).all()
        every = {tuple(p) for p in o.query(poses)}
        assert {tuple(p) for p in pairs} <= every
        pairs, status = o.query(poses, budget=2**64 - 1)
        assert status["complete"].all()
        np.testing.assert_array_equal(pairs, o.query(poses))
    # Without a budget the call returns the pairs array alone, as before.
    assert isinstance(c.query(poses), np.ndarray)


@pytest.mark.parametrize("bv", ["kdop18", "obb"])
def test_gpu_budget_answers_as_the_cpus_breadth_first_order(scene, bv):
    """backend="gpu" spends a budget breadth first, a whole level at a time: pose by pose
    (one pose a call, so the CPU has no earlier contact to start from) its status rows and
    pairs are the CPU's with budget_order="breadth"; the default order there is breadth."""
    poses = meshcollide.load_poses(scene["poses"])[:10]
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
    stopped = 0
    for n in [4, 12, 60]:
        for i in range(len(poses)):
            try:
                g_pairs, g = c.query(poses[i:i + 1], budget=n, backend="gpu")
            except meshcollide.GpuError as e:
                if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
                    pytest.skip(f"no GPU adapter: {e}")
                raise
            assert c.last_stats["backend"].startswith("gpu: ")
            assert c.last_stats["budget"]["order"] == "breadth"
            c_pairs, s = c.query(poses[i:i + 1], budget=n, budget_order="breadth", backend="cpu")
            np.testing.assert_array_equal(g_pairs, c_pairs)
            assert g.tolist() == s.tolist(), (n, i)
            stopped += int(not g["complete"][0])
    assert stopped > 0
