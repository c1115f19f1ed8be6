"""Poses in every common form: quaternions in either order, 3x4 and 4x4 matrices, arrays and
poses.csv files; the command line on the same file is the oracle."""

import numpy as np
import pytest

import meshcollide
from conftest import csv_rows, run_cli


def rotations(n, seed=5):
    """Orthonormal matrices by QR of random matrices (reflections among them)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    return q


def test_quaternion_orders_give_the_same_pairs(scene):
    wxyz = meshcollide.load_poses(scene["poses"])
    xyzw = wxyz[:, [1, 2, 3, 0, 4, 5, 6]]
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    want = c.query(wxyz, backend="cpu")
    assert len(want) > 0
    np.testing.assert_array_equal(c.query(xyzw, backend="cpu", quat="xyzw"), want)
    # SciPy's identity row `0,0,0,1` is the identity in the xyzw order.
    ident = np.array([[0.0, 0, 0, 1, 0, 0, 0]])
    np.testing.assert_array_equal(c.query(ident, quat="xyzw"), c.query(np.array([[1.0, 0, 0, 0, 0, 0, 0]])))
    with pytest.raises(meshcollide.InputError, match="quat"):
        c.query(wxyz, quat="zyxw")


def test_matrices_equal_the_command_line_on_the_same_file(scene, cli, tmp_path):
    r = rotations(40)
    t = np.random.default_rng(6).uniform(-0.6, 0.6, size=(40, 3)) + [1.0, 0, 0]
    rows = np.concatenate([r.reshape(40, 9), t], axis=1)
    f = tmp_path / "matrices.csv"
    f.write_text("r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz\n"
                 + "".join(",".join(repr(float(x)) for x in row) + "\n" for row in rows))
    data, stats = run_cli(cli, scene["a"], scene["b"], f, tmp_path, "--backend", "cpu")
    want = csv_rows(data)
    assert len(want) > 0
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    loaded = meshcollide.load_poses(f)
    assert loaded.shape == (40, 3, 4)
    np.testing.assert_array_equal(loaded[:, :, :3], r)
    np.testing.assert_array_equal(loaded[:, :, 3], t)
    np.testing.assert_array_equal(c.query(loaded, backend="cpu"), want)
    four = np.zeros((40, 4, 4))
    four[:, :3, :] = loaded
    four[:, 3, 3] = 1.0
    np.testing.assert_array_equal(c.query(four, backend="cpu"), want)
    assert c.last_stats["bv_tests"] == stats["bv_tests"]


def test_bad_matrices_name_the_row(scene):
    c = meshcollide.Collider.from_files(scene["a"], scene["b"])
    good = np.tile(np.eye(4), (3, 1, 1))
    bad = good.copy()
    bad[2, 3, 0] = 1e-9
    with pytest.raises(meshcollide.InputError, match=r"row 2 \(pose 2\).*last row"):
        c.query(bad)
    skew = good[:, :3, :].copy()
    skew[1, 0, 1] = 0.01
    with pytest.raises(meshcollide.InputError, match=r"row 1 \(pose 1\).*orthonormal"):
        c.query(skew)
    with pytest.raises(meshcollide.InputError, match=r"shape"):
        c.query(np.zeros((3, 3, 3)))
