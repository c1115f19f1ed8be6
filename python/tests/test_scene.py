"""meshcollide.Scene against an independent oracle: every pair of present bodies (not both
static) asked of the two-mesh query at the identity pose on world coordinates computed here
in NumPy (`Pose::apply`'s f64 formula), the self pairs of `self_collide` on them; the
command line's `meshcollide scene` for a bodies file; the CPU for the GPU."""

import os
import subprocess

import numpy as np
import pytest

import meshcollide
from conftest import fan, torus, write_obj

IDENTITY = np.array([[1.0, 0, 0, 0, 0, 0, 0]])


def box(half=(0.5, 0.5, 0.5)):
    """A closed box centred on the origin: 8 vertices, 12 triangles."""
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)
    quads = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]])
    return v * np.asarray(half), fan(quads)


def ring():
    v, q = torus(12, 6, r_major=0.6, r_minor=0.2)
    return v, fan(q)


def rotation(rng):
    """A rotation matrix from a random unit quaternion (orthonormal to rounding)."""
    w, x, y, z = (q := rng.normal(size=4)) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrices(rng, n, spread=1.6):
    """n random poses (n, 3, 4) near the origin, where bodies meet often."""
    m = np.zeros((n, 3, 4))
    for k in range(n):
        m[k, :, :3] = rotation(rng)
        m[k, :, 3] = rng.uniform(-spread, spread, 3) * [1, 0.4, 1]
    return m


def world(v, m):
    """`Pose::apply` in f64: ((r0·x + r1·y) + r2·z) + t, row by row."""
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    return np.stack([((m[k, 0] * x + m[k, 1] * y) + m[k, 2] * z) + m[k, 3] for k in range(3)], axis=1)


def oracle(scene, meshes, bodies, static, frame, self_pairs=False):
    """The scene's contacts as it stands, body pair by body pair (module docs)."""
    present = [(i, scene.pose(i)) for i in range(len(bodies))]
    present = [(i, world(meshes[bodies[i]][0], m), meshes[bodies[i]][1]) for i, m in present if m is not None]
    rows = []
    for k, (i, wi, ti) in enumerate(present):
        for j, wj, tj in present[k + 1:]:
            # Boxes apart: no contact (closed triangles touch only where the boxes do).
            if static[i] and static[j] or (wi.min(0) > wj.max(0)).any() or (wj.min(0) > wi.max(0)).any():
                continue
            pairs = meshcollide.Collider(wi, ti, wj, tj).query(IDENTITY, backend="cpu")
            rows += [[frame, i, a, j, b] for _, a, b in pairs.tolist()]
        if self_pairs and not static[i]:
            rows += [[frame, i, a, i, b] for _, a, b in meshcollide.self_collide(wi, ti, backend="cpu").tolist()]
    rows.sort(key=lambda r: (r[0], r[1], r[3], r[2], r[4]))
    return np.array(rows, dtype=np.int64).reshape(-1, 5)


def check_first(got, full):
    """mode="first": one row per frame and pair of bodies in contact, one of its contacts."""
    np.testing.assert_array_equal(got[:, [0, 1, 3]], np.unique(full[:, [0, 1, 3]], axis=0))
    assert {tuple(r) for r in got.tolist()} <= {tuple(r) for r in full.tolist()}


# The scene of most tests: a static floor and a static wall that overlap it, and moving
# boxes and rings (bodies of one mesh share its hierarchy).
MESHES = [box((3, 0.1, 3)), box((0.1, 1, 3)), box(), ring()]
BODIES = np.array([0, 1, 2, 2, 3, 3, 2, 3])
STATIC = np.array([True, True] + [False] * 6)


def make(**kw):
    return meshcollide.Scene(MESHES, BODIES, STATIC, **kw)


def frames(seed=5, n=6):
    """Each frame's (ids, poses as matrices, remove): the statics placed in frame 0."""
    rng = np.random.default_rng(seed)
    out, present = [], set()
    for f in range(n):
        moving = [i for i in range(2, 8) if rng.random() < 0.7 or (f == 0)]
        ids = ([0, 1] if f == 0 else []) + moving
        poses = matrices(rng, len(ids))
        if f == 0:
            poses[0] = np.eye(3, 4)
            poses[1] = np.eye(3, 4)
            poses[1, 0, 3] = 1.5
        absent = [i for i in range(2, 8) if i in present and i not in moving]
        remove = absent[:1]
        present |= set(ids)
        present -= set(remove)
        out.append((np.array(ids), poses, np.array(remove, dtype=np.int64)))
    return out


@pytest.mark.parametrize("kw", [{}, {"bv": "kdop6", "leaf_size": 3}, {"self_pairs": True}, {"threads": 1}])
def test_contacts_equal_the_oracle_frame_by_frame(kw):
    s = make(**kw)
    assert (s.body_count, s.mesh_count, s.frame) == (8, 4, 0)
    total = static_moving = 0
    for f, (ids, poses, remove) in enumerate(frames()):
        got = s.step(ids, poses, remove, backend="cpu")
        assert got.dtype == np.int64 and got.shape[1] == 5
        np.testing.assert_array_equal(got, oracle(s, MESHES, BODIES, STATIC, f, kw.get("self_pairs", False)))
        assert s.frame == f + 1 and s.last_stats["frame"] == f
        for i in remove.tolist():
            assert s.pose(i) is None
        total += len(got)
        static_moving += int(np.isin(got[:, 1], [0, 1]).sum())
    assert total > 0 and static_moving > 0  # the scenes exercise both kinds of pair
    st = s.last_stats
    for k in ["broad_pairs", "swaps", "broad_ms", "narrow_ms", "step_ms", "bv_tests", "tri_tests"]:
        assert k in st and st[k] >= 0, k
    assert st["backend"] == "cpu" and st["contacts"] == len(got) and st["bodies"] == 8


def test_every_pose_form_and_mode_first():
    # Quaternions (either order) and 4×4 matrices place bodies as the library reads them
    # (`pose` reports the rotation it applies); a matrix is applied as written.
    rng = np.random.default_rng(11)
    s = make(mode="first")
    m = matrices(rng, 8)
    m[:2] = np.eye(3, 4)
    m[1, 0, 3] = 1.5
    m4 = np.concatenate([m, np.tile([[[0.0, 0, 0, 1]]], (8, 1, 1))], axis=1)
    got = s.step(np.arange(8), m4, backend="cpu")
    for i in range(8):
        np.testing.assert_array_equal(s.pose(i), m[i])
    full = oracle(s, MESHES, BODIES, STATIC, 0)
    assert len(full) > len(got) > 0
    check_first(got, full)
    q = rng.normal(size=(3, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    wxyz = np.hstack([q, rng.uniform(-1, 1, (3, 3))])
    s = make()
    s.step([0, 1], np.stack([np.eye(3, 4)] * 2), backend="cpu")
    got = s.step([2, 4, 5], wxyz, backend="cpu")
    np.testing.assert_array_equal(got, oracle(s, MESHES, BODIES, STATIC, 1))
    xyzw = wxyz[:, [1, 2, 3, 0, 4, 5, 6]]
    s2 = make()
    s2.step([0, 1], np.stack([np.eye(3, 4)] * 2), backend="cpu")
    np.testing.assert_array_equal(s2.step([2, 4, 5], xyzw, backend="cpu", quat="xyzw"), got)
    for i in [2, 4, 5]:
        np.testing.assert_array_equal(s2.pose(i), s.pose(i))


def test_insert_remove_and_contacts_keep_the_frame():
    s = make()
    assert s.contacts(backend="cpu").shape == (0, 5) and s.frame == 0
    s.insert([0, 2], np.stack([np.eye(3, 4)] * 2))  # a box through the floor
    assert s.frame == 0 and s.pose(3) is None
    now = s.contacts(backend="cpu")
    np.testing.assert_array_equal(now, oracle(s, MESHES, BODIES, STATIC, 0))
    assert len(now) > 0 and set(now[:, 1].tolist()) == {0} and set(now[:, 3].tolist()) == {2}
    assert s.frame == 0 and s.last_stats["frame"] == 0
    # The step of frame 0 finds the same, then counts on.
    np.testing.assert_array_equal(s.step(backend="cpu"), now)
    assert s.frame == 1
    s.remove([2])
    assert s.pose(2) is None and s.contacts(backend="cpu").shape == (0, 5)
    # A moving body comes back; a static one removed cannot.
    s.insert([2], np.eye(3, 4)[None])
    got = s.step(backend="cpu")
    np.testing.assert_array_equal(got[:, 1:], now[:, 1:])
    assert (got[:, 0] == 1).all()
    s.remove([0])
    assert len(s.step(backend="cpu")) == 0
    with pytest.raises(meshcollide.InputError, match="body 0 is static"):
        s.insert([0], np.eye(3, 4)[None])
    assert repr(s) == "Scene(bodies=8, meshes=4, frame=3)"


def test_static_pairs_are_never_reported():
    # Three overlapping static slabs and one moving box through all of them.
    slab = box((2, 0.1, 2))
    s = meshcollide.Scene([slab, box()], [0, 0, 0, 1], [True, True, True, False])
    m = np.stack([np.eye(3, 4)] * 4)
    m[1, 1, 3], m[2, 1, 3] = 0.05, -0.05
    got = s.step(np.arange(4), m, backend="cpu")
    assert set(got[:, 3].tolist()) == {3} and set(got[:, 1].tolist()) == {0, 1, 2}
    np.testing.assert_array_equal(got, oracle(s, [slab, box()], [0, 0, 0, 1], [True] * 3 + [False], 0))
    # All moving: the slabs' own pairs appear.
    s = meshcollide.Scene([slab, box()], [0, 0, 0, 1])
    assert {(0, 1), (0, 2), (1, 2)} <= {tuple(r) for r in s.step(np.arange(4), m, backend="cpu")[:, [1, 3]].tolist()}


def test_refused_motions_raise_naming_the_body_and_change_nothing():
    s = make()
    first = s.step(np.arange(8), np.stack([np.eye(3, 4)] * 8), backend="cpu")
    s.remove([7])
    cases = [
        (dict(ids=[0], poses=np.eye(3, 4)[None]), "body 0 is static"),
        (dict(remove=[7]), "body 7 is removed, but it is not in the scene"),
        (dict(ids=[3, 3], poses=np.stack([np.eye(3, 4)] * 2)), "body 3 has two motions"),
        (dict(ids=[4], poses=np.eye(3, 4)[None], remove=[4]), "body 4 has two motions"),
        (dict(ids=[2, 9], poses=np.stack([np.eye(3, 4)] * 2)), r"ids\[1\]: body 9 is not in the scene \(it has 8 bodies\)"),
        (dict(remove=[-1]), r"remove\[0\]: body -1 is not in the scene"),
        (dict(ids=[2, 2**40], poses=np.stack([np.eye(3, 4)] * 2)), r"ids\[1\]: body 1099511627776"),
    ]
    for kw, msg in cases:
        # All or none: body 2, moved by refused frames, stays put.
        with pytest.raises(meshcollide.InputError, match=msg):
            s.step(**kw, backend="cpu")
        assert s.frame == 1
    np.testing.assert_array_equal(s.pose(2), np.eye(3, 4))
    with pytest.raises(meshcollide.InputError, match="body 6 has two motions"):
        s.remove([5, 6, 6])
    assert s.pose(5) is not None
    with pytest.raises(meshcollide.InputError, match="body 2 has two motions"):
        s.insert([2, 2], np.stack([np.eye(3, 4)] * 2))
    want = first[(first[:, 1] != 7) & (first[:, 3] != 7)]
    want[:, 0] = 1
    np.testing.assert_array_equal(s.step(backend="cpu"), want)


def test_bad_arrays_name_the_argument():
    s = make()
    eye = np.stack([np.eye(3, 4)] * 2)
    bad = [
        (lambda: s.step([[0, 1]], eye), r"ids: expected shape \(n,\)"),
        (lambda: s.step(np.array([0.0, 1.0]), eye), "ids: expected an integer array, found dtype float64"),
        (lambda: s.step([0, 1], np.zeros((2, 6))), r"poses: expected shape \(n, 7\)"),
        (lambda: s.step([0, 1], eye[:1]), "poses: 1 poses for 2 ids"),
        (lambda: s.step([0, 1]), r"poses: missing \(2 ids given\)"),
        (lambda: s.step(poses=eye), "ids: missing"),
        (lambda: s.step([2, 4], np.array([[1.0, 0, 0, 0, 0, 0, 0], [2.0, 0, 0, 0, 0, 0, 0]])),
         r"poses: row 1 \(body 4\): "),
        (lambda: s.step([2], np.eye(3, 4)[None].astype(np.int64)), "poses: expected a float64 or float32 array"),
        (lambda: s.step([2], IDENTITY, quat="zyxw"), "quat"),
        (lambda: s.step(backend="tpu"), "unknown backend `tpu`"),
        (lambda: s.remove([[1]]), r"ids: expected shape \(n,\)"),
        (lambda: s.pose(8), "i: body 8 is not in the scene"),
        (lambda: meshcollide.Scene(MESHES, [0, 4]), r"bodies\[1\]: mesh 4 is out of range"),
        (lambda: meshcollide.Scene(MESHES, [0.0, 1.0]), "bodies: expected an integer array"),
        (lambda: meshcollide.Scene(MESHES, [0, 1], [True]), "static: 1 values for 2 bodies"),
        (lambda: meshcollide.Scene(MESHES, [0, 1], [1, 0]), "static: expected a bool array, found dtype int64"),
        (lambda: meshcollide.Scene([MESHES[0], (MESHES[1][0],)], [0, 1]), r"meshes\[1\]: expected a \(vertices, triangles\) pair"),
        (lambda: meshcollide.Scene([(MESHES[0][0][:, :2], MESHES[0][1])], [0]), r"meshes\[0\]: vertices: expected shape"),
        (lambda: meshcollide.Scene(MESHES, [0], bv="obb"), "k-DOP"),
        (lambda: meshcollide.Scene(MESHES, [0], mode="some"), "some"),
        (lambda: meshcollide.Scene(MESHES, [0], leaf_size=0), "leaf_size = 0 is out of range"),
        (lambda: meshcollide.Scene(MESHES, [0], threads=0), "threads = 0 is out of range"),
    ]
    for call, msg in bad:
        with pytest.raises(meshcollide.InputError, match=msg):
            call()
    assert s.frame == 0 and s.last_stats is None
    # Empty lists are empty arrays of any dtype; no bodies at all is a scene too.
    assert s.step([], [], []).shape == (0, 5)
    empty = meshcollide.Scene([], [])
    assert (empty.body_count, empty.mesh_count) == (0, 0) and empty.step(backend="cpu").shape == (0, 5)


def gpu_or_skip(s, *args):
    try:
        return s.step(*args, backend="gpu")
    except meshcollide.GpuError as e:
        if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise


@pytest.mark.parametrize("kw", [{}, {"mode": "first", "bv": "kdop14"}, {"self_pairs": True}])
def test_gpu_equals_cpu(kw):
    cpu, gpu = make(**kw), make(**kw)
    total = 0
    # mode="first" keeps one contact per pair of bodies: which one is each traversal's.
    same = check_first if kw.get("mode") == "first" else np.testing.assert_array_equal
    for f, (ids, poses, remove) in enumerate(frames(seed=8)):
        want = cpu.step(ids, poses, remove, backend="cpu")
        got = gpu_or_skip(gpu, ids, poses, remove)
        if kw.get("mode") == "first":
            check_first(want, oracle(cpu, MESHES, BODIES, STATIC, f))
            want = oracle(gpu, MESHES, BODIES, STATIC, f)
        same(got, want)
        assert gpu.last_stats["backend"].startswith("gpu: ") and "gpu" in gpu.last_stats
        total += len(want)
    assert total > 0
    now = cpu.contacts(backend="cpu")
    if kw.get("mode") == "first":
        now = oracle(cpu, MESHES, BODIES, STATIC, cpu.frame, kw.get("self_pairs", False))
    same(gpu.contacts(backend="gpu"), now)
    # `auto` chooses as `Collider.query` does, with the same contacts.
    same(gpu.contacts(), now)


def test_from_files_equals_the_arrays_and_the_command_line(cli, tmp_path):
    names = ["floor.obj", "wall.obj", "box.obj", "ring.obj"]
    for name, (v, t) in zip(names, MESHES):
        write_obj(tmp_path / name, v, t)
    kinds = ["static" if st else "moving" for st in STATIC]
    (tmp_path / "bodies.csv").write_text(
        "body,mesh,kind\n" + "".join(f"{i},{names[m]},{k}\n" for i, (m, k) in enumerate(zip(BODIES, kinds))))
    s = meshcollide.Scene.from_files(tmp_path / "bodies.csv")
    a = make()
    assert (s.body_count, s.mesh_count) == (8, 4)
    rng = np.random.default_rng(3)
    motion, rows = ["frame,body,qw,qx,qy,qz,tx,ty,tz"], []
    for f in range(4):
        ids = np.array(([0, 1] if f == 0 else []) + [i for i in range(2, 8) if rng.random() < 0.8])
        q = rng.normal(size=(len(ids), 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        q[ids < 2] = [1, 0, 0, 0]
        t = rng.uniform(-1.2, 1.2, (len(ids), 3)) * [1, 0.3, 1]
        poses = np.hstack([q, t])
        motion += [f"{f},{i}," + ",".join(repr(x) for x in p) for i, p in zip(ids.tolist(), poses.tolist())]
        got = s.step(ids, poses, backend="cpu")
        np.testing.assert_array_equal(got, a.step(ids, poses, backend="cpu"))
        rows.append(got)
    rows = np.concatenate(rows)
    assert len(rows) > 0
    (tmp_path / "motion.csv").write_text("\n".join(motion) + "\n")
    out = tmp_path / "contacts.csv"
    r = subprocess.run([cli, "scene", str(tmp_path / "bodies.csv"), "--motion", str(tmp_path / "motion.csv"),
                        "--out", str(out), "--backend", "cpu"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "frame,body_a,tri_a,body_b,tri_b"
    want = np.array([[int(x) for x in l.split(",")] for l in lines[1:]], dtype=np.int64).reshape(-1, 5)
    np.testing.assert_array_equal(rows, want)
    (tmp_path / "bad.csv").write_text("body,mesh,kind\n0,floor.obj,flying\n")
    with pytest.raises(meshcollide.InputError, match=r"bad\.csv: line 2: kind `flying`"):
        meshcollide.Scene.from_files(tmp_path / "bad.csv")
