#!/usr/bin/env bash
# The hardware run kit (issue 39 item 4): everything a machine with a GPU, no Rust toolchain
# and no network needs to run the GPU tests and `meshcollide bench gpu`, in one folder.
#
#   scripts/gpu-hardware.sh pack   (here)   build, strip, compress, fetch the Vulkan loader and
#                                           copy the shared models into gpu-kit/ (git-ignored,
#                                           at most 60 MiB)
#   scripts/gpu-hardware.sh run    (there)  from the repo root with gpu-kit/ beside it: install
#                                           the loader if missing, print the adapter, run every
#                                           GPU test binary with MESHCOLLIDE_REQUIRE_GPU=1 and
#                                           `bench gpu`, all within a time budget
#   scripts/gpu-hardware.sh list            the GPU test targets (tests/gpu_*.rs, tests/gpu_*/main.rs)
#
# Environment (all optional):
#   MESHCOLLIDE_KIT_DIR            the kit folder (default gpu-kit in the repo root)
#   MESHCOLLIDE_KIT_MAX_MIB        pack: the largest kit allowed (default 60)
#   MESHCOLLIDE_KIT_OUT            run: the results folder (default $OUT/gpu-kit-results if OUT
#                                  is set, else gpu-kit-results in the repo root)
#   MESHCOLLIDE_KIT_BUDGET         run: seconds for the whole run (default 450, under 8 minutes)
#   MESHCOLLIDE_KIT_TEST_TIMEOUT   run: seconds for one test binary (default 90)
#   MESHCOLLIDE_KIT_BENCH_TIMEOUT  run: seconds for `bench gpu`, reserved out of the budget
#                                  (default 240)
#   MESHCOLLIDE_KIT_BENCH_ARGS     run: extra arguments of `bench gpu` (e.g. --quick)
#   MESHCOLLIDE_KIT_TESTS          run: only these test targets (space-separated names)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
KIT=${MESHCOLLIDE_KIT_DIR:-gpu-kit}
case $KIT in /*) ;; *) KIT=$ROOT/$KIT ;; esac
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# The Vulkan loader, and the GL dispatch libraries an NVIDIA ICD may link against.
LOADER_PACKAGES="libvulkan1 libglvnd0 libglx0 libgl1 libegl1"

stage=

die() {
    echo "gpu-hardware.sh: $*" >&2
    exit 1
}

# The GPU test targets, one per line: tests/gpu_<name>.rs and tests/gpu_<name>/main.rs.
list_targets() {
    local f
    for f in tests/gpu_*.rs tests/gpu_*/main.rs; do
        [ -f "$f" ] || continue
        case $f in
            */main.rs) f=${f%/main.rs} ;;
            *) f=${f%.rs} ;;
        esac
        echo "${f#tests/}"
    done | sort -u
}

# The "executable" paths in cargo's JSON messages on stdin.
executables() {
    grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//'
}

mib() {
    echo $((($1 + 1048575) / 1048576))
}

pack() {
    command -v cargo >/dev/null || die "pack needs cargo"
    local max_mib=${MESHCOLLIDE_KIT_MAX_MIB:-60}
    stage="$KIT.tmp"
    rm -rf "$stage"
    mkdir -p "$stage/bin/tests"
    trap 'rm -rf "$stage"' EXIT

    mapfile -t targets < <(list_targets)
    [ "${#targets[@]}" -gt 0 ] || die "no tests/gpu_* targets found"
    local args=() t
    for t in "${targets[@]}"; do args+=(--test "$t"); done
    echo "== building meshcollide and ${#targets[@]} GPU test binaries (release): ${targets[*]}"
    local bin
    bin=$(cargo build --release --bin meshcollide --message-format=json | executables | grep '/meshcollide$' | tail -1)
    [ -x "$bin" ] || die "cargo build gave no meshcollide executable"
    strip -o "$stage/bin/meshcollide" "$bin"
    local exe name found=0
    while IFS= read -r exe; do
        name=$(basename "$exe")
        name=${name%-*}
        for t in "${targets[@]}"; do
            if [ "$t" = "$name" ]; then
                strip -o "$stage/bin/tests/$name" "$exe"
                found=$((found + 1))
            fi
        done
    done < <(cargo test --release --no-run --message-format=json "${args[@]}" | executables)
    [ "$found" -eq "${#targets[@]}" ] || die "cargo test --no-run gave $found of ${#targets[@]} test executables"
    {
        echo "BUILD_ROOT=$ROOT"
        echo "COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
        echo "PACKED=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "TESTS=\"${targets[*]}\""
    } >"$stage/bin/kit.env"
    local raw
    raw=$(du -sb "$stage/bin" | cut -f1)
    echo "== stripped binaries: $(mib "$raw") MiB; compressing"
    if command -v xz >/dev/null; then
        # One stream with a 64 MiB dictionary: the test binaries share most of their code.
        tar -C "$stage/bin" -cf - . | xz -9 -T1 >"$stage/bin.tar.xz"
    else
        tar -C "$stage/bin" -cf - . | gzip -9 >"$stage/bin.tar.gz"
    fi
    rm -rf "${stage:?}/bin"

    echo "== Vulkan loader packages (amd64): $LOADER_PACKAGES"
    mkdir -p "$stage/debs"
    local lists=${TMPDIR:-/tmp}/meshcollide-apt-amd64
    local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
    mkdir -p "$lists/partial"
    # shellcheck disable=SC2086 # one word per package
    if ! (cd "$stage/debs" && apt-get "${o[@]}" download $LOADER_PACKAGES >/dev/null 2>&1); then
        apt-get "${o[@]}" update >/dev/null || die "apt-get update (amd64 lists in $lists) failed"
        # shellcheck disable=SC2086
        (cd "$stage/debs" && apt-get "${o[@]}" download $LOADER_PACKAGES >/dev/null) || die "apt-get download failed"
    fi
    ls "$stage"/debs/libvulkan1_*.deb >/dev/null 2>&1 || die "no libvulkan1 package fetched"

    local shared=$ROOT/../shared/meshes
    if [ -f "$shared/MANIFEST.md" ]; then
        echo "== shared models from $shared"
        cp -r "$shared" "$stage/models"
        chmod -R u+w "$stage/models"
    else
        echo "== no shared models at $shared: the GPU tests that need them will skip, bench gpu runs without --models"
    fi

    local size
    size=$(du -sb "$stage" | cut -f1)
    echo "== kit: $size bytes ($(mib "$size") MiB, limit $max_mib MiB)"
    du -sb "$stage"/* | sed 's/^/   /'
    if [ "$size" -gt $((max_mib * 1048576)) ]; then
        die "the kit would be $(mib "$size") MiB, over the $max_mib MiB limit: not written"
    fi
    rm -rf "$KIT"
    mv "$stage" "$KIT"
    trap - EXIT
    echo "== written: $KIT (carry it: carry [\"$(basename "$KIT")\"], command: bash scripts/gpu-hardware.sh run)"
}

run() {
    [ -d "$KIT" ] || die "no kit at $KIT: run 'scripts/gpu-hardware.sh pack' first and carry the folder"
    local res=${MESHCOLLIDE_KIT_OUT:-}
    if [ -z "$res" ]; then
        if [ -n "${OUT:-}" ]; then res=$OUT/gpu-kit-results; else res=$ROOT/gpu-kit-results; fi
    fi
    mkdir -p "$res"
    res=$(cd "$res" && pwd)
    rm -f "$res/kit.log" "$res/summary.txt" "$res/bench-gpu.json"
    set -o pipefail
    run_steps "$res" 2>&1 | tee "$res/kit.log"
}

run_steps() {
    local res=$1 start budget test_timeout bench_timeout
    start=$(date +%s)
    budget=${MESHCOLLIDE_KIT_BUDGET:-450}
    test_timeout=${MESHCOLLIDE_KIT_TEST_TIMEOUT:-90}
    bench_timeout=${MESHCOLLIDE_KIT_BENCH_TIMEOUT:-240}

    echo "== meshcollide GPU hardware kit: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(uname -m)), results in $res"
    echo "== budget ${budget}s, ${test_timeout}s per test binary, ${bench_timeout}s for bench gpu"
    local work=${TMPDIR:-/tmp}/meshcollide-kit
    rm -rf "$work"
    mkdir -p "$work"
    local archive=
    for archive in "$KIT"/bin.tar.*; do break; done
    [ -f "$archive" ] || die "no bin.tar.* in $KIT"
    if [ "${archive%.xz}" != "$archive" ] && ! command -v xz >/dev/null; then
        # No xz on the machine: Python's lzma module reads it.
        command -v python3 >/dev/null || die "$archive needs xz or python3, and this machine has neither"
        python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$archive" |
            tar -xf - -C "$work"
    else
        tar -xf "$archive" -C "$work"
    fi
    # shellcheck source=/dev/null
    . "$work/kit.env"
    echo "== kit of commit $COMMIT packed $PACKED; unpacked to $work ($(($(date +%s) - start))s)"
    local mc=$work/meshcollide

    if ldconfig -p | grep -q 'libvulkan\.so\.1'; then
        echo "== Vulkan loader: present"
    else
        echo "== Vulkan loader: missing, installing $KIT/debs/*.deb into /"
        local f
        for f in "$KIT"/debs/*.deb; do dpkg -x "$f" /; done
        ldconfig
        ldconfig -p | grep -q 'libvulkan\.so\.1' || echo "!! still no libvulkan.so.1 after installing the loader"
    fi
    if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$NVIDIA_ICD" ]; then
        export VK_DRIVER_FILES=$NVIDIA_ICD
        echo "== VK_DRIVER_FILES=$VK_DRIVER_FILES"
    fi
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L || true
    fi
    local info adapter
    info=$(timeout 60 "$mc" info 2>&1) || true
    echo "$info"
    adapter=$(printf '%s\n' "$info" | sed -n '/^GPU adapters:/{n;s/^ *//;p;q}')
    [ -n "$adapter" ] || adapter="none found"
    case $adapter in
        *Cpu*|*llvmpipe*|*lavapipe*) echo "!! the adapter is a CPU (lavapipe/llvmpipe), not a hardware GPU" ;;
    esac

    # The tests find the shared models at <crate root at build time>/../shared/meshes: make
    # that path lead to the kit's copy where it does not exist (on the GPU machine).
    if [ -d "$KIT/models" ]; then
        if [ ! -f "$BUILD_ROOT/../shared/meshes/MANIFEST.md" ]; then
            mkdir -p "$BUILD_ROOT" "$BUILD_ROOT/../shared"
            if [ -e "$BUILD_ROOT/../shared/meshes" ] && [ ! -L "$BUILD_ROOT/../shared/meshes" ]; then
                echo "!! $BUILD_ROOT/../shared/meshes exists without MANIFEST.md: left as it is"
            else
                ln -sfn "$KIT/models" "$BUILD_ROOT/../shared/meshes"
                echo "== shared models linked: $BUILD_ROOT/../shared/meshes -> $KIT/models"
            fi
        fi
        if [ -f "$BUILD_ROOT/../shared/meshes/MANIFEST.md" ]; then export MESHCOLLIDE_REQUIRE_SHARED=1; fi
    fi
    export MESHCOLLIDE_REQUIRE_GPU=1 MESHCOLLIDE_TEST_BIN=$mc

    local have_bench=0 reserve=0
    if "$mc" bench gpu --help >/dev/null 2>&1; then have_bench=1 reserve=$bench_timeout; fi
    local names=${MESHCOLLIDE_KIT_TESTS:-$TESTS}
    local summary=() failed=0 t log rc left lim passed nfailed ignored status
    log=$work/test.log
    for t in $names; do
        left=$((start + budget - reserve - $(date +%s)))
        if [ ! -x "$work/tests/$t" ]; then
            summary+=("$(printf '%-22s %s' "$t" "MISSING from the kit")")
            failed=1
            continue
        fi
        if [ "$left" -lt 5 ]; then
            summary+=("$(printf '%-22s %s' "$t" "SKIPPED (out of budget)")")
            failed=1
            continue
        fi
        lim=$((test_timeout < left ? test_timeout : left))
        echo "== test $t (timeout ${lim}s)"
        local t0=$SECONDS
        set +e
        timeout -k 5 "$lim" "$work/tests/$t" --color never >"$log" 2>&1
        rc=$?
        set -e
        cat "$log"
        passed=$(sed -n 's/^test result: .* \([0-9]*\) passed.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
        nfailed=$(sed -n 's/^test result: .* \([0-9]*\) failed.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
        ignored=$(sed -n 's/^test result: .* \([0-9]*\) ignored.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
        case $rc in
            0) status=ok ;;
            124 | 137) status="TIMEOUT after ${lim}s" ;;
            *) status="FAILED (exit $rc)" ;;
        esac
        [ "$rc" -eq 0 ] || failed=1
        summary+=("$(printf '%-22s %-22s %4s passed %3s failed %3s ignored  %4ss' "$t" "$status" "$passed" "$nfailed" "$ignored" $((SECONDS - t0)))")
    done

    local bench_status
    if [ "$have_bench" -eq 1 ]; then
        left=$((start + budget - $(date +%s)))
        lim=$((bench_timeout < left ? bench_timeout : left))
        local bench_args=(--json "$res/bench-gpu.json" --out "$res/bench")
        if [ -d "$KIT/models" ]; then bench_args+=(--models "$KIT/models"); fi
        # shellcheck disable=SC2206 # the extra arguments split on spaces
        bench_args+=(${MESHCOLLIDE_KIT_BENCH_ARGS:-})
        if [ "$lim" -lt 5 ]; then
            bench_status="SKIPPED (out of budget)"
            failed=1
        else
            echo "== $mc bench gpu ${bench_args[*]} (timeout ${lim}s)"
            local t0=$SECONDS
            set +e
            timeout -k 5 "$lim" "$mc" bench gpu "${bench_args[@]}"
            rc=$?
            set -e
            case $rc in
                0) bench_status="ok" ;;
                124 | 137) bench_status="TIMEOUT after ${lim}s" ;;
                *) bench_status="FAILED (exit $rc)" ;;
            esac
            bench_status="$bench_status in $((SECONDS - t0))s"
            [ "$rc" -eq 0 ] || failed=1
        fi
    else
        bench_status="MISSING: this build has no 'meshcollide bench gpu' (its --help failed)"
    fi

    {
        echo "== summary (kit of $COMMIT, $(($(date +%s) - start))s of a ${budget}s budget)"
        echo "adapter: $adapter"
        printf '%s\n' "${summary[@]}"
        echo "bench gpu: $bench_status"
        echo "results: $res"
    } | tee "$res/summary.txt"
    return "$failed"
}

case ${1:-} in
    pack) pack ;;
    run) run ;;
    list) list_targets ;;
    *)
        echo "usage: $0 pack|run|list   (see the top of this file and docs/GPU-HARDWARE.md)" >&2
        exit 2
        ;;
esac
