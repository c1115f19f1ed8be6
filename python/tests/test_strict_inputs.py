"""Refuse what is wrong, convert nothing lossy (issue 36): every dtype, integer argument and
pairs array the package takes is checked, and a refusal is an `InputError` (a ValueError)
naming the argument, the row or the range — never a silent conversion, a wrap or a panic
(pyo3 raises a Rust panic as PanicException, a BaseException that `pytest.raises(InputError)`
lets through: each such test fails on a panic)."""

import subprocess

import numpy as np
import pytest

import meshcollide
from conftest import fan, torus, write_obj

I64_MAX = 2**63 - 1
U32_MAX = 2**32 - 1


def tetra():
    """A tetrahedron: 4 vertices, 4 triangles; against itself at the identity every pair
    of triangles touches."""
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float64)
    t = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    return v, t


IDENTITY = np.array([[1, 0, 0, 0, 0, 0, 0]], dtype=np.float64)


@pytest.fixture(scope="module")
def collider():
    v, t = tetra()
    return meshcollide.Collider(v, t, v, t)


# --- first_pose ---------------------------------------------------------------------------


@pytest.mark.parametrize("first_pose", [2**64 - 10, 2**63 - 1, 2**63 - 2, 2**63, -1, -(2**63), 2**200, -(2**200)])
def test_first_pose_beyond_int64_pose_numbers_is_refused(collider, first_pose):
    # Three poses: pose numbers first_pose .. first_pose + 2 must all be int64.
    poses = np.repeat(IDENTITY, 3, axis=0)
    with pytest.raises(meshcollide.InputError, match=r"first_pose = .* is out of range: expected an integer "
                                                     r"from 0 to 9223372036854775805 \(the pose numbers"):
        collider.query(poses, first_pose=first_pose)


def test_first_pose_up_to_the_last_int64_is_kept_exactly(collider):
    poses = np.repeat(IDENTITY, 3, axis=0)
    got = collider.query(poses, first_pose=I64_MAX - 2)
    assert got[:, 0].min() == I64_MAX - 2 and got[:, 0].max() == I64_MAX
    one = collider.query(IDENTITY, first_pose=I64_MAX)
    assert set(one[:, 0].tolist()) == {I64_MAX}
    # No poses: any pose number in int64 is fine (there is none to number).
    assert collider.query(IDENTITY[:0], first_pose=I64_MAX).shape == (0, 3)
    # NumPy integers are integers.
    np.testing.assert_array_equal(collider.query(IDENTITY, first_pose=np.int64(7))[:, 0], 7)
    np.testing.assert_array_equal(collider.query(IDENTITY, first_pose=np.uint8(7))[:, 0], 7)


@pytest.mark.parametrize("first_pose", [1.0, True, "3", None])
def test_first_pose_must_be_an_integer(collider, first_pose):
    with pytest.raises(TypeError, match="first_pose: expected an integer"):
        collider.query(IDENTITY, first_pose=first_pose)


def test_row_errors_name_the_pose_number_without_overflow(collider):
    poses = np.array([[1, 0, 0, 0, 0, 0, 0], [1.5, 0, 0, 0, 0, 0, 0]])
    with pytest.raises(meshcollide.InputError, match=r"poses: row 1 \(pose 9223372036854775807\): quaternion"):
        collider.query(poses, first_pose=I64_MAX - 1)


# --- dtypes of coordinates and poses ------------------------------------------------------

BAD_FLOAT_DTYPES = ["U8", "S8", np.complex128, np.complex64, bool, object, np.float16, np.int64, np.int32,
                    np.uint8]
if np.dtype(np.longdouble).itemsize > 8:
    BAD_FLOAT_DTYPES.append(np.longdouble)


@pytest.mark.parametrize("dtype", BAD_FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_vertices_of_other_dtypes_than_float64_and_float32_are_refused(dtype):
    v, t = tetra()
    bad = v.astype(dtype)
    msg = r"expected a float64 or float32 array, found dtype"
    with pytest.raises(meshcollide.InputError, match="mesh A: vertices: " + msg):
        meshcollide.Collider(bad, t, v, t)
    with pytest.raises(meshcollide.InputError, match="mesh B: vertices: " + msg):
        meshcollide.Collider(v, t, bad, t)
    with pytest.raises(meshcollide.InputError, match="mesh: vertices: " + msg):
        meshcollide.self_collide(bad, t)
    with pytest.raises(meshcollide.InputError, match=r"frames\[1\]: " + msg):
        meshcollide.self_collide(v, t, frames=[v, bad])


@pytest.mark.parametrize("dtype", BAD_FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_poses_of_other_dtypes_than_float64_and_float32_are_refused(collider, dtype):
    with pytest.raises(meshcollide.InputError, match="poses: expected a float64 or float32 array, found dtype"):
        collider.query(IDENTITY.astype(dtype))


def test_strings_that_parse_to_other_numbers_are_refused_not_read():
    # The tester's case: 'U8' strings of the coordinates gave other pairs than the numbers.
    v, t = tetra()
    shifted = (v + 0.123456789).astype("U8")  # '0.123456' …: truncated by the dtype
    with pytest.raises(meshcollide.InputError, match="found dtype <U8"):
        meshcollide.Collider(shifted, t, v, t)


def test_complex_poses_are_refused_not_cut_to_their_real_part(collider):
    with pytest.raises(meshcollide.InputError, match="found dtype complex128"):
        collider.query(IDENTITY + 1j)


def test_ragged_lists_are_an_input_error(collider):
    with pytest.raises(meshcollide.InputError, match="poses: not an array of numbers"):
        collider.query([[1, 0, 0, 0, 0, 0, 0], [1, 0]])


def test_float32_and_other_byte_orders_convert_exactly(scene):
    # float32 → float64 and big-endian → native lose nothing: the same pairs as float64 of
    # the same values.
    va, ta = scene["va"].astype(np.float32), fan(scene["qa"])
    vb, tb = scene["vb"].astype(np.float32), fan(scene["qb"])
    poses = meshcollide.load_poses(scene["poses"])
    want = meshcollide.Collider(va.astype(np.float64), ta, vb.astype(np.float64), tb).query(poses, backend="cpu")
    assert len(want) > 0
    got = meshcollide.Collider(va, ta, vb.astype(">f8"), tb.astype(">i4")).query(poses.astype(">f8"), backend="cpu")
    np.testing.assert_array_equal(got, want)
    exact32 = poses.astype(np.float32)
    np.testing.assert_array_equal(
        meshcollide.Collider(va, ta, vb, tb).query(exact32, backend="cpu"),
        meshcollide.Collider(va, ta, vb, tb).query(exact32.astype(np.float64), backend="cpu"))
    s, f = meshcollide.self_collide(va, ta, frames=[va, va.astype(">f4")]), meshcollide.self_collide(va, ta)
    assert len(s) == 2 * len(f)


# --- triangle indices ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, bool, object, "U4", np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_triangles_of_no_integer_dtype_are_refused(dtype):
    v, t = tetra()
    # Even whole floats: indices that went through floats are refused, not rounded.
    with pytest.raises(meshcollide.InputError, match="mesh B: triangles: expected an integer array, found dtype"):
        meshcollide.Collider(v, t, v, t.astype(dtype))
    with pytest.raises(meshcollide.InputError, match="mesh: triangles: expected an integer array"):
        meshcollide.self_collide(v, t.astype(dtype))
    # Empty too: the dtype is refused, whatever the values (an empty float array is the
    # default of np.empty((0, 3)), and it held no triangles anyway).
    with pytest.raises(meshcollide.InputError, match="mesh A: triangles: expected an integer array"):
        meshcollide.Collider(v, np.empty((0, 3), dtype=dtype), v, t)


@pytest.mark.parametrize(
    "index,dtype",
    [(2**64 - 1, np.uint64), (2**63, np.uint64), (2**32, np.int64), (2**32 + 1, np.uint64), (-1, np.int64),
     (-(2**63), np.int64), (4, np.int64), (4, np.uint8), (-1, np.int8), (U32_MAX, np.uint32)],
)
def test_indices_outside_the_vertices_are_refused_with_their_row(index, dtype):
    v, t = tetra()
    bad = np.vstack([t, [[0, 1, 2]], [[1, 0, 2]]]).astype(dtype)
    bad[5, 1] = index  # set in its own dtype: no detour through another
    assert bad[5, 1] == index
    msg = rf"triangles: row 5: vertex index {index} is out of range: expected 0 to 3 \(the mesh has 4 vertices\)"
    with pytest.raises(meshcollide.InputError, match="mesh A: " + msg):
        meshcollide.Collider(v, bad, v, t)
    with pytest.raises(meshcollide.InputError, match="mesh: " + msg):
        meshcollide.self_collide(v, bad)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.uint64, ">i8"])
def test_every_integer_dtype_gives_the_same_pairs(scene, dtype):
    va, ta, vb, tb = scene["va"], fan(scene["qa"]), scene["vb"], fan(scene["qb"])
    poses = meshcollide.load_poses(scene["poses"])[:16]
    want = meshcollide.Collider(va, ta, vb, tb).query(poses, backend="cpu")
    if np.iinfo(np.dtype(dtype)).max < max(len(va), len(vb)):
        # uint8 and int8 cannot hold these indices: a small mesh instead.
        v, t = tetra()
        np.testing.assert_array_equal(meshcollide.Collider(v, t.astype(dtype), v, t).query(IDENTITY),
                                      meshcollide.Collider(v, t, v, t).query(IDENTITY))
        return
    got = meshcollide.Collider(va, ta.astype(dtype), vb, tb.astype(dtype)).query(poses, backend="cpu")
    np.testing.assert_array_equal(got, want)


def test_a_mesh_without_triangles_is_named_as_the_call_names_it():
    v, t = tetra()
    with pytest.raises(meshcollide.InputError, match="^mesh: mesh has no triangles$"):
        meshcollide.self_collide(v, t[:0])
    with pytest.raises(meshcollide.InputError, match="^mesh B: mesh has no triangles$"):
        meshcollide.Collider(v, t, v, t[:0])


# --- coordinates the exact predicates do not support: the command line's words ------------


def cli_error(cli, *args):
    r = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    return r.stderr


def cli_words(stderr, where):
    """The command line's message after `where` (the file and line), to the end of its line."""
    assert where in stderr, stderr
    return stderr.split(where, 1)[1].splitlines()[0]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e-300", "-1e31"])
def test_bad_coordinates_are_refused_in_the_command_lines_words(cli, tmp_path, value):
    v, t = tetra()
    write_obj(tmp_path / "ok.obj", v, t)
    bad_text = (tmp_path / "ok.obj").read_text().replace("v 1.0 0.0 0.0", f"v {value} 0.0 0.0")
    (tmp_path / "bad.obj").write_text(bad_text)
    (tmp_path / "p.csv").write_text("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n")
    # The command line: the file, the line (vertex 1 is on line 2), then what is wrong.
    stderr = cli_error(cli, "query", tmp_path / "bad.obj", tmp_path / "ok.obj", "--poses",
                       tmp_path / "p.csv", "--out", tmp_path / "o.csv")
    words = cli_words(stderr, "bad.obj: line 2: ")
    assert "vertex coordinate" in words
    # A frame file of `meshcollide self --frames-a` is refused in the same words.
    (tmp_path / "frames.txt").write_text("bad.obj\n")
    stderr = cli_error(cli, "self", tmp_path / "ok.obj", "--frames-a", tmp_path / "frames.txt", "--out",
                       tmp_path / "s.csv")
    assert cli_words(stderr, "bad.obj: line 2: ") == words
    # Python: the array where the file is named, the row where the line is, the same words.
    bad = v.copy()
    bad[1, 0] = float(value)
    calls = [
        (lambda: meshcollide.Collider(bad, t, v, t), "mesh A: vertex 1: "),
        (lambda: meshcollide.Collider(v, t, bad, t), "mesh B: vertex 1: "),
        (lambda: meshcollide.self_collide(bad, t), "mesh: vertex 1: "),
        (lambda: meshcollide.self_collide(v, t, frames=[v, bad]), "frames[1]: vertex 1: "),
    ]
    if value in ("nan", "inf", "-inf"):  # float32 holds these as they are
        calls.append((lambda: meshcollide.self_collide(v, t, frames=[bad.astype(np.float32)]), "frames[0]: vertex 1: "))
    for call, where in calls:
        with pytest.raises(meshcollide.InputError) as e:
            call()
        assert str(e.value) == where + words


def test_bad_pose_fields_are_refused_in_the_command_lines_words(cli, tmp_path, collider):
    v, t = tetra()
    write_obj(tmp_path / "ok.obj", v, t)
    (tmp_path / "p.csv").write_text("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,inf,0,0\n")
    stderr = cli_error(cli, "query", tmp_path / "ok.obj", tmp_path / "ok.obj", "--poses", tmp_path / "p.csv",
                       "--out", tmp_path / "o.csv")
    assert "line 2 (pose 0): field tx is not finite" in stderr
    with pytest.raises(meshcollide.InputError, match=r"poses: row 0 \(pose 0\): field tx is not finite"):
        collider.query(np.array([[1, 0, 0, 0, np.inf, 0, 0]]))


# --- self_collide(frames=[]) --------------------------------------------------------------


def test_an_empty_frame_list_is_refused_as_the_command_line_refuses_it(cli, tmp_path):
    v, t = tetra()
    for frames in [[], iter([]), np.zeros((0, 4, 3))]:
        with pytest.raises(meshcollide.InputError, match="^frames: the frame list names no frame$"):
            meshcollide.self_collide(v, t, frames=frames)
    write_obj(tmp_path / "m.obj", v, t)
    (tmp_path / "empty.txt").write_text("")
    stderr = cli_error(cli, "self", tmp_path / "m.obj", "--frames-a", tmp_path / "empty.txt", "--out",
                       tmp_path / "s.csv")
    assert "empty.txt: the frame list names no frame" in stderr
    # One frame is a frame list.
    assert len(meshcollide.self_collide(v, t, frames=iter([v]))) == 0


# --- integer options ----------------------------------------------------------------------

OUT_OF_RANGE = [
    ("leaf_size", 0, "1 to 4294967295"), ("leaf_size", -1, "1 to 4294967295"),
    ("leaf_size", 2**32, "1 to 4294967295"), ("leaf_size", 2**70, "1 to 4294967295"),
    ("leaf_size_b", 0, "1 to 4294967295"), ("leaf_size_b", 2**64 + 1, "1 to 4294967295"),
    ("gpu_memory", 0, "1 to 17592186044415"), ("gpu_memory", 2**60, "1 to 17592186044415"),
    ("gpu_memory", -(2**200), "1 to 17592186044415"),
    ("rtree_min", -1, "0 to 4294967295"), ("rtree_max", 2**40, "0 to 4294967295"),
    ("chunk_poses", 0, "1 to 1048576"), ("chunk_poses", 2**62, "1 to 1048576"),
    ("chunk_poses", 2**64 - 1, "1 to 1048576"),
]


@pytest.mark.parametrize("key,value,range_", OUT_OF_RANGE, ids=lambda x: str(x))
def test_integer_options_out_of_range_are_refused_naming_the_range(key, value, range_):
    v, t = tetra()
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.Collider(v, t, v, t, **{key: value}).query(IDENTITY, backend="cpu")
    assert f"{key} = " in str(e.value) and f"is out of range: expected an integer from {range_}" in str(e.value)


@pytest.mark.parametrize("key", ["leaf_size", "leaf_size_b", "gpu_memory", "rtree_min", "rtree_max", "chunk_poses"])
@pytest.mark.parametrize("value", [2.0, True, "4"], ids=repr)
def test_integer_options_must_be_integers(key, value):
    v, t = tetra()
    with pytest.raises(TypeError, match=f"{key}: expected an integer from"):
        meshcollide.Collider(v, t, v, t, **{key: value})


def test_rtree_options_are_checked_whatever_the_bv():
    # As `meshcollide query --rtree-max 2000` is refused with any --bv.
    v, t = tetra()
    with pytest.raises(meshcollide.InputError, match=r"R-tree: M .* got 2000"):
        meshcollide.Collider(v, t, v, t, bv="kdop18", rtree_max=2000)
    with pytest.raises(meshcollide.InputError, match=r"R-tree: m .* got 6"):
        meshcollide.Collider(v, t, v, t, rtree_min=6)


def test_self_collide_leaf_size_is_checked():
    v, t = tetra()
    for bad in [2**70, -(2**70), 2**32, 0]:
        with pytest.raises(meshcollide.InputError, match="leaf_size = .* expected an integer from 1 to 4294967295"):
            meshcollide.self_collide(v, t, leaf_size=bad)
    with pytest.raises(TypeError, match="leaf_size: expected an integer"):
        meshcollide.self_collide(v, t, leaf_size=1.0)
    assert len(meshcollide.self_collide(v, t, leaf_size=np.uint32(U32_MAX))) == 0


@pytest.mark.parametrize("bv", ["kdop6", "kdop18", "dual14", "obb", "sphere", "rtree", "auto"])
def test_the_largest_leaf_size_builds_and_finds_the_same_pairs(bv):
    v, q = torus(8, 4)
    t = fan(q)
    poses = np.array([[1, 0, 0, 0, 0.2, 0, 0], [1, 0, 0, 0, 5, 0, 0]], dtype=np.float64)
    want = meshcollide.Collider(v, t, v, t, bv=bv).query(poses, backend="cpu")
    big = meshcollide.Collider(v, t, v, t, bv=bv, leaf_size=U32_MAX, leaf_size_b=U32_MAX, chunk_poses=2**20,
                               gpu_memory=2**44 - 1)
    np.testing.assert_array_equal(big.query(poses, backend="cpu"), want)
    assert len(want) > 0


def test_boxtree_leaf_size_above_16_is_an_input_error():
    # The boxtree's leaves hold at most 16 triangles: the library's builder refuses more
    # (Error::InvalidOption) instead of clamping it silently.
    v, t = tetra()
    meshcollide.Collider(v, t, v, t, bv="boxtree", leaf_size=16)
    for kw in [{"leaf_size": 17}, {"leaf_size_b": 17}, {"leaf_size": 2**32 - 1}]:
        with pytest.raises(meshcollide.InputError, match="invalid option") as e:
            meshcollide.Collider(v, t, v, t, bv="boxtree", **kw)
    

# --- write_pairs --------------------------------------------------------------------------


@pytest.mark.parametrize("pairs,message", [
    ([[1, 0, 0], [0, 0, 0]], r"pairs: row 1 \[0, 0, 0\] comes before row 0 \[1, 0, 0\]"),
    ([[0, 0, 1], [0, 0, 0]], r"pairs: row 1 \[0, 0, 0\] comes before row 0 \[0, 0, 1\]"),
    ([[0, 1, 0], [0, 0, 5]], r"pairs: row 1 \[0, 0, 5\] comes before row 0"),
    ([[0, 0, 0], [0, 1, 2], [0, 1, 2]], r"pairs: row 2 \[0, 1, 2\] repeats row 1"),
    ([[0, 0, 0], [1, -1, 2]], r"pairs: row 1 \[1, -1, 2\]: negative value"),
    ([[-5, 0, 0]], r"pairs: row 0 \[-5, 0, 0\]: negative value"),
    (np.array([[0.0, 0, 0], [1.5, 0, 0]]), "pairs: expected an integer array, found dtype float64"),
    (np.array([[0.0, 0, 0]]), "pairs: expected an integer array, found dtype float64"),
    (np.array([[True, False, True]]), "pairs: expected an integer array, found dtype bool"),
    (np.array([[0, 0, 0]], dtype=object), "pairs: expected an integer array, found dtype object"),
    ([["0", "0", "0"]], "pairs: expected an integer array, found dtype <U1"),
    (np.zeros((2, 2), dtype=np.int64), r"pairs: expected shape \(K, 3\), found \[2, 2\]"),
    (np.zeros(3, dtype=np.int64), r"pairs: expected shape \(K, 3\), found \[3\]"),
    ([[0, 0, 0], [1, 2]], "pairs: not an array of integers"),
])
def test_write_pairs_refuses_what_is_no_pairs_csv(tmp_path, pairs, message):
    out = tmp_path / "pairs.csv"
    out.write_text("before\n")
    with pytest.raises(meshcollide.InputError, match=message):
        meshcollide.write_pairs(out, pairs)
    # Nothing written, no temporary file left.
    assert out.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.csv"]


def test_write_pairs_writes_what_query_returns(tmp_path, collider):
    pairs = collider.query(np.repeat(IDENTITY, 2, axis=0), first_pose=I64_MAX - 1)
    meshcollide.write_pairs(tmp_path / "p.csv", pairs)
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "pose,tri_a,tri_b" and lines[1] == f"{I64_MAX - 1},0,0" and len(lines) == 33
    meshcollide.write_pairs(tmp_path / "u.csv", np.array([[0, 1, 2], [2**64 - 1, 0, 0]], dtype=np.uint64))
    assert (tmp_path / "u.csv").read_text() == f"pose,tri_a,tri_b\n0,1,2\n{2**64 - 1},0,0\n"
    meshcollide.write_pairs(tmp_path / "e.csv", np.zeros((0, 3), dtype=np.int64))
    assert (tmp_path / "e.csv").read_text() == "pose,tri_a,tri_b\n"


# --- messages quote names and content escaped ----------------------------------------------


def test_control_characters_in_file_names_and_values_are_escaped(tmp_path):
    p = tmp_path / "evil\x1b]0;pwned\x07.obj"
    p.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.load_mesh(p)
    assert "\x1b" not in str(e.value) and "\x07" not in str(e.value)
    assert "evil\\u{1b}]0;pwned\\u{7}.obj" in str(e.value)
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.Collider.from_files(p, p)
    assert "\x1b" not in str(e.value) and "\\u{1b}" in str(e.value)
    v, t = tetra()
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.Collider(v, t, v, t, bv="kdop\x1b[2J")
    assert "\x1b" not in str(e.value) and "kdop\\u{1b}[2J" in str(e.value)
