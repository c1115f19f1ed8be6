"""backend="gpu" against the CPU reference: identical pairs and counters."""

import os
import subprocess

import numpy as np
import pytest

import meshcollide


def gpu_or_skip(c, poses):
    try:
        return c.query(poses, backend="gpu")
    except meshcollide.GpuError as e:
        if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise


@pytest.mark.parametrize("options", [{}, {"bv": "kdop6", "leaf_size": 3}, {"bv": "dual18"}, {"tumble": "exact"}])
def test_gpu_equals_cpu(scene, options):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], chunk_poses=16, **options)
    cpu = c.query(poses, backend="cpu")
    s_cpu = c.last_stats
    gpu = gpu_or_skip(c, poses)
    s_gpu = c.last_stats
    np.testing.assert_array_equal(gpu, cpu)
    assert s_gpu["backend"].startswith("gpu: ")
    assert "gpu" in s_gpu and s_gpu["gpu"]["submissions"] >= 1
    for k in ["poses", "pairs", "bv_tests", "tri_tests", "bv_updates", "dual", "auto"]:
        # Nu of the OBB tree differs by design (the GPU poses B's volume in every node
        # test), also where the default `auto` gave the run to it.
        if k == "bv_updates" and (s_cpu.get("auto") or {}).get("obb_poses"):
            continue
        assert s_gpu.get(k) == s_cpu.get(k), k
    shard = c.query(poses[20:], backend="gpu", first_pose=20)
    np.testing.assert_array_equal(shard, cpu[cpu[:, 0] >= 20])


@pytest.mark.parametrize("bv", ["obb", "sphere"])
def test_gpu_volume_trees_equal_cpu(scene, bv):
    # Same pairs, Nv and Np; Nu differs by design (the GPU poses B's volume in every test).
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
    cpu = c.query(poses, backend="cpu")
    s_cpu = c.last_stats
    gpu = gpu_or_skip(c, poses)
    s_gpu = c.last_stats
    np.testing.assert_array_equal(gpu, cpu)
    assert len(cpu) > 0
    for k in ["poses", "pairs", "bv_tests", "tri_tests"]:
        assert s_gpu.get(k) == s_cpu.get(k), k
    assert s_gpu["bv_updates"] >= s_cpu["bv_updates"]


@pytest.mark.parametrize("bv", ["obb", "sphere", "kdop18", "dual18"])
def test_gpu_tolerance_equals_cpu(scene, bv):
    # The tolerance query on the device: A's volumes grown as on the CPU, every leaf
    # pair's triangles decided by the host's exact test; the same pairs, Nv and Np.
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
    gpu_or_skip(c, poses[:1])
    for eps in [0.01, 0.1]:
        cpu = c.query(poses, tolerance=eps, backend="cpu")
        s_cpu = c.last_stats
        gpu = c.query(poses, tolerance=eps, backend="gpu")
        s_gpu = c.last_stats
        np.testing.assert_array_equal(gpu, cpu)
        assert len(cpu) > 0
        for k in ["poses", "pairs", "bv_tests", "tri_tests", "dual"]:
            assert s_gpu.get(k) == s_cpu.get(k), (eps, k)
    # The intersection query again on the same device scene.
    np.testing.assert_array_equal(c.query(poses, backend="gpu"), c.query(poses, backend="cpu"))


def test_gpu_is_probed_once_and_the_scene_kept(scene):
    # The process opens its device once (`gpu_probe_ms` only where a call did), and a
    # collider uploads its trees once per device: a later call's uploads are its batches'.
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv="kdop18")
    first = gpu_or_skip(c, poses)
    s1 = c.last_stats
    second = c.query(poses, backend="gpu")
    s2 = c.last_stats
    np.testing.assert_array_equal(first, second)
    assert "gpu_probe_ms" not in s2
    batches = lambda s: sum(b["bytes_uploaded"] for b in s["gpu"]["batches"])
    assert s2["gpu"]["bytes_uploaded"] == batches(s2)
    assert s1["gpu"]["bytes_uploaded"] > batches(s1)  # the trees, once
    for k in ["pairs", "bv_tests", "tri_tests"]:
        assert s1[k] == s2[k], k
    # `auto` asks the same process-wide probe: no second probe either.
    c.query(poses, backend="auto")
    assert "gpu_probe_ms" not in c.last_stats


def distance_gpu_or_skip(c, poses, **kw):
    try:
        return c.distance(poses, backend="gpu", **kw)
    except meshcollide.GpuError as e:
        if "no GPU adapter" in str(e) and os.environ.get("MESHCOLLIDE_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise


@pytest.mark.parametrize("bv", ["auto", "kdop6", "kdop18"])
def test_distance_on_the_gpu_equals_the_cpu(scene, cli, tmp_path, bv):
    """The same distances, witnesses and points as the CPU, with and without ``upto``."""
    r = subprocess.run([cli, "poses", "--steps", "16", "--translate", "2.2", "0.3", "0", "--out",
                        str(tmp_path / "far.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv=bv)
    for path in [scene["poses"], tmp_path / "far.csv"]:
        poses = meshcollide.load_poses(path)
        for upto in [None, 0.3]:
            got = distance_gpu_or_skip(c, poses, upto=upto)
            want = c.distance(poses, upto=upto, backend="cpu")
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)


def test_distance_on_the_gpu_refuses_the_volume_trees(scene):
    poses = meshcollide.load_poses(scene["poses"])
    c = meshcollide.Collider.from_files(scene["a"], scene["b"], bv="obb")
    with pytest.raises(meshcollide.InputError, match="obb"):
        distance_gpu_or_skip(c, poses)
    with pytest.raises(meshcollide.InputError, match="unknown backend"):
        c.distance(poses, backend="fpga")
