"""examples/dask_shards.py on a LocalCluster of 2 worker processes: pairs.csv byte for byte
the command line's."""

import subprocess
import sys
from pathlib import Path

from conftest import require, run_cli

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dask_shards.py"


def test_shards_on_two_workers_equal_the_command_line(scene, cli, tmp_path):
    try:
        import distributed  # noqa: F401
    except ImportError:
        require("dask.distributed is not installed (pip install 'dask[distributed]')")
    # kdop18: with the default `auto` each shard runs its own probe, so the counters (not
    # the pairs) would depend on the sharding.
    expected, stats = run_cli(cli, scene["a"], scene["b"], scene["poses"], tmp_path, "--backend", "cpu",
                              "--leaf-size", "2", "--bv", "kdop18")
    out = tmp_path / "pairs.csv"
    r = subprocess.run([sys.executable, str(EXAMPLE), str(scene["a"]), str(scene["b"]), "--poses",
                        str(scene["poses"]), "--out", str(out), "--shard-poses", "7", "--workers", "2",
                        "--leaf-size", "2", "--bv", "kdop18"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == expected
    assert f"{stats['pairs']} pairs; Nv {stats['bv_tests']}, Np {stats['tri_tests']}, Nu {stats['bv_updates']}" \
        in r.stderr
    assert not list(tmp_path.glob(".pairs.csv.*.tmp"))


def test_bad_poses_are_reported_before_any_work(scene, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0\n")
    r = subprocess.run([sys.executable, str(EXAMPLE), str(scene["a"]), str(scene["b"]), "--poses", str(bad),
                        "--out", str(tmp_path / "p.csv")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "line 3 (pose 1)" in r.stderr, r.stderr
    assert not (tmp_path / "p.csv").exists()
