"""Shared fixtures: generated scenes written as mesh files, and the command line as oracle."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def require(what):
    """Skips loudly, or fails when MESHCOLLIDE_REQUIRE_PYTHON=1 (as in CI)."""
    if os.environ.get("MESHCOLLIDE_REQUIRE_PYTHON") == "1":
        pytest.fail(f"{what} (MESHCOLLIDE_REQUIRE_PYTHON=1)")
    pytest.skip(what)


def torus(n_major, n_minor, r_major=1.0, r_minor=0.3, swap_yz=False):
    """A torus as vertices (n, 3) and quads (m, 4), 0-based."""
    i, j = np.meshgrid(np.arange(n_major), np.arange(n_minor), indexing="ij")
    u = 2 * np.pi * i.ravel() / n_major
    v = 2 * np.pi * j.ravel() / n_minor
    x = (r_major + r_minor * np.cos(v)) * np.cos(u)
    y = (r_major + r_minor * np.cos(v)) * np.sin(u)
    z = r_minor * np.sin(v)
    verts = np.stack([x, z, y] if swap_yz else [x, y, z], axis=1)
    idx = lambda a, b: (a % n_major) * n_minor + (b % n_minor)  # noqa: E731
    ii, jj = i.ravel(), j.ravel()
    quads = np.stack([idx(ii, jj), idx(ii + 1, jj), idx(ii + 1, jj + 1), idx(ii, jj + 1)], axis=1)
    return verts, quads


def fan(polys):
    """docs/FORMATS.md's fan split of polygons (rows of equal length) into triangles."""
    n = polys.shape[1]
    tris = [polys[:, [0, k, k + 1]] for k in range(1, n - 1)]
    return np.stack(tris, axis=1).reshape(-1, 3)


def write_obj(path, verts, faces):
    with open(path, "w") as f:
        f.writelines("v %r %r %r\n" % tuple(p) for p in verts.tolist())
        f.writelines("f " + " ".join(str(k + 1) for k in face) + "\n" for face in faces.tolist())


def write_ply(path, verts, faces):
    with open(path, "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex %d\n" % len(verts))
        f.write("property double x\nproperty double y\nproperty double z\n")
        f.write("element face %d\nproperty list uchar int vertex_indices\nend_header\n" % len(faces))
        f.writelines("%r %r %r\n" % tuple(p) for p in verts.tolist())
        f.writelines(("%d " % len(face)) + " ".join(map(str, face)) + "\n" for face in faces.tolist())


def write_stl(path, verts, tris):
    """Binary STL: float32 corners, one facet per triangle."""
    import struct

    with open(path, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", len(tris)))
        for t in tris.tolist():
            corners = verts[t].astype("<f4").ravel().tolist()
            f.write(struct.pack("<12fH", 0.0, 0.0, 0.0, *corners, 0))


@pytest.fixture(scope="session")
def cli():
    """The `meshcollide` binary (MESHCOLLIDE_BIN, else target/release)."""
    exe = os.environ.get("MESHCOLLIDE_BIN") or str(ROOT / "target" / "release" / "meshcollide")
    if not Path(exe).exists():
        require(f"no meshcollide binary at {exe} (run cargo build --release, or set MESHCOLLIDE_BIN)")
    return exe


def run_cli(cli, a, b, poses, out_dir, *args):
    """`meshcollide query` on files: (pairs.csv bytes, stats dict)."""
    out, stats = Path(out_dir) / "cli_pairs.csv", Path(out_dir) / "cli_stats.json"
    cmd = [cli, "query", str(a), str(b), "--poses", str(poses), "--out", str(out), "--stats", str(stats), *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_bytes(), json.loads(stats.read_text())


def csv_rows(data):
    """pairs.csv bytes as an int64 (K, 3) array."""
    lines = data.decode().splitlines()
    assert lines[0] == "pose,tri_a,tri_b"
    return np.array([[int(x) for x in l.split(",")] for l in lines[1:]], dtype=np.int64).reshape(-1, 3)


@pytest.fixture(scope="session")
def scene(tmp_path_factory, cli):
    """Interlocked tori (A as OBJ quads, B as PLY quads) and a tumbling turn of B."""
    d = tmp_path_factory.mktemp("scene")
    va, qa = torus(24, 10)
    vb, qb = torus(20, 8, swap_yz=True)
    write_obj(d / "a.obj", va, qa)
    write_ply(d / "b.ply", vb, qb)
    r = subprocess.run([cli, "poses", "--steps", "64", "--translate", "1", "0", "0", "--out", str(d / "poses.csv")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {"dir": d, "a": d / "a.obj", "b": d / "b.ply", "poses": d / "poses.csv",
            "va": va, "qa": qa, "vb": vb, "qb": qb}


def pytest_report_header(config):
    return "meshcollide CLI oracle: " + (os.environ.get("MESHCOLLIDE_BIN") or "target/release/meshcollide")


__all__ = ["require", "torus", "fan", "write_obj", "write_ply", "write_stl", "run_cli", "csv_rows", "shutil"]
