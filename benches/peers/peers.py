#!/usr/bin/env python3
"""meshcollide against its peers, side by side, in one run (issue 12).

    python3 benches/peers/peers.py --out target/peers            # the full run
    python3 benches/peers/peers.py --out target/peers --quick    # smoke test, few poses

What it does, in order (README.md beside this file has the details):
  1. creates a venv (target/peers-venv unless --venv) if absent and pip-installs the Python
     peers of requirements.txt into it, one at a time (a peer without a working wheel is
     skipped, loudly), then re-runs itself with the venv's Python;
  2. builds `meshcollide` and the parry3d runner (`examples/parry_peer.rs`) with cargo;
  3. writes every scene's meshes and poses into OUT/scenes/ (the Stanford bunny is read
     from ../shared/meshes, never copied; its scenes are skipped loudly without it);
  4. runs meshcollide (`query --backend cpu --threads 1`) and every peer on every scene,
     each in its own process, pinned to one core (`taskset -c 0` where available) with the
     usual thread-count variables at 1; only the collide calls are timed (hierarchies are
     built first, as meshcollide's `query_ms` excludes its build);
  5. compares every peer's pairs with meshcollide's (exact: closed triangles, f64 as
     written); a difference is a missed or an extra pair, each measured (how grazing a
     missed contact is, how far apart an extra pair is) to tell tolerance behaviour from
     wrong answers;
  6. writes OUT/table.md, OUT/plot.svg (grouped bars, log axis) and OUT/results.json.
"""

import argparse
import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_BUNNY = REPO.parent / "shared" / "meshes" / "stanford-bunny.obj"

# ---------------------------------------------------------------------------------------
# The scenes: (name, kind, parameters, poses in the full run). --quick caps the poses at
# QUICK_POSES (the pose generators then cover their whole cycle in fewer steps).
#   bunny:   the Stanford bunny against itself, Zachmann's tumbling (`meshcollide poses`)
#            about its bounding-box centre C, B's centre moved along x by dist × extent
#            (extent: the box's largest side).
#   tori:    two interlocked tori (major radius 1, minor 0.3, 20,000 triangles each; B
#            turned 90° about x and moved by 1 along x, written so in its file), B rocking
#            by small rotations (up to ~0.45 rad) about its own centre.
#   grid:    wavy grids, 152 × 152 vertices on [0,1]², z = 0.02·sin(12x)·sin(12y), two
#            triangles per cell (45,602 triangles); B = A rotated about z by ±0.01 rad
#            about (0.5, 0.5, 0), shifted in x and y by ±0.05 (seeded), and by dz in z
#            (dz = 0: the surfaces cut each other along many triangles).
#   spheres: Klosowski's nested spheres: a UV sphere of radius 1 (20,000 or 2,000
#            triangles) and B = A with its vertices scaled by 1 − alpha; the identity
#            pose, once, and as a batch of `poses` identical poses; and ("turned") a batch
#            of `poses` seeded random rotations of B about the centre it shares with A:
#            the same gap, other triangles facing each other in every pose (a pose
#            repeated lets a library reuse what the pose before left, and the CPU learn
#            its branches; a batch of distinct poses is what users send).
# ---------------------------------------------------------------------------------------
SCENES = [
    ("bunny-0.5", "bunny", {"dist": 0.5}, 500),
    ("bunny-1.0", "bunny", {"dist": 1.0}, 500),
    ("bunny-1.5", "bunny", {"dist": 1.5}, 500),
    ("bunny-2.0", "bunny", {"dist": 2.0}, 500),
    ("tori-interlocked", "tori", {}, 360),
    ("grid-z0.1", "grid", {"dz": 0.1}, 300),
    ("grid-z0.2", "grid", {"dz": 0.2}, 300),
    ("grid-touching", "grid", {"dz": 0.0}, 300),
    ("spheres-20k-a0.1", "spheres", {"tris": 20000, "alpha": 0.1}, 1),
    ("spheres-20k-a0.1-x20", "spheres", {"tris": 20000, "alpha": 0.1}, 20),
    ("spheres-20k-a0.01", "spheres", {"tris": 20000, "alpha": 0.01}, 1),
    ("spheres-20k-a0.01-x20", "spheres", {"tris": 20000, "alpha": 0.01}, 20),
    ("spheres-20k-a0.001", "spheres", {"tris": 20000, "alpha": 0.001}, 1),
    ("spheres-20k-a0.001-x20", "spheres", {"tris": 20000, "alpha": 0.001}, 20),
    ("spheres-2k-a0.1", "spheres", {"tris": 2000, "alpha": 0.1}, 1),
    ("spheres-2k-a0.1-x20", "spheres", {"tris": 2000, "alpha": 0.1}, 20),
    ("spheres-2k-a0.01", "spheres", {"tris": 2000, "alpha": 0.01}, 1),
    ("spheres-2k-a0.01-x20", "spheres", {"tris": 2000, "alpha": 0.01}, 20),
    ("spheres-2k-a0.001", "spheres", {"tris": 2000, "alpha": 0.001}, 1),
    ("spheres-2k-a0.001-x20", "spheres", {"tris": 2000, "alpha": 0.001}, 20),
    ("spheres-20k-a0.1-turned-x20", "spheres", {"tris": 20000, "alpha": 0.1, "turned": True}, 20),
    ("spheres-20k-a0.01-turned-x20", "spheres", {"tris": 20000, "alpha": 0.01, "turned": True}, 20),
    ("spheres-20k-a0.001-turned-x20", "spheres", {"tris": 20000, "alpha": 0.001, "turned": True}, 20),
    ("spheres-2k-a0.1-turned-x20", "spheres", {"tris": 2000, "alpha": 0.1, "turned": True}, 20),
    ("spheres-2k-a0.01-turned-x20", "spheres", {"tris": 2000, "alpha": 0.01, "turned": True}, 20),
    ("spheres-2k-a0.001-turned-x20", "spheres", {"tris": 2000, "alpha": 0.001, "turned": True}, 20),
]
# `--distance` (issue 40): the distance query side by side (and the tolerance query's cost
# against our own intersection query). (name, kind, parameters, poses in the full run, what
# runs: "distance" and/or "tolerance"). The bunny's dist is B's shift in extents (the
# surfaces apart from 1 extent on); the spheres' gap is their distance (B inside A); the
# grids' dz their separation.
DISTANCE_SCENES = [
    ("bunny-1.0", "bunny", {"dist": 1.0}, 500, {"tolerance"}),
    ("bunny-1.5", "bunny", {"dist": 1.5}, 500, {"distance", "tolerance"}),
    ("bunny-2.0", "bunny", {"dist": 2.0}, 500, {"distance", "tolerance"}),
    ("bunny-3.0", "bunny", {"dist": 3.0}, 500, {"distance", "tolerance"}),
    ("bunny-5.0", "bunny", {"dist": 5.0}, 500, {"distance", "tolerance"}),
    ("spheres-20k-a0.1-turned-x20", "spheres", {"tris": 20000, "alpha": 0.1, "turned": True}, 20, {"distance"}),
    ("spheres-20k-a0.01-turned-x20", "spheres", {"tris": 20000, "alpha": 0.01, "turned": True}, 20, {"distance"}),
    ("spheres-20k-a0.001-turned-x20", "spheres", {"tris": 20000, "alpha": 0.001, "turned": True}, 20, {"distance"}),
    ("grid-z0.1", "grid", {"dz": 0.1}, 300, {"distance", "tolerance"}),
    ("grid-z0.2", "grid", {"dz": 0.2}, 300, {"distance", "tolerance"}),
    ("grid-touching", "grid", {"dz": 0.0}, 300, {"tolerance"}),
]
# The peers of the distance query (coal's OBB has no distance; MeshLib is not asked).
DISTANCE_PEERS = ["parry3d", "fcl-obbrss", "coal-obbrss"]
# Distances agree when within this relative difference of ours (exact, rounded once).
DIST_REL = 1e-9
# The tolerance query's EPS: this fraction of the scene's extent (its mesh's bounding box's
# largest side: the bunny's, or the grid's side 1).
TOL_FRACTION = 0.01
# The seed of the turned spheres' rotations.
TURN_SEED = 20
QUICK_POSES = 10
GRID_SEED = 12

# The peers: key, label, PyPI package (None: built with cargo). Python peers run in the venv.
PEERS = [
    ("parry3d", "parry3d-f64", None),
    ("fcl-obbrss", "python-fcl OBBRSS", "python-fcl"),
    ("coal-obbrss", "coal OBBRSS", "coal"),
    ("coal-obb", "coal OBB", "coal"),
    ("meshlib", "MeshLib", "meshlib"),
]
# Python import name of each PyPI package of requirements.txt.
IMPORTS = {"numpy": "numpy", "python-fcl": "fcl", "coal": "coal", "meshlib": "meshlib.mrmeshpy"}
OURS = "meshcollide"

# A difference is put down to the peer's touching/tolerance behaviour when it is within
# TOL_REL × the scene's size: an extra pair whose triangles are that close, or a missed
# contact that is that grazing (see `grazing`). Other differences make the peer "not
# correct" for that scene.
TOL_REL = 1e-5
# At most this many differing pairs per scene, peer and kind are measured (the first ones,
# in pose order); the verdict rests on those measured.
MAX_CLASSIFY = 50000

THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
    "TBB_NUM_THREADS": "1",
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loud(msg):
    bar = "!" * 78
    log(f"{bar}\n!! {msg}\n{bar}")


# ---------------------------------------------------------------------------------------
# Meshes and poses (pure Python: the scenes are written as OBJ with shortest round-trip
# floats, so meshcollide, parry and the Python peers read the same f64 values).
# ---------------------------------------------------------------------------------------
def load_obj(path):
    """Vertices and triangles of an OBJ as meshcollide reads it: faces split as fans
    (v0, vi, vi+1), `v/vt/vn` and negative indices, no welding."""
    verts, tris = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                verts.append((float(parts[1]), float(parts[2]), float(parts[3])))
            elif parts[0] == "f":
                idx = []
                for tok in parts[1:]:
                    i = int(tok.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(verts) + i)
                for k in range(1, len(idx) - 1):
                    tris.append((idx[0], idx[k], idx[k + 1]))
    return verts, tris


def write_obj(path, verts, tris):
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in verts]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in tris]
    tmp = Path(str(path) + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)


def write_poses(path, poses):
    rows = ["qw,qx,qy,qz,tx,ty,tz"] + [",".join(repr(float(v)) for v in p) for p in poses]
    tmp = Path(str(path) + ".tmp")
    tmp.write_text("\n".join(rows) + "\n")
    tmp.replace(path)


def read_poses(path):
    out = []
    with open(path) as f:
        header = f.readline().strip()
        assert header == "qw,qx,qy,qz,tx,ty,tz", f"{path}: bad header {header!r}"
        for line in f:
            if line.strip():
                out.append(tuple(float(v) for v in line.split(",")))
    return out


def bounds(verts):
    lo = [min(v[k] for v in verts) for k in range(3)]
    hi = [max(v[k] for v in verts) for k in range(3)]
    return lo, hi


def quat_mul(a, b):
    return (
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    )


def axis_quat(axis, angle):
    s, c = math.sin(0.5 * angle), math.cos(0.5 * angle)
    return (c, axis[0] * s, axis[1] * s, axis[2] * s)


def rotation(q):
    """Rotation matrix of quaternion (w, x, y, z), normalized, as meshcollide's `Pose::new`
    computes it (same formulas, f64, entries below 2^-60 flushed to 0)."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    w, x, y, z = (c / n for c in q)
    r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ]
    flush = 2.0**-60
    return [[0.0 if abs(e) < flush else e for e in row] for row in r]


def apply(r, t, p):
    return tuple(r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + t[i] for i in range(3))


def pose_about(q, center, shift):
    """Pose rotating B by q about its point `center`, then moving it by `shift`."""
    rc = apply(rotation(q), (0.0, 0.0, 0.0), center)
    return tuple(q) + tuple(center[k] + shift[k] - rc[k] for k in range(3))


def torus(major, minor, n_major, n_minor):
    verts, tris = [], []
    for i in range(n_major):
        u = 2.0 * math.pi * i / n_major
        for j in range(n_minor):
            v = 2.0 * math.pi * j / n_minor
            rr = major + minor * math.cos(v)
            verts.append((rr * math.cos(u), rr * math.sin(u), minor * math.sin(v)))
    for i in range(n_major):
        for j in range(n_minor):
            a = i * n_minor + j
            b = ((i + 1) % n_major) * n_minor + j
            c = ((i + 1) % n_major) * n_minor + (j + 1) % n_minor
            d = i * n_minor + (j + 1) % n_minor
            tris += [(a, b, c), (a, c, d)]
    return verts, tris


def wavy_grid(n=152):
    verts, tris = [], []
    for j in range(n):
        y = j / (n - 1)
        for i in range(n):
            x = i / (n - 1)
            verts.append((x, y, 0.02 * math.sin(12.0 * x) * math.sin(12.0 * y)))
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            b, c, d = a + 1, a + n + 1, a + n
            tris += [(a, b, c), (a, c, d)]
    return verts, tris


def unit_quaternion(rng):
    """A uniformly distributed unit quaternion (w, x, y, z) (Shoemake's method)."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    t2, t3 = 2.0 * math.pi * u2, 2.0 * math.pi * u3
    return (b * math.cos(t3), a * math.sin(t2), a * math.cos(t2), b * math.sin(t3))


def uv_sphere(slices, stacks, radius=1.0):
    """UV sphere: two poles and stacks − 1 rings of `slices` vertices; 2·slices·(stacks − 1)
    triangles."""
    verts = [(0.0, 0.0, radius)]
    for k in range(1, stacks):
        th = math.pi * k / stacks
        for s in range(slices):
            ph = 2.0 * math.pi * s / slices
            verts.append(
                (radius * math.sin(th) * math.cos(ph), radius * math.sin(th) * math.sin(ph), radius * math.cos(th))
            )
    verts.append((0.0, 0.0, -radius))
    south = len(verts) - 1
    ring = lambda k, s: 1 + (k - 1) * slices + s % slices  # noqa: E731
    tris = []
    for s in range(slices):
        tris.append((0, ring(1, s), ring(1, s + 1)))
    for k in range(1, stacks - 1):
        for s in range(slices):
            a, b = ring(k, s), ring(k, s + 1)
            c, d = ring(k + 1, s + 1), ring(k + 1, s)
            tris += [(a, d, c), (a, c, b)]
    for s in range(slices):
        tris.append((south, ring(stacks - 1, s + 1), ring(stacks - 1, s)))
    return verts, tris


SPHERE_SIZES = {20000: (100, 101), 2000: (40, 26)}


def make_scenes(args, out, mc_bin, table=None):
    """Writes every scene's meshes and poses; returns the scene records to run. `table`:
    SCENES (default) or DISTANCE_SCENES (`--distance`; a fifth field says what runs)."""
    meshes = out / "meshes"
    meshes.mkdir(parents=True, exist_ok=True)
    made = {}

    def mesh_once(key, build):
        if key not in made:
            path = meshes / f"{key}.obj"
            verts, tris = build()
            write_obj(path, verts, tris)
            lo, hi = bounds(verts)
            made[key] = (path, len(tris), max(hi[k] - lo[k] for k in range(3)))
        return made[key]

    scenes, skipped = [], []
    bunny = None
    for entry in table or SCENES:
        name, kind, par, n_full = entry[:4]
        what = entry[4] if len(entry) > 4 else {"query"}
        if args.only and not any(o in name for o in args.only):
            continue
        n = min(n_full, args.quick_poses) if args.quick else n_full
        d = out / "scenes" / name
        d.mkdir(parents=True, exist_ok=True)
        poses_path = d / "poses.csv"
        if kind == "bunny":
            src = Path(args.bunny)
            if not src.exists():
                skipped.append((name, f"{src} is absent"))
                loud(f"SKIPPED scene {name}: {src} is absent (the bunny scenes need ../shared/meshes)")
                continue
            if bunny is None:
                verts, tris = load_obj(src)
                lo, hi = bounds(verts)
                center = [0.5 * (lo[k] + hi[k]) for k in range(3)]
                extent = max(hi[k] - lo[k] for k in range(3))
                bunny = (src.resolve(), len(tris), extent, center)
            src, ntri, extent, center = bunny
            cmd = [str(mc_bin), "poses", "--steps", str(n), "--center", *map(repr, center)]
            cmd += ["--translate", repr(par["dist"] * extent), "0", "0", "--out", str(poses_path)]
            subprocess.run(cmd, check=True)
            a = b = src
            tris_a = tris_b = ntri
            size = extent * (1.0 + par["dist"])
            mesh_extent = extent
        elif kind == "tori":
            a, tris_a, size = mesh_once("torus-a", lambda: torus(1.0, 0.3, 200, 50))

            def torus_b():
                v, t = torus(1.0, 0.3, 200, 50)
                return [(x + 1.0, -z, y) for x, y, z in v], t  # 90° about x, then +1 along x

            b, tris_b, _ = mesh_once("torus-b", torus_b)
            poses = []
            for i in range(n):
                ph = 2.0 * math.pi * i / n
                q = quat_mul(axis_quat((0, 0, 1), 0.45 * math.sin(ph)), axis_quat((1, 0, 0), 0.3 * math.sin(2 * ph)))
                poses.append(pose_about(q, (1.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
            write_poses(poses_path, poses)
            size = 3.6
            mesh_extent = 2.6
        elif kind == "grid":
            a, tris_a, _ = mesh_once("wavy-grid", wavy_grid)
            b, tris_b = a, tris_a
            rng = random.Random(GRID_SEED)
            poses = []
            for _ in range(n):
                th = rng.uniform(-0.01, 0.01)
                dx, dy = rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05)
                q = axis_quat((0, 0, 1), th)
                poses.append(pose_about(q, (0.5, 0.5, 0.0), (dx, dy, par["dz"])))
            write_poses(poses_path, poses)
            size = 1.0
            mesh_extent = 1.0
        elif kind == "spheres":
            slices, stacks = SPHERE_SIZES[par["tris"]]
            a, tris_a, _ = mesh_once(f"sphere-{par['tris']}", lambda: uv_sphere(slices, stacks))
            alpha = par["alpha"]

            def inner():
                v, t = uv_sphere(slices, stacks)
                return [tuple((1.0 - alpha) * c for c in p) for p in v], t

            b, tris_b, _ = mesh_once(f"sphere-{par['tris']}-scaled-{alpha}", inner)
            if par.get("turned"):
                rng = random.Random(TURN_SEED)
                write_poses(poses_path, [(*unit_quaternion(rng), 0.0, 0.0, 0.0) for _ in range(n)])
            else:
                write_poses(poses_path, [(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)] * n)
            size = 2.0
            mesh_extent = 2.0
        else:
            raise ValueError(kind)
        scenes.append(
            {
                "name": name,
                "kind": kind,
                "params": par,
                "poses": n,
                "a": str(a),
                "b": str(b),
                "tris_a": tris_a,
                "tris_b": tris_b,
                "size": size,
                "extent": mesh_extent,
                "what": sorted(what),
                "dir": str(d),
                "poses_csv": str(poses_path),
            }
        )
    return scenes, skipped


# ---------------------------------------------------------------------------------------
# Python peers (run in a child process: `peers.py --run-peer KEY ...`).
# ---------------------------------------------------------------------------------------
def peer_version(pkg):
    from importlib.metadata import version

    return version(pkg)


def python_peer(key):
    """(PyPI package, build(vertices, triangles) -> model, collide(model_a, model_b, R, t) ->
    (seconds in the collide call, [(tri_a, tri_b)]), note) of a Python peer."""
    import numpy as np

    if key == "fcl-obbrss":
        import fcl

        def build(v, t):
            m = fcl.BVHModel()
            m.beginModel(len(v), len(t))
            m.addSubModel(v, t.astype(np.int32))
            m.endModel()
            return fcl.CollisionObject(m, fcl.Transform())

        # enable_contact=False: one contact per intersecting triangle pair, b1/b2 = triangle
        # indices of the input; the traversal stops only at num_max_contacts.
        req = fcl.CollisionRequest(num_max_contacts=1 << 40, enable_contact=False)

        def collide(oa, ob, r, t):
            ob.setTransform(fcl.Transform(r, t))
            res = fcl.CollisionResult()
            s = time.perf_counter()
            fcl.collide(oa, ob, req, res)
            dt = time.perf_counter() - s
            return dt, [(c.b1, c.b2) for c in res.contacts]

        return "python-fcl", build, collide, ""
    if key in ("coal-obbrss", "coal-obb"):
        import coal

        cls = coal.BVHModelOBBRSS if key == "coal-obbrss" else coal.BVHModelOBB

        def build(v, t):
            m = cls()
            m.beginModel(len(t), len(v))
            m.addVertices(v)
            m.addTriangles(t)
            m.endModel()
            return m

        ident = coal.Transform3s()
        # NO_REQUEST: no penetration depth (EPA); contacts are still listed per triangle pair.
        req = coal.CollisionRequest(coal.CollisionRequestFlag.NO_REQUEST, 1 << 40)

        def collide(ga, gb, r, t):
            tf = coal.Transform3s(r, t)
            res = coal.CollisionResult()
            s = time.perf_counter()
            coal.collide(ga, ident, gb, tf, req, res)
            dt = time.perf_counter() - s
            return dt, [(c.b1, c.b2) for c in res.getContacts()]

        note = f"coal reports triangle pairs whose GJK distance is 0 within gjk_tolerance {req.gjk_tolerance:g} (absolute)"
        return "coal", build, collide, note
    if key == "meshlib":
        import meshlib.mrmeshnumpy as mrn
        import meshlib.mrmeshpy as mr

        def build(v, t):
            m = mrn.meshFromFacesVerts(t.astype(np.int32), v)
            # MeshLib stores f32 points; check that face i is still the input's triangle i.
            faces = mrn.getNumpyFaces(m.topology)
            pts = mrn.getNumpyVerts(m)
            same = len(faces) == len(t) and bool(np.all(pts[faces] == v.astype(np.float32)[t]))
            if not same:
                loud("MeshLib changed the triangle order or count: its face ids may not be the file's")
            m.getAABBTree()  # built here, not in the first timed call
            return m, mr.MeshPart(m)

        def collide(ma, mb, r, t):
            rows = [mr.Vector3f(float(r[i][0]), float(r[i][1]), float(r[i][2])) for i in range(3)]
            xf = mr.AffineXf3f(mr.Matrix3f(*rows), mr.Vector3f(float(t[0]), float(t[1]), float(t[2])))
            s = time.perf_counter()
            ff = mr.findCollidingTriangles(ma[1], mb[1], xf, False)
            dt = time.perf_counter() - s
            return dt, [(f.aFace.get(), f.bFace.get()) for f in ff]

        return "meshlib", build, collide, "MeshLib works in f32 (points, boxes and the pose)"
    raise ValueError(key)


def fcl_contact_cost(n=5000):
    """Seconds python-fcl spends per reported contact beyond FCL's own work: its collide()
    turns every C++ contact into a Python object (`c_to_python_contact`: a `Contact`, two
    geometry look-ups, two numpy vectors). Measured in the binding itself: A is n copies of
    one triangle, B a small triangle through A's triangle (n contacts) or through the empty
    half of its bounding box (no contact, the same traversal and triangle tests); the cost
    is the difference per contact (least of 7 runs each). The runner measures it before and
    after a scene's queries and subtracts the mean."""
    import fcl
    import numpy as np

    def obj(v, t):
        m = fcl.BVHModel()
        m.beginModel(len(v), len(t))
        m.addSubModel(v, t.astype(np.int32))
        m.endModel()
        return fcl.CollisionObject(m, fcl.Transform())

    va = np.tile(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), (n, 1))
    oa = obj(va, np.arange(3 * n).reshape(n, 3))
    req = fcl.CollisionRequest(num_max_contacts=1 << 40, enable_contact=False)

    def least(x, y, want):
        v = np.array([[x - 0.02, y + 0.02, -0.1], [x + 0.02, y - 0.02, -0.1], [x, y, 0.1]])
        ob = obj(v, np.array([[0, 1, 2]]))
        best = math.inf
        for _ in range(7):
            res = fcl.CollisionResult()
            s = time.perf_counter()
            fcl.collide(oa, ob, req, res)
            best = min(best, time.perf_counter() - s)
            assert len(res.contacts) == want, (len(res.contacts), want)
        return best

    # (0.2, 0.2) is inside the triangle; (-0.35, 0.5) is outside it but inside its OBB (FCL
    # fits a triangle's box along its longest edge, so half of the box is empty).
    hit, miss = least(0.2, 0.2, n), least(-0.35, 0.5, 0)
    return max(0.0, (hit - miss) / n)


def run_python_peer(key, a_path, b_path, poses_path, out_pairs, out_stats):
    import numpy as np

    va, ta = load_obj(a_path)
    vb, tb = (va, ta) if b_path == a_path else load_obj(b_path)
    va, vb = np.array(va, dtype=np.float64), np.array(vb, dtype=np.float64)
    ta, tb = np.array(ta, dtype=np.int64), np.array(tb, dtype=np.int64)
    poses = read_poses(poses_path)
    rts = [(np.array(rotation(p[:4])), np.array(p[4:])) for p in poses]
    pkg, build, collide, note = python_peer(key)
    # Warm-up on two one-triangle meshes, untimed: one-time library start-up (MeshLib starts
    # its TBB thread pool at the first parallel call) is not a query's cost; the real
    # meshes' caches stay cold.
    tiny = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[0, 1, 2]], dtype=np.int64)
    ta1, tb1 = build(*tiny), build(*tiny)
    collide(ta1, tb1, np.eye(3), np.zeros(3))
    # The binding's floor: the least time of a call on the two one-triangle meshes far apart.
    far = np.array([10.0, 0.0, 0.0])
    call_floor_ms = min(collide(ta1, tb1, np.eye(3), far)[0] for _ in range(50)) * 1e3
    t0 = time.perf_counter()
    ga = build(va, ta)
    gb = build(vb, tb)  # its own model even when B is A's file, as every library here does
    build_ms = (time.perf_counter() - t0) * 1e3

    # python-fcl: its per-contact conversion cost, measured before and after the queries.
    conv_before = fcl_contact_cost() if key == "fcl-obbrss" else None
    total, raw_contacts = 0.0, 0
    rows = []
    for i, (r, t) in enumerate(rts):
        dt, pairs = collide(ga, gb, r, t)
        total += dt
        raw_contacts += len(pairs)
        for a, b in sorted(set(pairs)):
            rows.append(f"{i},{a},{b}")
    tmp = Path(str(out_pairs) + ".tmp")
    tmp.write_text("pose,tri_a,tri_b\n" + "".join(r + "\n" for r in rows))
    tmp.replace(out_pairs)
    query_ms = total * 1e3
    stats = {"peer": key, "package": pkg, "version": peer_version(pkg), "poses": len(rts), "pairs": len(rows)}
    stats.update(build_ms=build_ms, raw_contacts=raw_contacts, collide_call_ms=query_ms, call_floor_ms=call_floor_ms)
    if key == "fcl-obbrss" and raw_contacts:
        per = 0.5 * (conv_before + fcl_contact_cost())
        conv = per * raw_contacts * 1e3
        query_ms = max(0.0, query_ms - conv)
        stats.update(contact_conversion_us=per * 1e6, contact_conversion_ms=conv)
        note = (
            "python-fcl's collide() also turns each contact into a Python object; that cost, "
            "measured per contact in the same process (results.json: contact_conversion_us), is subtracted"
        )
    stats.update(query_ms=query_ms, mean_ms_per_query=query_ms / max(1, len(rts)), note=note)
    Path(out_stats).write_text(json.dumps(stats, indent=1) + "\n")
    print(f"mean_ms_per_query {stats['mean_ms_per_query']}")


def python_distance_peer(key):
    """(PyPI package, build(vertices, triangles) -> model, distance(model_a, model_b, R, t)
    -> (seconds in the distance call, distance, tri_a, tri_b), note) of a Python peer of
    `meshcollide distance`."""
    import numpy as np

    if key == "fcl-obbrss":
        import fcl

        def build(v, t):
            m = fcl.BVHModel()
            m.beginModel(len(v), len(t))
            m.addSubModel(v, t.astype(np.int32))
            m.endModel()
            return fcl.CollisionObject(m, fcl.Transform())

        req = fcl.DistanceRequest(enable_nearest_points=True)

        def distance(oa, ob, r, t):
            ob.setTransform(fcl.Transform(r, t))
            res = fcl.DistanceResult()
            s = time.perf_counter()
            fcl.distance(oa, ob, req, res)
            dt = time.perf_counter() - s
            return dt, res.min_distance, res.b1, res.b2

        return "python-fcl", build, distance, "fcl.distance, BVHModel OBBRSS, enable_nearest_points=True"
    if key == "coal-obbrss":
        import coal

        def build(v, t):
            m = coal.BVHModelOBBRSS()
            m.beginModel(len(t), len(v))
            m.addVertices(v)
            m.addTriangles(t)
            m.endModel()
            return m

        ident = coal.Transform3s()
        req = coal.DistanceRequest()
        req.enable_nearest_points = True

        def distance(ga, gb, r, t):
            tf = coal.Transform3s(r, t)
            res = coal.DistanceResult()
            s = time.perf_counter()
            coal.distance(ga, ident, gb, tf, req, res)
            dt = time.perf_counter() - s
            return dt, res.min_distance, res.b1, res.b2

        note = (
            f"coal.distance, BVHModelOBBRSS (rel_err {req.rel_err:g}, abs_err {req.abs_err:g}, "
            f"gjk_tolerance {req.gjk_tolerance:g})"
        )
        return "coal", build, distance, note
    raise ValueError(key)


def run_python_distance_peer(key, a_path, b_path, poses_path, out_csv, out_stats):
    import numpy as np

    va, ta = load_obj(a_path)
    vb, tb = (va, ta) if b_path == a_path else load_obj(b_path)
    va, vb = np.array(va, dtype=np.float64), np.array(vb, dtype=np.float64)
    ta, tb = np.array(ta, dtype=np.int64), np.array(tb, dtype=np.int64)
    poses = read_poses(poses_path)
    rts = [(np.array(rotation(p[:4])), np.array(p[4:])) for p in poses]
    pkg, build, distance, note = python_distance_peer(key)
    tiny = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[0, 1, 2]], dtype=np.int64)
    ta1, tb1 = build(*tiny), build(*tiny)
    far = np.array([10.0, 0.0, 0.0])
    distance(ta1, tb1, np.eye(3), far)
    call_floor_ms = min(distance(ta1, tb1, np.eye(3), far)[0] for _ in range(50)) * 1e3
    t0 = time.perf_counter()
    ga = build(va, ta)
    gb = build(vb, tb)
    build_ms = (time.perf_counter() - t0) * 1e3
    total = 0.0
    rows = []
    for i, (r, t) in enumerate(rts):
        dt, d, b1, b2 = distance(ga, gb, r, t)
        total += dt
        rows.append(f"{i},{float(d)!r},{b1},{b2}")
    tmp = Path(str(out_csv) + ".tmp")
    tmp.write_text("pose,distance,tri_a,tri_b\n" + "".join(r + "\n" for r in rows))
    tmp.replace(out_csv)
    query_ms = total * 1e3
    stats = {"peer": key, "package": pkg, "version": peer_version(pkg), "poses": len(rts)}
    stats.update(build_ms=build_ms, call_floor_ms=call_floor_ms, query_ms=query_ms)
    stats.update(mean_ms_per_query=query_ms / max(1, len(rts)), note=note)
    Path(out_stats).write_text(json.dumps(stats, indent=1) + "\n")
    print(f"mean_ms_per_query {stats['mean_ms_per_query']}")


# ---------------------------------------------------------------------------------------
# Setup: venv, packages, cargo.
# ---------------------------------------------------------------------------------------
def ensure_venv(venv):
    py = venv / "bin" / "python"
    if not py.exists():
        log(f"creating the venv {venv}")
        r = subprocess.run([sys.executable, "-m", "venv", str(venv)])
        if r.returncode != 0 or not py.exists():
            shutil.rmtree(venv, ignore_errors=True)
            sys.exit(
                f"could not create a venv with {sys.executable} -m venv {venv}; "
                "on Debian/Ubuntu: apt-get install -y python3-venv"
            )
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    missing = []
    for line in (HERE / "requirements.txt").read_text().splitlines():
        pkg = line.split("#")[0].strip()
        if not pkg:
            continue
        mod = IMPORTS[pkg]
        if subprocess.run([str(py), "-c", f"import {mod}"], capture_output=True).returncode == 0:
            continue
        log(f"pip install {pkg} (into {venv})")
        subprocess.run([str(py), "-m", "pip", "install", "-q", pkg])
        if subprocess.run([str(py), "-c", f"import {mod}"], capture_output=True).returncode != 0:
            missing.append(pkg)
            loud(f"could not install or import the PyPI package {pkg!r}: its peers are SKIPPED")
    if "numpy" in missing:
        sys.exit("numpy is required")
    return py, missing


def cargo_build(args):
    if args.no_build:
        return
    cmd = ["cargo", "build", "--release", "--bin", "meshcollide", "--example", "parry_peer"]
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, cwd=REPO)
    if r.returncode != 0:
        sys.exit("cargo build failed")


def target_dir():
    return Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


# ---------------------------------------------------------------------------------------
# Running.
# ---------------------------------------------------------------------------------------
def pinned(cmd):
    return (["taskset", "-c", "0"] if shutil.which("taskset") else []) + cmd


def run_one(cmd, timeout, log_path):
    env = dict(os.environ, **THREAD_ENV)
    t = time.time()
    try:
        r = subprocess.run(pinned(cmd), env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        Path(log_path).write_text(f"$ {' '.join(cmd)}\ntimeout after {timeout} s\n")
        return "timeout", time.time() - t
    Path(log_path).write_text(f"$ {' '.join(cmd)}\nexit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
    return ("ok" if r.returncode == 0 else f"failed (exit {r.returncode}, see {log_path})"), time.time() - t


def ours_key(bv):
    """The result key of meshcollide with `--bv bv` (None: its defaults)."""
    return OURS if bv is None else f"{OURS}-{bv}"


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def repeated(runs, one):
    """`one()` `runs` times (each a fresh process); the first run's record, its `ms` the
    median of the runs' (`ms_runs` all of them), or the first failure. A single query is
    one call of tens of microseconds: one preemption or stray page fault in it moved a row
    by 5× in one run, so single-query scenes take the median of several."""
    rs = []
    for _ in range(runs):
        r = one()
        if r["status"] != "ok":
            return r
        rs.append(r)
    r = rs[0]
    if runs > 1:
        r["ms_runs"] = [x["ms"] for x in rs]
        r["ms"] = median(r["ms_runs"])
        r["wall_s"] = sum(x["wall_s"] for x in rs)
    return r


def run_scene(scene, peers, mc_bin, parry_bin, venv_py, timeout, ours_bv=(), single_runs=1):
    d = Path(scene["dir"])
    res = {}
    a, b, poses = scene["a"], scene["b"], scene["poses_csv"]
    runs = single_runs if scene["poses"] == 1 else 1
    # meshcollide, with its defaults and then with each --ours-bv (pairs must be the same)
    for bv in [None, *ours_bv]:
        key = ours_key(bv)
        out = d / key
        out.mkdir(exist_ok=True)
        cmd = [str(mc_bin), "query", a, b, "--poses", poses, "--backend", "cpu", "--threads", "1"]
        cmd += ["--out", str(out / "pairs.csv"), "--stats", str(out / "stats.json")]
        cmd += ["--bv", bv] if bv else []

        def one():
            status, wall = run_one(cmd, timeout, out / "log.txt")
            r = {"status": status, "wall_s": wall}
            if status == "ok":
                st = json.loads((out / "stats.json").read_text())
                r.update(ms=st["query_ms"] / max(1, st["poses"]), pairs=st["pairs"], build_ms=st["build_ms"])
                r["tris"] = (st.get("triangles_a"), st.get("triangles_b"))
                if bv and res[OURS]["status"] == "ok":
                    same = (out / "pairs.csv").read_bytes() == (d / OURS / "pairs.csv").read_bytes()
                    r["verdict"] = "exact" if same else "differs"
            return r

        r = res[key] = repeated(runs, one)
        log(f"  {key:12s} {fmt_status(r)}")
    for key in peers:
        out = d / key
        out.mkdir(exist_ok=True)
        if key == "parry3d":
            cmd = [str(parry_bin), a, b, "--poses", poses, "--out", str(out / "pairs.csv")]
            cmd += ["--stats", str(out / "stats.json")]
        else:
            cmd = [str(venv_py), str(Path(__file__).resolve()), "--run-peer", key, a, b, poses]
            cmd += [str(out / "pairs.csv"), str(out / "stats.json")]

        def one():
            status, wall = run_one(cmd, timeout, out / "log.txt")
            r = {"status": status, "wall_s": wall}
            if status == "ok":
                st = json.loads((out / "stats.json").read_text())
                r.update(ms=st["mean_ms_per_query"], pairs=st["pairs"], build_ms=st["build_ms"])
                r["note"] = st.get("note", "")
                for f in ("call_floor_ms", "collide_call_ms", "contact_conversion_us"):
                    if f in st:
                        r[f] = st[f]
            return r

        r = res[key] = repeated(runs, one)
        log(f"  {key:12s} {fmt_status(r)}")
    return res


def fmt_status(r):
    if r["status"] != "ok":
        return r["status"]
    return f"{r['ms']:.4g} ms/query, {r['pairs']} pairs (wall {r['wall_s']:.1f} s)"


# ---------------------------------------------------------------------------------------
# Comparing pairs.
# ---------------------------------------------------------------------------------------
def read_pair_keys(path):
    import numpy as np

    with open(path) as f:
        empty = f.readline() and not f.readline()
    if empty:
        return np.zeros(0, dtype=np.int64)
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique((a[:, 0] << 42) | (a[:, 1] << 21) | a[:, 2])


def unkey(k):
    k = int(k)
    return k >> 42, (k >> 21) & ((1 << 21) - 1), k & ((1 << 21) - 1)


def sub(u, v):
    return (u[0] - v[0], u[1] - v[1], u[2] - v[2])


def dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def norm(u):
    return math.sqrt(dot(u, u))


def closest_on_triangle(p, a, b, c):
    """Closest point of triangle abc to p (Ericson, Real-Time Collision Detection, 5.1.5)."""
    ab, ac, ap = sub(b, a), sub(c, a), sub(p, a)
    d1, d2 = dot(ab, ap), dot(ac, ap)
    if d1 <= 0 and d2 <= 0:
        return a
    bp = sub(p, b)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        v = d1 / (d1 - d3)
        return (a[0] + v * ab[0], a[1] + v * ab[1], a[2] + v * ab[2])
    cp = sub(p, c)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        w = d2 / (d2 - d6)
        return (a[0] + w * ac[0], a[1] + w * ac[1], a[2] + w * ac[2])
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return (b[0] + w * (c[0] - b[0]), b[1] + w * (c[1] - b[1]), b[2] + w * (c[2] - b[2]))
    den = va + vb + vc
    if den == 0:  # degenerate triangle: nearest of its edges
        cands = [seg_seg(p, p, a, b), seg_seg(p, p, b, c), seg_seg(p, p, a, c)]
        return min(cands, key=lambda x: x[0])[2]
    v, w = vb / den, vc / den
    return tuple(a[k] + ab[k] * v + ac[k] * w for k in range(3))


def seg_seg(p1, q1, p2, q2):
    """(distance, closest point on segment 1, on segment 2) (Ericson, 5.1.9)."""
    d1, d2, r = sub(q1, p1), sub(q2, p2), sub(p1, p2)
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    if a <= 1e-300 and e <= 1e-300:
        return norm(r), p1, p2
    if a <= 1e-300:
        s, t = 0.0, min(1.0, max(0.0, f / e))
    else:
        c = dot(d1, r)
        if e <= 1e-300:
            t, s = 0.0, min(1.0, max(0.0, -c / a))
        else:
            b = dot(d1, d2)
            den = a * e - b * b
            s = min(1.0, max(0.0, (b * f - c * e) / den)) if den != 0 else 0.0
            t = (b * s + f) / e
            if t < 0:
                t, s = 0.0, min(1.0, max(0.0, -c / a))
            elif t > 1:
                t, s = 1.0, min(1.0, max(0.0, (b - c) / a))
    c1 = tuple(p1[k] + d1[k] * s for k in range(3))
    c2 = tuple(p2[k] + d2[k] * t for k in range(3))
    return norm(sub(c1, c2)), c1, c2


def tri_distance(ta, tb):
    """Distance between two triangles that do not intersect (our exact answer): the least of
    the vertex-triangle and edge-edge distances."""
    best = math.inf
    for p in ta:
        best = min(best, norm(sub(p, closest_on_triangle(p, *tb))))
    for p in tb:
        best = min(best, norm(sub(p, closest_on_triangle(p, *ta))))
    for i in range(3):
        for j in range(3):
            best = min(best, seg_seg(ta[i], ta[(i + 1) % 3], tb[j], tb[(j + 1) % 3])[0])
    return best


def grazing(ta, tb):
    """How deep a contact is, for a pair that intersects: the least of (1) how far each
    triangle reaches through the other's plane on its shorter side (0 when it only touches
    the plane), and (2) the length of the intersection segment (0 for a point contact).
    A contact this shallow is one a tolerance decides; coplanar pairs score 0."""

    def reach(t, u):
        n = cross(sub(u[1], u[0]), sub(u[2], u[0]))
        nn = norm(n)
        if nn == 0:
            return 0.0, None
        ds = [dot(n, sub(p, u[0])) / nn for p in t]
        return min(max(ds), -min(ds)), ds

    ra, da = reach(ta, tb)  # ta through tb's plane
    rb, db = reach(tb, ta)
    depth = max(0.0, min(ra, rb))
    if da is None or db is None or depth == 0.0:
        return depth
    line = cross(cross(sub(ta[1], ta[0]), sub(ta[2], ta[0])), cross(sub(tb[1], tb[0]), sub(tb[2], tb[0])))
    ln = norm(line)
    if ln == 0:
        return 0.0
    line = tuple(c / ln for c in line)

    def interval(t, ds):
        pts = []
        for i in range(3):
            j = (i + 1) % 3
            if (ds[i] <= 0 <= ds[j]) or (ds[j] <= 0 <= ds[i]):
                if ds[i] == ds[j]:
                    pts += [dot(line, t[i]), dot(line, t[j])]
                else:
                    s = ds[i] / (ds[i] - ds[j])
                    pts.append(dot(line, tuple(t[i][k] + s * (t[j][k] - t[i][k]) for k in range(3))))
        return (min(pts), max(pts)) if pts else (0.0, 0.0)

    ia, ib = interval(ta, da), interval(tb, db)
    length = max(0.0, min(ia[1], ib[1]) - max(ia[0], ib[0]))
    return min(depth, length)


def compare(scene, peers, res):
    import numpy as np

    d = Path(scene["dir"])
    if res[OURS]["status"] != "ok":
        return
    ours = read_pair_keys(d / OURS / "pairs.csv")
    geom = {}
    poses = None
    tol = TOL_REL * scene["size"]
    for key in peers:
        r = res[key]
        if r["status"] != "ok":
            continue
        theirs = read_pair_keys(d / key / "pairs.csv")
        missed = np.setdiff1d(ours, theirs, assume_unique=True)
        extra = np.setdiff1d(theirs, ours, assume_unique=True)
        r["missed"], r["extra"] = int(len(missed)), int(len(extra))
        r["tol"] = tol
        if len(missed) == 0 and len(extra) == 0:
            r["verdict"] = "exact"
            continue
        if not geom:
            va, ta = load_obj(scene["a"])
            vb, tb = (va, ta) if scene["b"] == scene["a"] else load_obj(scene["b"])
            geom.update(va=va, ta=ta, vb=vb, tb=tb)
            poses = [(rotation(p[:4]), p[4:]) for p in read_poses(scene["poses_csv"])]

        def tris(k):
            pose, i, j = unkey(k)
            rot, t = poses[pose]
            a = tuple(geom["va"][v] for v in geom["ta"][i])
            b = tuple(apply(rot, t, geom["vb"][v]) for v in geom["tb"][j])
            return a, b

        m_meas = [grazing(*tris(k)) for k in missed[:MAX_CLASSIFY]]
        e_meas = [tri_distance(*tris(k)) for k in extra[:MAX_CLASSIFY]]
        r["missed_measured"], r["extra_measured"] = len(m_meas), len(e_meas)
        r["missed_within_tol"] = sum(1 for m in m_meas if m <= tol)
        r["extra_within_tol"] = sum(1 for m in e_meas if m <= tol)
        r["missed_max_depth"] = max(m_meas) if m_meas else None
        r["extra_max_distance"] = max(e_meas) if e_meas else None
        r["examples"] = [f"missed pose {unkey(k)[0]} pair {unkey(k)[1:]}: depth {m:.3g}" for k, m in zip(missed[:3], m_meas)]
        r["examples"] += [f"extra pose {unkey(k)[0]} pair {unkey(k)[1:]}: distance {m:.3g}" for k, m in zip(extra[:3], e_meas)]
        explained = (
            r["missed_within_tol"] == len(m_meas)
            and r["extra_within_tol"] == len(e_meas)
        )
        r["verdict"] = "tolerance" if explained else "wrong"


# ---------------------------------------------------------------------------------------
# Reports.
# ---------------------------------------------------------------------------------------
def fmt_ms(x):
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def cell(r):
    if r is None:
        return "—"
    if r["status"] == "timeout":
        return "timeout"
    if r["status"] != "ok":
        return "failed"
    mark = {"exact": "", "tolerance": " ≈", "wrong": " ✗", "differs": " ✗"}.get(r.get("verdict"), "")
    return fmt_ms(r["ms"]) + mark


def fastest_correct(res, peers):
    best = None
    for key in peers:
        r = res.get(key)
        if r and r["status"] == "ok" and r.get("verdict") in ("exact", "tolerance"):
            if best is None or r["ms"] < res[best]["ms"]:
                best = key
    return best


def write_table(out, scenes, results, peers, skipped, missing, versions, args, started, ours_bv=()):
    label = {k: lab for k, lab, _ in PEERS}
    lines = ["# meshcollide against its peers", ""]
    lines.append(f"Command: `{' '.join(sys.argv)}`" + (" (quick: smoke test, few poses)" if args.quick else ""))
    lines.append(f"Started {started} UTC; machine: {cpu_name()}, {os.cpu_count()} cores; Python {platform.python_version()}.")
    lines.append(
        "Every library single-threaded, pinned to one core; mean milliseconds per query "
        "(pose), collide calls only (no hierarchy build, no file I/O). meshcollide: "
        "`query --backend cpu --threads 1`, default options, `query_ms / poses` of stats.json. "
        f"One-pose scenes: the median of {args.single_runs} runs of each library, each a fresh "
        "process (results.json: ms_runs)."
    )
    lines.append("")
    lines.append("Versions: " + ", ".join(f"{label.get(k, k)} {v}" for k, v in versions.items()) + ".")
    if missing:
        lines.append(f"NOT INSTALLED (skipped): {', '.join(missing)}.")
    lines.append("")
    lines.append(
        "Cells: ms/query; ≈ the pairs differ from meshcollide's (exact) only by touching/tolerance "
        f"(within {TOL_REL:g} × scene size, see below), ✗ the pairs differ otherwise (not correct), "
        "no mark: the same pairs. Ratio = meshcollide / fastest correct peer (below 1: meshcollide is faster)."
    )
    lines.append("")
    extra = [ours_key(bv) for bv in ours_bv]
    head = ["scene", "poses", "pairs", "meshcollide"] + [f"meshcollide --bv {bv}" for bv in ours_bv]
    head += [label[k] for k in peers] + ["fastest correct peer", "ours / fastest"]
    if extra:
        head.append("best --bv / fastest")
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * 3 + "---:|" * (1 + len(extra) + len(peers)) + "---|---:|" + "---:|" * bool(extra))
    for s in scenes:
        res = results[s["name"]]
        o = res[OURS]
        best = fastest_correct(res, peers)
        ok = best and res[best]["ms"] > 0
        ratio = f"{o['ms'] / res[best]['ms']:.2f}" if ok and o["status"] == "ok" else "—"
        row = [s["name"], str(s["poses"]), str(o.get("pairs", "—")), cell(o)] + [cell(res.get(k)) for k in extra]
        row += [cell(res.get(k)) for k in peers] + [label[best] if best else "none", ratio]
        if extra:
            mine = [res[k]["ms"] for k in [OURS, *extra] if res.get(k, {}).get("status") == "ok" and res[k].get("verdict", "exact") == "exact"]
            row.append(f"{min(mine) / res[best]['ms']:.2f}" if ok and mine else "—")
        lines.append("| " + " | ".join(row) + " |")
    for name, why in skipped:
        lines.append(f"| {name} | skipped: {why} |" + " |" * (4 + len(peers)))
    lines.append("")
    lines.append("## Differences from meshcollide's pairs")
    lines.append("")
    lines.append(
        "missed: pairs meshcollide reports (they intersect) that the peer does not; extra: pairs the "
        "peer reports that do not intersect. Each is measured in f64 on the posed triangles: a missed "
        "contact's depth (how far the shallower triangle reaches through the other's plane, or the "
        "length of the intersection segment, whichever is less: 0 for touching and coplanar contacts), "
        f"an extra pair's distance. Within tolerance: at most {TOL_REL:g} × the scene's size."
    )
    lines.append("")
    any_diff = False
    for s in scenes:
        res = results[s["name"]]
        for k in peers:
            r = res.get(k)
            if not r or r["status"] != "ok" or r.get("verdict") in (None, "exact"):
                continue
            any_diff = True
            txt = f"- **{s['name']}, {label[k]}**: missed {r['missed']}"
            if r["missed"]:
                txt += f" ({r['missed_within_tol']} of {r['missed_measured']} measured within tolerance, max depth {r['missed_max_depth']:.3g})"
            txt += f", extra {r['extra']}"
            if r["extra"]:
                txt += f" ({r['extra_within_tol']} of {r['extra_measured']} measured within tolerance, max distance {r['extra_max_distance']:.3g})"
            txt += f": **{'touching/tolerance' if r['verdict'] == 'tolerance' else 'not correct'}**."
            if r.get("examples"):
                txt += " E.g. " + "; ".join(r["examples"][:4]) + "."
            lines.append(txt)
    if not any_diff:
        lines.append("None: every peer that ran reported exactly meshcollide's pairs.")
    notes = sorted({(label[k], r.get("note")) for s in scenes for k, r in results[s["name"]].items() if k in label and r.get("note")})
    floors = {}
    for s in scenes:
        for k, r in results[s["name"]].items():
            if "call_floor_ms" in r:
                floors[k] = min(floors.get(k, math.inf), r["call_floor_ms"])
    if floors:
        notes.append(
            (
                "Python peers",
                "the least time of one call through the binding (two one-triangle meshes far apart): "
                + ", ".join(f"{label[k]} {v * 1e3:.1f} µs" for k, v in floors.items())
                + "; rows near these times measure mostly the binding",
            )
        )
    raw = [
        f"{s['name']} {fmt_ms(r['collide_call_ms'] / s['poses'])} ({r['contact_conversion_us']:.2f} µs per contact)"
        for s in scenes
        for k, r in results[s["name"]].items()
        if k == "fcl-obbrss" and r.get("contact_conversion_us") is not None
    ]
    if raw:
        notes.append(("python-fcl", "ms/query of the whole collide() call, conversion included: " + "; ".join(raw)))
    fails = [(s["name"], k, r["status"]) for s in scenes for k, r in results[s["name"]].items() if r["status"] != "ok"]
    if notes or fails:
        lines += ["", "## Notes", ""]
        lines += [f"- {lab}: {n}." for lab, n in notes]
        lines += [f"- {name}, {k}: {st}." for name, k, st in fails]
    lines += ["", "Per scene: meshes and poses in `scenes/<scene>/`, each library's pairs.csv, stats and log in `scenes/<scene>/<library>/`; everything in `results.json`.", ""]
    (out / "table.md").write_text("\n".join(lines))


def write_svg(out, scenes, results, peers, ours_bv=()):
    libs = [OURS] + [ours_key(bv) for bv in ours_bv] + list(peers)
    label = {OURS: "meshcollide", **{ours_key(bv): f"meshcollide --bv {bv}" for bv in ours_bv}}
    label.update({k: lab for k, lab, _ in PEERS})
    colors = ["#d62728", "#e377c2", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#ff7f0e", "#17becf", "#bcbd22"]
    vals = [results[s["name"]][k]["ms"] for s in scenes for k in libs if results[s["name"]].get(k, {}).get("status") == "ok" and results[s["name"]][k]["ms"] > 0]
    if not vals:
        return
    lo = math.floor(math.log10(min(vals)))
    hi = math.ceil(math.log10(max(vals)))
    if hi == lo:
        hi += 1
    bar_w, gap = 9, 14
    group_w = bar_w * len(libs) + gap
    left, top, plot_h, bottom = 70, 72, 360, 150
    width = max(left + group_w * len(scenes) + 130, 1000)
    height = top + plot_h + bottom
    y = lambda v: top + plot_h * (hi - math.log10(v)) / (hi - lo)  # noqa: E731
    e = []
    e.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">')
    e.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    e.append(f'<text x="{left}" y="20" font-size="14">meshcollide and peers: mean ms per query, one thread (log scale; lower is faster)</text>')
    for p in range(lo, hi + 1):
        yy = y(10.0**p)
        e.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - 120}" y2="{yy:.1f}" stroke="#ddd"/>')
        e.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{10.0 ** p:g}</text>')
    e.append(f'<text x="18" y="{top + plot_h / 2}" transform="rotate(-90 18 {top + plot_h / 2})" text-anchor="middle">ms / query</text>')
    for i, s in enumerate(scenes):
        x0 = left + i * group_w + gap / 2
        for j, k in enumerate(libs):
            r = results[s["name"]].get(k)
            x = x0 + j * bar_w
            if not r or r["status"] != "ok" or r["ms"] <= 0:
                e.append(f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h - 3}" text-anchor="middle" font-size="9" fill="{colors[j % len(colors)]}">×</text>')
                continue
            yy = y(max(r["ms"], 10.0**lo))
            title = f"{s['name']}: {label[k]} {r['ms']:.4g} ms" + {"tolerance": " (tolerance differences)", "wrong": " (pairs differ)"}.get(r.get("verdict"), "")
            fill = colors[j % len(colors)]
            style = ' fill-opacity="0.35"' if r.get("verdict") == "wrong" else ""
            e.append(f'<rect x="{x:.1f}" y="{yy:.1f}" width="{bar_w - 1}" height="{top + plot_h - yy:.1f}" fill="{fill}"{style}><title>{title}</title></rect>')
        cx = x0 + bar_w * len(libs) / 2
        ty = top + plot_h + 8
        e.append(f'<text x="{cx:.1f}" y="{ty}" transform="rotate(45 {cx:.1f} {ty})" text-anchor="start">{s["name"]}</text>')
    e.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{width - 120}" y2="{top + plot_h}" stroke="black"/>')
    e.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>')
    lx = left
    for j, k in enumerate(libs):
        e.append(f'<rect x="{lx}" y="32" width="10" height="10" fill="{colors[j % len(colors)]}"/>')
        e.append(f'<text x="{lx + 14}" y="41">{label[k]}</text>')
        lx += 14 + 6.5 * len(label[k]) + 16
    e.append(f'<text x="{left}" y="56" fill="#666">pale bar: the pairs differ from meshcollide\'s beyond tolerance; ×: did not run</text>')
    e.append("</svg>")
    (out / "plot.svg").write_text("\n".join(e) + "\n")


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def parry_version():
    lock = REPO / "Cargo.lock"
    try:
        lines = lock.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() == 'name = "parry3d-f64"':
                return lines[i + 1].split('"')[1]
    except (OSError, IndexError):
        pass
    return "?"


# ---------------------------------------------------------------------------------------
# `--distance`: the distance query side by side, and the tolerance query's cost (issue 40).
# ---------------------------------------------------------------------------------------
def read_distances(path):
    """{pose: (distance, tri_a, tri_b)} of a distance.csv (ours or a peer's)."""
    out = {}
    with open(path) as f:
        f.readline()
        for line in f:
            c = line.rstrip("\n").split(",")
            if len(c) < 2:
                continue
            ta = int(c[2]) if len(c) > 2 and c[2] else None
            tb = int(c[3]) if len(c) > 3 and c[3] else None
            out[int(c[0])] = (float(c[1]), ta, tb)
    return out


def run_distance_scene(scene, peers, mc_bin, parry_bin, venv_py, timeout):
    d = Path(scene["dir"])
    a, b, poses = scene["a"], scene["b"], scene["poses_csv"]
    res = {}

    def ours(key, cmd, stats_path, stat_ms):
        status, wall = run_one(cmd, timeout, d / key / "log.txt")
        r = {"status": status, "wall_s": wall}
        if status == "ok":
            st = json.loads(stats_path.read_text())
            r.update(ms=st[stat_ms] / max(1, st["poses"]), build_ms=st["build_ms"], stats=st)
        res[key] = r
        log(f"  {key:22s} {fmt_dstatus(r)}")

    base = [str(mc_bin)]
    if "distance" in scene["what"]:
        out = d / OURS
        out.mkdir(exist_ok=True)
        cmd = base + ["distance", a, b, "--poses", poses, "--threads", "1", "--force"]
        cmd += ["--out", str(out / "distance.csv"), "--stats", str(out / "stats.json")]
        ours(OURS, cmd, out / "stats.json", "distance_ms")
        for key in peers:
            out = d / key
            out.mkdir(exist_ok=True)
            if key == "parry3d":
                cmd = [str(parry_bin), a, b, "--poses", poses, "--distance"]
                cmd += ["--out", str(out / "distance.csv"), "--stats", str(out / "stats.json")]
            else:
                cmd = [str(venv_py), str(Path(__file__).resolve()), "--run-distance-peer", key, a, b, poses]
                cmd += [str(out / "distance.csv"), str(out / "stats.json")]
            status, wall = run_one(cmd, timeout, out / "log.txt")
            r = {"status": status, "wall_s": wall}
            if status == "ok":
                st = json.loads((out / "stats.json").read_text())
                r.update(ms=st["mean_ms_per_query"], build_ms=st["build_ms"], note=st.get("note", ""))
                if "call_floor_ms" in st:
                    r["call_floor_ms"] = st["call_floor_ms"]
            res[key] = r
            log(f"  {key:22s} {fmt_dstatus(r)}")
    if "tolerance" in scene["what"]:
        eps = TOL_FRACTION * scene["extent"]
        for key, extra in (("query", []), ("query-tolerance", ["--tolerance", repr(eps)])):
            out = d / f"{OURS}-{key}"
            out.mkdir(exist_ok=True)
            cmd = base + ["query", a, b, "--poses", poses, "--backend", "cpu", "--threads", "1", "--force"]
            cmd += ["--out", str(out / "pairs.csv"), "--stats", str(out / "stats.json")] + extra
            ours(f"{OURS}-{key}", cmd, out / "stats.json", "query_ms")
        res["eps"] = eps
    return res


def fmt_dstatus(r):
    if r["status"] != "ok":
        return r["status"]
    return f"{r['ms']:.4g} ms/query (wall {r['wall_s']:.1f} s)"


def compare_distances(scene, peers, res):
    """Per peer: the largest relative difference of its distances from ours (exact, rounded
    once), the poses beyond DIST_REL, and for the worst pose the f64 distance of the peer's
    witness pair and of ours (`tri_distance`), to tell arithmetic from a missed pair."""
    d = Path(scene["dir"])
    if res.get(OURS, {}).get("status") != "ok":
        return
    mine = read_distances(d / OURS / "distance.csv")
    res[OURS]["min_distance"] = min(v[0] for v in mine.values()) if mine else None
    res[OURS]["max_distance"] = max(v[0] for v in mine.values()) if mine else None
    geom = {}
    for key in peers:
        r = res.get(key)
        if not r or r["status"] != "ok":
            continue
        theirs = read_distances(d / key / "distance.csv")
        worst, worst_pose, beyond, same_pair = 0.0, None, 0, 0
        for i, (do, ia, ib) in mine.items():
            dp, pa, pb = theirs.get(i, (math.nan, None, None))
            rel = abs(dp - do) / do if do > 0 else abs(dp - do)
            if math.isnan(rel):
                rel = math.inf
            same_pair += (pa, pb) == (ia, ib)
            if rel > DIST_REL:
                beyond += 1
            if rel > worst or worst_pose is None:
                worst, worst_pose = rel, i
        r.update(max_rel=worst, beyond=beyond, same_pair=same_pair, compared=len(mine))
        if worst_pose is not None and worst > DIST_REL:
            if not geom:
                va, ta = load_obj(scene["a"])
                vb, tb = (va, ta) if scene["b"] == scene["a"] else load_obj(scene["b"])
                geom.update(va=va, ta=ta, vb=vb, tb=tb)
                geom["poses"] = [(rotation(p[:4]), p[4:]) for p in read_poses(scene["poses_csv"])]
            rot, t = geom["poses"][worst_pose]

            def pair_dist(i, j):
                if i is None or j is None or i >= len(geom["ta"]) or j >= len(geom["tb"]):
                    return None
                ta_ = tuple(geom["va"][v] for v in geom["ta"][i])
                tb_ = tuple(apply(rot, t, geom["vb"][v]) for v in geom["tb"][j])
                return tri_distance(ta_, tb_)

            do, ia, ib = mine[worst_pose]
            dp, pa, pb = theirs[worst_pose]
            r["worst"] = {
                "pose": worst_pose,
                "ours": do,
                "ours_pair": [ia, ib],
                "peer": dp,
                "peer_pair": [pa, pb],
                "peer_pair_f64_distance": pair_dist(pa, pb),
                "ours_pair_f64_distance": pair_dist(ia, ib),
            }


def write_distance_table(out, scenes, results, peers, skipped, missing, versions, args, started):
    label = {k: lab for k, lab, _ in PEERS}
    lines = ["# meshcollide's distance against its peers", ""]
    lines.append(f"Command: `{' '.join(sys.argv)}`" + (f" (quick: at most {args.quick_poses} poses per scene)" if args.quick else ""))
    lines.append(f"Started {started} UTC; machine: {cpu_name()}, {os.cpu_count()} cores; Python {platform.python_version()}.")
    lines.append(
        "Every library single-threaded, pinned to one core; mean milliseconds per query (pose), "
        "distance calls only (hierarchies built first, no file I/O). meshcollide: `distance --threads 1` "
        "(kdop18), `distance_ms / poses` of its stats.json."
    )
    lines.append("")
    lines.append("Versions: " + ", ".join(f"{label.get(k, k)} {v}" for k, v in versions.items() if k == OURS or k in peers) + ".")
    if missing:
        lines.append(f"NOT INSTALLED (skipped): {', '.join(missing)}.")
    lines += ["", "## Distance, ms per query", ""]
    lines.append(
        f"Ratio = meshcollide / fastest peer (the goal: at most 0.5). max rel: the largest |d_peer − d_ours| / d_ours "
        f"over the poses (ours is exact, rounded once); n > {DIST_REL:g}: poses beyond {DIST_REL:g}. "
        "Nv, Np: our node pairs and triangle pairs tested per query."
    )
    lines.append("")
    dscenes = [s for s in scenes if "distance" in s["what"]]
    head = ["scene", "poses", "distance (min–max)", "meshcollide"] + [label[k] for k in peers]
    head += ["fastest peer", "ours / fastest", "Nv/query", "Np/query"]
    head += [f"max rel {label[k]} (n > {DIST_REL:g})" for k in peers]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|---|---:|---:|" + "---:|" * (1 + len(peers)) + "---|---:|---:|---:|" + "---:|" * len(peers))
    for s in dscenes:
        res = results[s["name"]]
        o = res[OURS]
        ok = [k for k in peers if res.get(k, {}).get("status") == "ok"]
        best = min(ok, key=lambda k: res[k]["ms"]) if ok else None
        ratio = f"{o['ms'] / res[best]['ms']:.2f}" if best and o["status"] == "ok" and res[best]["ms"] > 0 else "—"
        dist = f"{o['min_distance']:.6g}–{o['max_distance']:.6g}" if o.get("min_distance") is not None else "—"
        st = o.get("stats", {})
        n = max(1, st.get("poses", 1))
        row = [s["name"], str(s["poses"]), dist, dcell(o)] + [dcell(res.get(k)) for k in peers]
        row += [label[best] if best else "none", ratio]
        row += [f"{st['bv_tests'] / n:.0f}" if st else "—", f"{st['tri_tests'] / n:.0f}" if st else "—"]
        for k in peers:
            r = res.get(k)
            row.append(f"{r['max_rel']:.2g} ({r['beyond']})" if r and "max_rel" in r else "—")
        lines.append("| " + " | ".join(row) + " |")
    for name, why in skipped:
        lines.append(f"| {name} | skipped: {why} |")
    lines += ["", "Differences beyond the goal, at each scene's worst pose (pairs as `tri_a, tri_b`; f64: the pair's distance recomputed in f64 in Python):", ""]
    anyd = False
    for s in dscenes:
        for k in peers:
            r = results[s["name"]].get(k, {})
            w = r.get("worst")
            if not w:
                continue
            anyd = True
            f = lambda x: "—" if x is None else f"{x:.17g}"  # noqa: E731
            lines.append(
                f"- {s['name']}, {label[k]}: pose {w['pose']}: ours {w['ours']!r} (pair {tuple(w['ours_pair'])}, f64 {f(w['ours_pair_f64_distance'])}), "
                f"peer {w['peer']!r} (pair {tuple(w['peer_pair'])}, f64 {f(w['peer_pair_f64_distance'])}); "
                f"{r['beyond']} of {r['compared']} poses beyond {DIST_REL:g}, {r['same_pair']} with our witness pair."
            )
    if not anyd:
        lines.append("None.")
    tscenes = [s for s in scenes if "tolerance" in s["what"]]
    if tscenes:
        lines += ["", "## The tolerance query against our intersection query", ""]
        lines.append(
            f"`query --backend cpu --threads 1` without and with `--tolerance EPS`, EPS = {TOL_FRACTION:g} × the mesh's "
            "extent (its bounding box's largest side); `query_ms / poses` of stats.json. The goal: at most 2×."
        )
        lines.append("")
        lines.append("| scene | poses | EPS | pairs (query) | pairs (tolerance) | query ms | tolerance ms | tolerance / query |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for s in tscenes:
            res = results[s["name"]]
            q, t = res.get(f"{OURS}-query"), res.get(f"{OURS}-query-tolerance")
            ratio = f"{t['ms'] / q['ms']:.2f}" if q and t and q["status"] == t["status"] == "ok" and q["ms"] > 0 else "—"
            pq = q.get("stats", {}).get("pairs", "—") if q else "—"
            pt = t.get("stats", {}).get("pairs", "—") if t else "—"
            lines.append(f"| {s['name']} | {s['poses']} | {res['eps']:.6g} | {pq} | {pt} | {dcell(q)} | {dcell(t)} | {ratio} |")
    notes = sorted({(label[k], r.get("note")) for s in scenes for k, r in results[s["name"]].items() if k in label and isinstance(r, dict) and r.get("note")})
    fails = [(s["name"], k, r["status"]) for s in scenes for k, r in results[s["name"]].items() if isinstance(r, dict) and r.get("status") not in (None, "ok")]
    if notes or fails:
        lines += ["", "## Notes", ""]
        lines += [f"- {lab}: {n}." for lab, n in notes]
        lines += [f"- {name}, {k}: {st}." for name, k, st in fails]
    lines += ["", "Per scene: each library's distance.csv (or pairs.csv), stats and log in `scenes/<scene>/<library>/`; everything in `distance.json`.", ""]
    (out / "distance.md").write_text("\n".join(lines))


def dcell(r):
    if r is None:
        return "—"
    if r["status"] == "timeout":
        return "timeout"
    if r["status"] != "ok":
        return "failed"
    return fmt_ms(r["ms"])


def main_distance(args, out, mc_bin, parry_bin, missing, versions, started, t_start):
    peers = [k for k in DISTANCE_PEERS if next(pkg for kk, _, pkg in PEERS if kk == k) not in missing]
    if args.peers:
        peers = [k for k in peers if k in args.peers.split(",")]
    scenes, skipped = make_scenes(args, out, mc_bin, DISTANCE_SCENES)
    results = {}
    for s in scenes:
        log(f"scene {s['name']}: {s['tris_a']} × {s['tris_b']} triangles, {s['poses']} poses ({', '.join(s['what'])})")
        results[s["name"]] = run_distance_scene(s, peers, mc_bin, parry_bin, sys.executable, args.timeout)
        if "distance" in s["what"]:
            compare_distances(s, peers, results[s["name"]])
    write_distance_table(out, scenes, results, peers, skipped, missing, versions, args, started)
    (out / "distance.json").write_text(
        json.dumps({"started_utc": started, "argv": sys.argv, "versions": versions, "missing": missing,
                    "skipped": skipped, "scenes": scenes, "results": results}, indent=1) + "\n"
    )
    log(f"done in {time.time() - t_start:.0f} s: {out / 'distance.md'}, {out / 'distance.json'}")
    print((out / "distance.md").read_text())


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--run-peer":
        run_python_peer(*sys.argv[2:8])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--run-distance-peer":
        run_python_distance_peer(*sys.argv[2:8])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "target" / "peers"), help="output folder (default target/peers)")
    ap.add_argument("--quick", action="store_true", help=f"every scene with at most {QUICK_POSES} poses (smoke test)")
    ap.add_argument("--quick-poses", type=int, default=QUICK_POSES, help=argparse.SUPPRESS)
    ap.add_argument("--only", action="append", help="run the scenes whose name contains TEXT (repeatable)")
    ap.add_argument("--peers", help="comma-separated subset of: " + ",".join(k for k, _, _ in PEERS))
    ap.add_argument("--venv", default=str(REPO / "target" / "peers-venv"), help="venv for the Python peers")
    ap.add_argument("--bunny", default=str(DEFAULT_BUNNY), help="the Stanford bunny OBJ (default ../shared/meshes)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per library and scene (default 3600)")
    ap.add_argument("--no-build", action="store_true", help="skip cargo build (binaries must exist)")
    ap.add_argument("--ours-bv", default="", help="also run meshcollide with these --bv values (comma-separated, e.g. obb); "
                    "their pairs must equal the default's")
    ap.add_argument("--single-runs", type=int, default=5,
                    help="runs of every library on a one-pose scene, each a fresh process; the median is "
                    "reported (default 5)")
    ap.add_argument("--distance", action="store_true",
                    help="the distance query against parry3d, python-fcl and coal (OBBRSS), and the tolerance "
                    "query's cost against our intersection query (DISTANCE_SCENES; OUT/distance.md)")
    args = ap.parse_args()
    if args.single_runs < 1:
        sys.exit("--single-runs: at least 1")

    venv = Path(args.venv).resolve()
    if Path(sys.prefix).resolve() != venv:
        py, missing = ensure_venv(venv)
        os.environ["PEERS_MISSING"] = ",".join(missing)
        os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])
    missing = [m for m in os.environ.get("PEERS_MISSING", "").split(",") if m]

    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    t_start = time.time()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cargo_build(args)
    mc_bin = target_dir() / "release" / "meshcollide"
    parry_bin = target_dir() / "release" / "examples" / "parry_peer"
    if not shutil.which("taskset"):
        loud("taskset not found: the runs are not pinned to one core (each library still runs one thread)")

    peers = [k for k, _, pkg in PEERS if pkg not in missing]
    if args.peers:
        want = args.peers.split(",")
        unknown = set(want) - {k for k, _, _ in PEERS}
        if unknown:
            sys.exit(f"unknown peers: {', '.join(sorted(unknown))}")
        peers = [k for k in peers if k in want]
    versions = {OURS: "(this checkout)", "parry3d": parry_version()}
    for k, _, pkg in PEERS:
        if pkg and k in peers:
            versions[k] = peer_version(pkg)

    if args.distance:
        main_distance(args, out, mc_bin, parry_bin, missing, versions, started, t_start)
        return
    ours_bv = [b for b in args.ours_bv.split(",") if b]
    scenes, skipped = make_scenes(args, out, mc_bin)
    results = {}
    for s in scenes:
        log(f"scene {s['name']}: {s['tris_a']} × {s['tris_b']} triangles, {s['poses']} poses")
        results[s["name"]] = run_scene(
            s, peers, mc_bin, parry_bin, sys.executable, args.timeout, ours_bv, args.single_runs
        )
        compare(s, peers, results[s["name"]])
    write_table(out, scenes, results, peers, skipped, missing, versions, args, started, ours_bv)
    write_svg(out, scenes, results, peers, ours_bv)
    (out / "results.json").write_text(
        json.dumps({"started_utc": started, "argv": sys.argv, "versions": versions, "missing": missing,
                    "skipped": skipped, "scenes": scenes, "results": results}, indent=1) + "\n"
    )
    log(f"done in {time.time() - t_start:.0f} s: {out / 'table.md'}, {out / 'plot.svg'}, {out / 'results.json'}")
    print((out / "table.md").read_text())


if __name__ == "__main__":
    main()
