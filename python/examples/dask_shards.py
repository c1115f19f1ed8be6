#!/usr/bin/env python3
"""Pose shards on a dask.distributed cluster: `meshcollide query` spread over workers.

    python dask_shards.py A.obj B.stl --poses poses.csv --out pairs.csv [--shard-poses N]
        [--scheduler tcp://host:8786 | --workers 2] [--bv kdop18] [--leaf-size 1] ...

The poses file is read and checked here (a bad row is reported with its line before any
work), split into shards of consecutive poses, and each shard is sent to a worker as
`Collider.query(shard, first_pose=start)`. Workers load the meshes themselves from their
paths (which must be readable on every worker, e.g. a shared file system) and build the
hierarchies once per worker process, so no mesh travels with a task. The shards' pairs are
merged in pose order and `pairs.csv` is written atomically (temporary file, then rename):
byte for byte what `meshcollide query` writes for the same inputs (the summed counters too,
except with the default `--bv auto`, where each shard runs its own probe). Without `--scheduler`
a LocalCluster of `--workers` processes runs on this machine.
"""

import argparse
import os
import sys
import time

import numpy as np

import meshcollide

# Keyword arguments of Collider that the command line spells with dashes.
BUILD_OPTIONS = ["bv", "box_test", "split", "split_point", "leaf_size", "leaf_size_b", "tumble", "descent",
                 "dual_order", "rtree_collide", "rtree_min", "rtree_max", "gpu_memory"]


def collider(path_a, path_b, options):
    """This worker's Collider for the scene, built on first use (one per worker process)."""
    from distributed import get_worker

    worker = get_worker()
    cache = getattr(worker, "_meshcollide_colliders", None)
    if cache is None:
        cache = worker._meshcollide_colliders = {}
    key = (os.path.abspath(path_a), os.path.abspath(path_b), tuple(sorted(options.items())))
    if key not in cache:
        cache[key] = meshcollide.Collider.from_files(path_a, path_b, **options)
    return cache[key]


def query_shard(path_a, path_b, options, poses, start, mode, backend):
    """One shard on a worker: its pairs (global pose numbers) and its counters."""
    c = collider(path_a, path_b, options)
    pairs = c.query(poses, mode=mode, backend=backend, first_pose=start)
    s = c.last_stats
    return pairs, {k: s[k] for k in ("poses", "pairs", "bv_tests", "tri_tests", "bv_updates", "query_ms")}


def run(client, args, options, poses):
    starts = list(range(0, len(poses), args.shard_poses))
    a, b = os.path.abspath(args.a), os.path.abspath(args.b)
    futures = [
        client.submit(query_shard, a, b, options, poses[s:s + args.shard_poses], s, args.mode, args.backend,
                      pure=False)
        for s in starts
    ]
    results = client.gather(futures)  # in submission order: shard order
    pairs = np.concatenate([p for p, _ in results]) if results else np.zeros((0, 3), np.int64)
    meshcollide.write_pairs(args.out, pairs)
    totals = {k: sum(s[k] for _, s in results) for k in ("poses", "pairs", "bv_tests", "tri_tests", "bv_updates")}
    return totals, len(starts)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="mesh A, the environment")
    p.add_argument("b", help="mesh B, the flying object")
    p.add_argument("--poses", required=True)
    p.add_argument("--out", required=True, help="pairs.csv, written atomically")
    p.add_argument("--shard-poses", type=int, default=1024, help="poses per task (default 1024)")
    p.add_argument("--scheduler", help="address of a running scheduler, e.g. tcp://host:8786")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (no --scheduler)")
    p.add_argument("--mode", default="all", choices=["all", "first"])
    p.add_argument("--backend", default="cpu", choices=["auto", "cpu", "gpu"])
    for name in BUILD_OPTIONS:
        p.add_argument("--" + name.replace("_", "-"), dest=name,
                       type=int if name in ("leaf_size", "leaf_size_b", "rtree_min", "rtree_max", "gpu_memory")
                       else str)
    args = p.parse_args(argv)
    if args.shard_poses < 1:
        p.error("--shard-poses must be at least 1")
    options = {k: getattr(args, k) for k in BUILD_OPTIONS if getattr(args, k) is not None}

    poses = meshcollide.load_poses(args.poses)  # checked whole before any work
    from distributed import Client, LocalCluster

    t = time.perf_counter()
    if args.scheduler:
        with Client(args.scheduler) as client:
            totals, shards = run(client, args, options, poses)
    else:
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            totals, shards = run(client, args, options, poses)
    print(f"{totals['poses']} poses in {shards} shards, {totals['pairs']} pairs; Nv {totals['bv_tests']}, "
          f"Np {totals['tri_tests']}, Nu {totals['bv_updates']}; {time.perf_counter() - t:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except meshcollide.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
