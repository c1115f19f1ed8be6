"""Collider.query(tolerance=) and Collider.distance against the command line (`meshcollide
query --tolerance`, `meshcollide distance`) and known geometric facts."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import meshcollide
from conftest import csv_rows, run_cli, write_obj


def cli_distance(cli, a, b, poses, out_dir, *args):
    """`meshcollide distance` on files: (distance (P,), tri (P, 2), points (P, 2, 3))."""
    out = Path(out_dir) / "cli_distance.csv"
    r = subprocess.run([cli, "distance", str(a), str(b), "--poses", str(poses), "--out", str(out), *args],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz"
    dist, tri, pts = [], [], []
    for k, line in enumerate(lines[1:]):
        f = line.split(",")
        assert int(f[0]) == k
        dist.append(float(f[1]))
        tri.append([int(f[2]) if f[2] else -1, int(f[3]) if f[3] else -1])
        pts.append([float(x) if x else np.nan for x in f[4:10]])
    return np.array(dist), np.array(tri, dtype=np.int64), np.array(pts).reshape(-1, 2, 3)


@pytest.mark.parametrize("bv", ["auto", "kdop18", "kdop6", "dual14", "obb", "sphere"])
def test_tolerance_equals_the_command_line(scene, cli, tmp_path, bv):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
    for eps in ["0.05", "0.2"]:
        data, stats = run_cli(cli, scene["a"], scene["b"], scene["poses"], tmp_path, "--bv", bv,
                              "--backend", "cpu", "--tolerance", eps)
        pairs = c.query(poses, tolerance=float(eps))
        np.testing.assert_array_equal(pairs, csv_rows(data))
        for k in ["pairs", "bv_tests", "tri_tests", "tolerance"]:
            assert c.last_stats[k] == stats[k], k
        assert stats["tolerance"] == float(eps)
        # Every intersecting pair is within any tolerance, and a positive one finds more here.
        plain = {tuple(r) for r in c.query(poses).tolist()}
        within = {tuple(r) for r in pairs.tolist()}
        assert plain < within


def test_tolerance_zero_is_the_ordinary_query(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    np.testing.assert_array_equal(c.query(poses, tolerance=0.0), c.query(poses))
    assert "tolerance" not in c.last_stats
    chunks = [p for _, p in c.iter_query(poses, chunk=7, tolerance=0.1)]
    np.testing.assert_array_equal(np.concatenate(chunks), c.query(poses, tolerance=0.1))


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_tolerance_and_upto_raise_naming_the_argument(scene, bad):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    with pytest.raises(meshcollide.InputError, match="tolerance"):
        c.query(poses, tolerance=bad)
    with pytest.raises(meshcollide.InputError, match="upto"):
        c.distance(poses, upto=bad)


def test_tolerance_refuses_the_gpu_or_runs_it(scene):
    """The GPU has no tolerance query unless the build says otherwise: a clear error, never
    a silent ordinary query."""
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    try:
        pairs = c.query(poses, backend="gpu", tolerance=0.1)
    except (meshcollide.InputError, meshcollide.GpuError) as e:
        assert "tolerance" in str(e) or "GPU" in str(e) or "gpu" in str(e), e
    else:
        np.testing.assert_array_equal(pairs, c.query(poses, backend="cpu", tolerance=0.1))


@pytest.mark.parametrize("bv", ["auto", "kdop18", "kdop26", "dual18", "obb", "sphere"])
def test_distance_equals_the_command_line(scene, cli, tmp_path, bv):
    r = subprocess.run([cli, "poses", "--steps", "24", "--translate", "2.5", "0", "0", "--out",
                        str(tmp_path / "far.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for path in [scene["poses"], tmp_path / "far.csv"]:
        poses = meshcollide.load_poses(path)
        c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
        dist, tri, pts = c.distance(poses)
        assert dist.shape == (len(poses),) and tri.shape == (len(poses), 2) and pts.shape == (len(poses), 2, 3)
        assert dist.dtype == np.float64 and tri.dtype == np.int64
        want = cli_distance(cli, scene["a"], scene["b"], path, tmp_path, "--bv", bv)
        np.testing.assert_array_equal(dist, want[0])
        np.testing.assert_array_equal(tri, want[1])
        np.testing.assert_array_equal(pts, want[2])
        # Distance 0 exactly at the poses in contact (the intersection query's).
        touching = np.zeros(len(poses), bool)
        touching[np.unique(c.query(poses)[:, 0])] = True
        np.testing.assert_array_equal(dist == 0.0, touching)
        # The two points are the witness's closest points: their distance is the distance,
        # up to the rounding of each coordinate.
        gap = np.linalg.norm(pts[:, 0] - pts[:, 1], axis=1)
        np.testing.assert_allclose(gap, dist, rtol=1e-12, atol=1e-12)


def test_distance_of_parallel_triangles_is_their_gap(tmp_path):
    """A triangle and the same one lifted by z: the distance is z, exactly (dyadic z)."""
    v = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    f = np.array([[0, 1, 2]], dtype=np.uint32)
    c = meshcollide.Collider(v, f, v, f, bv="kdop18")
    z = np.array([0.5, 0.125, 3.0, 0.0, -0.25])
    poses = np.zeros((len(z), 7))
    poses[:, 0] = 1.0
    poses[:, 6] = z
    dist, tri, pts = c.distance(poses)
    np.testing.assert_array_equal(dist, np.abs(z))
    np.testing.assert_array_equal(tri, np.zeros((len(z), 2), np.int64))
    np.testing.assert_array_equal(pts[:, 0, 2], np.zeros(len(z)))
    np.testing.assert_array_equal(pts[:, 1, 2], z)
    # Within `upto`: the answer; beyond it: inf, no witness.
    dist, tri, pts = c.distance(poses, upto=0.5)
    np.testing.assert_array_equal(dist, np.where(np.abs(z) <= 0.5, np.abs(z), np.inf))
    far = np.abs(z) > 0.5
    assert (tri[far] == -1).all() and np.isnan(pts[far]).all()
    assert (tri[~far] == 0).all() and not np.isnan(pts[~far]).any()
    # The tolerance query agrees: the pair is reported exactly when z ≤ eps.
    for eps in [0.125, 0.5, 0.49]:
        got = c.query(poses, tolerance=eps)
        np.testing.assert_array_equal(got[:, 0], np.flatnonzero(np.abs(z) <= eps))


def test_distance_refuses_hierarchies_without_a_bound(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv="boxtree")
    with pytest.raises(meshcollide.InputError, match="k-DOP"):
        c.distance(poses)


def test_distance_files_written_by_python_oracle(tmp_path, cli):
    """A mesh file written here and its pose, through both paths: equal answers."""
    v = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
    f = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    write_obj(tmp_path / "t.obj", v, f)
    (tmp_path / "p.csv").write_text("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,3,0.25,0.5\n1,0,0,0,0.5,0.5,0.5\n")
    c = meshcollide.Collider.from_files(tmp_path / "t.obj", tmp_path / "t.obj")
    got = c.distance(meshcollide.load_poses(tmp_path / "p.csv"))
    want = cli_distance(cli, tmp_path / "t.obj", tmp_path / "t.obj", tmp_path / "p.csv", tmp_path)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got[0][0] >= 1.0  # A lies in x <= 2, B (moved by 3 along x) in x >= 3
    assert got[0][1] == 0.0  # B's corner (0.5, 0.5, 0.5) is inside A, B's far corner outside


def box(half, centre=(0.0, 0.0, 0.0)):
    """A closed axis-aligned box: 8 vertices, 12 outward triangles."""
    c = np.array(centre)
    v = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)]) + c
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return v, f


def test_inside_reports_a_box_within_a_box(tmp_path, cli):
    """A box of half side 0.5 moved by t in a box of half side 2: inside iff |t| + 0.5 < 2
    on every axis (a convex solid), in contact when a face crosses, apart beyond."""
    vb, fb = box(2.0)
    vs, fs = box(0.5)
    t = np.array([[0, 0, 0], [1.0, 0, 0], [1.5, 0, 0], [1.75, 0.25, 0], [0, 0, 10], [-1.2, 1.2, 1.2]])
    poses = np.zeros((len(t), 7))
    poses[:, 0] = 1.0
    poses[:, 4:] = t
    inner_want = np.all(np.abs(t) + 0.5 < 2.0, axis=1)
    c = meshcollide.Collider(vb, fb, vs, fs)
    pose, inner = c.inside(poses)
    np.testing.assert_array_equal(pose, np.flatnonzero(inner_want))
    assert inner.tolist() == ["b"] * int(inner_want.sum())
    # Swapped: the small box is A, and the pose moves the big one by -t: A inside.
    swapped = poses.copy()
    swapped[:, 4:] = -t
    pose, inner = meshcollide.Collider(vs, fs, vb, fb).inside(swapped, first_pose=100)
    np.testing.assert_array_equal(pose, 100 + np.flatnonzero(inner_want))
    assert inner.tolist() == ["a"] * int(inner_want.sum())
    # The command line's inside.csv says the same.
    write_obj(tmp_path / "big.obj", vb, fb)
    write_obj(tmp_path / "small.obj", vs, fs)
    (tmp_path / "p.csv").write_text("qw,qx,qy,qz,tx,ty,tz\n" + "".join(",".join(map(repr, r)) + "\n" for r in poses.tolist()))
    r = subprocess.run([cli, "query", str(tmp_path / "big.obj"), str(tmp_path / "small.obj"), "--poses",
                        str(tmp_path / "p.csv"), "--out", str(tmp_path / "pairs.csv"), "--solid"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "inside.csv").read_text().splitlines()
    assert rows[0] == "pose,inner"
    assert rows[1:] == [f"{k},b" for k in np.flatnonzero(inner_want)]
    got = meshcollide.Collider.from_files(tmp_path / "big.obj", tmp_path / "small.obj").inside(poses)
    np.testing.assert_array_equal(got[0], np.flatnonzero(inner_want))


def test_inside_refuses_an_open_mesh_naming_it():
    vb, fb = box(2.0)
    vs, fs = box(0.5)
    c = meshcollide.Collider(vb, fb[:-1], vs, fs)
    with pytest.raises(meshcollide.InputError, match="mesh A"):
        c.inside(np.array([[1.0, 0, 0, 0, 0, 0, 0]]))


def test_self_collide_tolerance_equals_the_command_line(tmp_path, cli):
    r = subprocess.run([cli, "generate", "folded-sheet", "--n", "12", "--out", str(tmp_path / "s.obj")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    v, t = meshcollide.load_mesh(tmp_path / "s.obj")
    plain = meshcollide.self_collide(v, t)
    for eps in ["0.01", "0.05"]:
        r = subprocess.run([cli, "self", str(tmp_path / "s.obj"), "--out", str(tmp_path / "p.csv"),
                            "--tolerance", eps, "--force"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        got = meshcollide.self_collide(v, t, tolerance=float(eps))
        np.testing.assert_array_equal(got, csv_rows((tmp_path / "p.csv").read_bytes()))
        assert {tuple(x) for x in plain.tolist()} <= {tuple(x) for x in got.tolist()}
    np.testing.assert_array_equal(meshcollide.self_collide(v, t, tolerance=0.0), plain)
    with pytest.raises(meshcollide.InputError, match="tolerance"):
        meshcollide.self_collide(v, t, tolerance=-1.0)
    # The GPU answers it too (asked for by name), with the CPU's pairs.
    try:
        on_gpu = meshcollide.self_collide(v, t, tolerance=0.1, backend="gpu")
    except meshcollide.GpuError as e:
        if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise
    np.testing.assert_array_equal(on_gpu, meshcollide.self_collide(v, t, tolerance=0.1, backend="cpu"))


def test_contact_geometry_equals_the_command_line(scene, cli, tmp_path):
    """`Collider.contact_geometry` is `query --contact-geometry`'s segments.csv, row for row
    and bit for bit (both round each exact coordinate once), and every row's pair is one
    of `query`'s."""
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    rows, points = c.contact_geometry(poses)
    assert rows.dtype == np.int64 and rows.shape[1] == 3
    assert points.dtype == np.float64 and points.shape == (len(rows), 2, 3)
    assert len(rows) > 0
    seg = tmp_path / "segments.csv"
    r = subprocess.run([cli, "query", str(scene["a"]), str(scene["b"]), "--poses", str(scene["poses"]),
                        "--out", str(tmp_path / "p.csv"), "--contact-geometry", "--segments", str(seg)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = seg.read_text().splitlines()
    assert lines[0] == "pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1"
    want_rows = np.array([[int(x) for x in l.split(",")[:3]] for l in lines[1:]], dtype=np.int64)
    want_pts = np.array([[float(x) for x in l.split(",")[3:]] for l in lines[1:]]).reshape(-1, 2, 3)
    np.testing.assert_array_equal(rows, want_rows)
    np.testing.assert_array_equal(points, want_pts)
    pairs = {tuple(p) for p in c.query(poses)}
    assert {tuple(r) for r in rows} <= pairs
    # Offsets apply as `query`'s do.
    rows2, _ = c.contact_geometry(poses, first_pose=100)
    np.testing.assert_array_equal(rows2[:, 0], rows[:, 0] + 100)
