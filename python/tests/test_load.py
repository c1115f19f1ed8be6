"""load_mesh / load_poses against the files the test writes (docs/FORMATS.md numbering)."""

import numpy as np
import pytest

import meshcollide
from conftest import fan, torus, write_obj, write_ply, write_stl


def test_obj_and_ply_quads_are_fan_split_in_file_order(tmp_path):
    v, quads = torus(7, 5)
    pent = np.array([[0, 1, 2, 3, 4]])
    for name, write in [("m.obj", write_obj), ("m.ply", write_ply)]:
        write(tmp_path / name, v, quads)
        verts, tris = meshcollide.load_mesh(tmp_path / name)
        assert verts.dtype == np.float64 and verts.shape == v.shape
        assert tris.dtype == np.int64
        np.testing.assert_array_equal(verts, v)  # exact: written with repr
        np.testing.assert_array_equal(tris, fan(quads))
    write_obj(tmp_path / "p.obj", v, pent)
    _, tris = meshcollide.load_mesh(str(tmp_path / "p.obj"))
    np.testing.assert_array_equal(tris, [[0, 1, 2], [0, 2, 3], [0, 3, 4]])


def test_binary_stl_keeps_every_facet_corner(tmp_path):
    v, quads = torus(6, 4)
    tris = fan(quads)
    write_stl(tmp_path / "m.stl", v, tris)
    verts, t = meshcollide.load_mesh(tmp_path / "m.stl")
    # No welding: facet i owns vertices 3i, 3i+1, 3i+2, the float32 corners as written.
    np.testing.assert_array_equal(t, np.arange(3 * len(tris)).reshape(-1, 3))
    np.testing.assert_array_equal(verts, v[tris].reshape(-1, 3).astype(np.float32).astype(np.float64))


def test_load_poses_keeps_rows_as_written(tmp_path):
    p = tmp_path / "poses.csv"
    p.write_text("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0.5,0,0\n\n0.7071068,0,0,0.7071068,0.5,0,1e-3\n")
    rows = meshcollide.load_poses(p)
    assert rows.dtype == np.float64
    np.testing.assert_array_equal(rows, [[1, 0, 0, 0, 0.5, 0, 0], [0.7071068, 0, 0, 0.7071068, 0.5, 0, 1e-3]])


@pytest.mark.parametrize(
    "text,where",
    [
        ("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0,0,0,0\n", "line 3 (pose 1)"),
        ("qw,qx,qy,qz,tx,ty,tz\n2,0,0,0,0,0,0\n", "line 2 (pose 0): quaternion norm"),
        ("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,x,0,0\n", "line 2 (pose 0): field tx"),
        ("pose\n", "line 1: expected the header"),
    ],
)
def test_bad_poses_file_names_file_and_line(tmp_path, text, where):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.load_poses(p)
    assert str(p) in str(e.value) and where in str(e.value)
    assert isinstance(e.value, ValueError)


def test_bad_mesh_files_name_file_and_line(tmp_path):
    p = tmp_path / "bad.obj"
    p.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n")
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.load_mesh(p)
    assert str(p) in str(e.value) and "line 5" in str(e.value) and "vertex 9" in str(e.value)
    q = tmp_path / "nan.obj"
    q.write_text("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n")
    with pytest.raises(meshcollide.InputError, match="line 2"):
        meshcollide.load_mesh(q)
    with pytest.raises(meshcollide.InputError, match="unknown mesh extension"):
        meshcollide.load_mesh(tmp_path / "x.txt")
    with pytest.raises(meshcollide.InputError, match="cannot read"):
        meshcollide.load_mesh(tmp_path / "missing.obj")
    with pytest.raises(meshcollide.InputError) as e:
        meshcollide.Collider.from_files(p, p)
    assert "line 5" in str(e.value)


def test_bad_arrays_and_options_raise_input_error():
    v, q = torus(8, 4)
    t = fan(q)
    with pytest.raises(meshcollide.InputError, match="mesh A: vertices: expected shape"):
        meshcollide.Collider(v[:, :2], t, v, t)
    with pytest.raises(meshcollide.InputError, match="mesh B: triangles: expected an integer"):
        meshcollide.Collider(v, t, v, t.astype(float))
    with pytest.raises(meshcollide.InputError, match="mesh B: triangles: row 0: vertex index -1 is out of range"):
        meshcollide.Collider(v, t, v, np.vstack([[-1, 0, 1], t]))
    bad = v.copy()
    bad[3, 1] = np.nan
    with pytest.raises(meshcollide.InputError, match="mesh A: vertex 3"):
        meshcollide.Collider(bad, t, v, t)
    with pytest.raises(meshcollide.InputError, match="mesh A: triangles: row 1: vertex index 999 is out of range"):
        meshcollide.Collider(v, np.vstack([t[:1], [[0, 1, 999]]]), v, t)
    with pytest.raises(meshcollide.InputError, match=r"unknown bv `kdop7` \(expected one of: kdop6"):
        meshcollide.Collider(v, t, v, t, bv="kdop7")
    with pytest.raises(meshcollide.InputError, match="leaf_size"):
        meshcollide.Collider(v, t, v, t, leaf_size=0)
    with pytest.raises(meshcollide.InputError, match="invalid option"):
        meshcollide.Collider(v, t, v, t, bv="rtree", rtree_min=6, rtree_max=8)
    with pytest.raises(TypeError, match="leafsize"):
        meshcollide.Collider(v, t, v, t, leafsize=2)
    c = meshcollide.Collider(v, t, v, t)
    poses = np.array([[1, 0, 0, 0, 0, 0, 0], [1.5, 0, 0, 0, 0, 0, 0]])
    with pytest.raises(meshcollide.InputError, match=r"poses: row 1 \(pose 11\): quaternion norm"):
        c.query(poses, first_pose=10)
    with pytest.raises(meshcollide.InputError, match="expected shape"):
        c.query(poses[:, :6])
    with pytest.raises(meshcollide.InputError, match="unknown mode"):
        c.query(poses[:1], mode="some")
    with pytest.raises(meshcollide.InputError, match="unknown backend"):
        c.query(poses[:1], backend="tpu")
    b = meshcollide.Collider(v, t, v, t, bv="boxtree")
    with pytest.raises(meshcollide.InputError, match="CPU only"):
        b.query(poses[:1], backend="gpu")
