#!/bin/bash
# The distance query's work on the GPU against the CPU's, per pose (docs/RESULTS.md,
# "Distance on the GPU"): Nv, the triangle pairs measured (CPU) or handed to the host (GPU),
# dispatches, submissions and readbacks, and times. Every row checks that both backends
# wrote the same distance.csv. Needs a GPU adapter (lavapipe counts the work; its times are
# the software device's) and the Stanford bunny of ../shared/meshes (MODELS=dir overrides).
#
#   cargo build --release && benches/gpu_distance_work.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
M=${MESHCOLLIDE:-$root/target/release/meshcollide}
MODELS=${MODELS:-$root/../shared/meshes}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$M" generate torus --n 40 --out torus.obj 2>/dev/null
echo "| scene | poses | CPU Nv | GPU Nv | CPU Np | pairs to the host | dispatches / submissions / readbacks | CPU ms a pose | GPU ms a pose | rows |"
echo "|---|---|---:|---:|---:|---:|---|---:|---:|---|"
for scene in "torus 2.2 60" "torus 3.5 60" "bunny 0.12 20" "bunny 0.3 20"; do
  set -- $scene
  if [ "$1" = torus ]; then m=torus.obj; else m=$MODELS/stanford-bunny.obj; fi
  if [ ! -f "$m" ]; then echo "| $1 at $2 | skipped: no $m |"; continue; fi
  "$M" poses --steps "$3" --translate "$2" 0.02 0.01 --out p.csv 2>/dev/null
  "$M" distance "$m" "$m" --poses p.csv --out cpu.csv --stats cpu.json 2>/dev/null
  "$M" distance "$m" "$m" --poses p.csv --out gpu.csv --backend gpu --stats gpu.json 2>/dev/null
  if cmp -s cpu.csv gpu.csv; then same=identical; else same=DIFFER; fi
  python3 - "$1" "$2" "$3" "$same" <<'PY'
import json, sys
c, g = json.load(open("cpu.json")), json.load(open("gpu.json"))
n = int(sys.argv[3])
rows = [l.split(",") for l in open("cpu.csv").read().split("\n")[1:] if l]
zero = sum(1 for r in rows if r[1] == "0")
w = g["gpu"]
print(f"| {sys.argv[1]} at {sys.argv[2]} | {n} ({zero} in contact) | {c['bv_tests']/n:,.0f} | "
      f"{g['bv_tests']/n:,.0f} | {c['tri_tests']/n:,.0f} | {w['unsure_pairs']/n:,.0f} | "
      f"{w['dispatches']} / {w['submissions']} / {w['readbacks']} | {c['distance_ms']/n:.2f} | "
      f"{g['distance_ms']/n:.1f} | {sys.argv[4]} |")
PY
done
