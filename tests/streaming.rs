//! Streaming `query` (issues 11 and 15): results go to the output pose by pose, in chunks,
//! on both backends, and equal brute force across chunk boundaries; a sink error stops the
//! run; a failed run leaves no file at `--out` and keeps the poses it finished in
//! `<out>.partial`; bad input is reported, with its line, before anything is written.

#![cfg(feature = "cli")]

use meshcollide::formats::PAIRS_HEADER;
use meshcollide::pose::{PoseReader, count_poses, format_poses, tumbling_poses};
use meshcollide::{BvKind, Collider, Contacts, Pose, QueryOptions, brute_force};
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

#[cfg(feature = "cli")]
fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_tmp_dir("stream", name)
}

/// Poses of the tumbling turn of two interlocked tori, B shifted so that some poses touch
/// and some do not.
const POSES: usize = 100;

/// Interlocked tori in `d` (a.obj, b.obj, poses.csv), and the brute-force `pairs.csv` of
/// the poses as the command line reads them back.
fn scene(d: &Path) -> String {
    let (a, b) = common::tori(8);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let poses = tumbling_poses(POSES, [0.0; 3], [1.0, 0.0, 0.0]);
    std::fs::write(d.join("poses.csv"), format_poses(&poses)).unwrap();
    let (fa, fb) = (
        meshcollide::mesh::load(&d.join("a.obj")).unwrap(),
        meshcollide::mesh::load(&d.join("b.obj")).unwrap(),
    );
    let mut csv = format!("{PAIRS_HEADER}\n");
    let read = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    let mut touching = 0;
    for (i, p) in read.iter().enumerate() {
        let pairs = brute_force(&fa, &fb, p);
        touching += !pairs.is_empty() as usize;
        for (x, y) in pairs {
            csv += &format!("{i},{x},{y}\n");
        }
    }
    assert!(
        touching > 10 && touching < POSES - 10,
        "{touching} poses touch"
    );
    csv
}

#[cfg(feature = "cli")]
fn query(d: &Path, backend: &str, extra: &[&str]) -> Output {
    common::bin()
        .args([
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "pairs.csv",
        ])
        .args(["--backend", backend])
        .args(extra)
        .current_dir(d)
        .output()
        .unwrap()
}

fn backends() -> Vec<&'static str> {
    match common::gpu() {
        Some(_) => vec!["cpu", "gpu"],
        None => vec!["cpu"],
    }
}

/// The directory's file names, sorted (temporary files included).
fn files(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `pairs.csv` streamed in chunks of 16 poses (CPU) and batches of at most 7 poses (GPU)
/// equals brute force, and the default chunking's file byte for byte.
#[test]
#[cfg(feature = "cli")]
fn streamed_pairs_equal_brute_force_across_chunk_boundaries() {
    let d = tmp_dir("chunks");
    let truth = scene(&d);
    for backend in backends() {
        for chunk in [None, Some("16"), Some("7"), Some("1")] {
            let extra: Vec<&str> = chunk.map_or(vec![], |c| vec!["--chunk-poses", c]);
            let out = query(&d, backend, &extra);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = std::fs::read_to_string(d.join("pairs.csv")).unwrap();
            assert!(
                got == truth,
                "{backend}, chunk {chunk:?}: pairs.csv differs"
            );
            assert_eq!(files(&d), ["a.obj", "b.obj", "pairs.csv", "poses.csv"]);
        }
    }
}

/// The library's streaming calls hand every pose's result over in order, equal to the
/// Vec-returning calls', across chunk boundaries, on both backends.
#[test]
fn collide_stream_equals_collide_batch() {
    let (a, b) = common::tori(8);
    let poses = tumbling_poses(POSES, [0.0; 3], [1.0, 0.0, 0.0]);
    let opts = QueryOptions::default();
    for bv in [BvKind::Kdop18, BvKind::Dual14, BvKind::Rtree] {
        let c = Collider::builder(&a, &b)
            .bv(bv)
            .stream_chunk(16)
            .build()
            .unwrap();
        let want = c.collide_batch_with(&poses, &opts, None);
        let mut got: Vec<Contacts> = Vec::new();
        c.collide_stream(poses.iter().copied(), &opts, |i, r| {
            assert_eq!(i, got.len());
            got.push(r);
            Ok(())
        })
        .unwrap();
        assert!(got == want, "{bv:?}: streamed results differ");
        let Some(ctx) = common::gpu() else { continue };
        if !bv.on_gpu() {
            continue;
        }
        let c = Collider::builder(&a, &b)
            .bv(bv)
            .stream_chunk(7)
            .build()
            .unwrap();
        let mut gpu: Vec<Contacts> = Vec::new();
        let stats = c
            .collide_stream_gpu(&ctx, poses.iter().copied(), &opts, |i, r| {
                assert_eq!(i, gpu.len());
                gpu.push(r);
                Ok(())
            })
            .unwrap();
        assert!(stats.batches.iter().all(|b| b.poses <= 7), "{bv:?}");
        for (i, (g, w)) in gpu.iter().zip(&want).enumerate() {
            assert_eq!(g.pairs, w.pairs, "{bv:?} GPU pose {i}");
        }
        assert_eq!(gpu.len(), POSES);
    }
}

/// With one worker thread the stream runs pose after pose on the caller's thread (no
/// chunk buffered): results and counters equal the batch's on the default thread count,
/// with coherence on and off (its runs restart every `POSE_CHUNK` poses in both), and a
/// sink error still ends the run at once.
#[test]
fn one_thread_stream_equals_the_batch() {
    let (a, b) = common::tori(8);
    let poses = tumbling_poses(POSES, [0.0; 3], [1.0, 0.0, 0.0]);
    let opts = QueryOptions::default();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for bv in [BvKind::Kdop18, BvKind::Obb, BvKind::Auto, BvKind::Dual14] {
        for coherence in [false, true] {
            let mut c = Collider::builder(&a, &b).bv(bv).build().unwrap();
            c.set_coherence(coherence);
            let want = c.collide_batch_with(&poses, &opts, None);
            let mut got: Vec<Contacts> = Vec::new();
            one.install(|| {
                assert_eq!(rayon::current_num_threads(), 1);
                c.collide_stream(poses.iter().copied(), &opts, |i, r| {
                    assert_eq!(i, got.len());
                    got.push(r);
                    Ok(())
                })
            })
            .unwrap();
            assert_eq!(got.len(), POSES);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.pairs, w.pairs, "{bv:?} coherence {coherence} pose {i}");
                assert_eq!(
                    g.counters, w.counters,
                    "{bv:?} coherence {coherence} pose {i}"
                );
            }
            let mut calls = 0;
            let r = one.install(|| {
                c.collide_stream(poses.iter().copied(), &opts, |i, _| {
                    calls += 1;
                    if i == 40 {
                        Err(meshcollide::Error::InvalidOption("stop".into()))
                    } else {
                        Ok(())
                    }
                })
            });
            assert!(r.is_err() && calls == 41, "{bv:?}: {calls} calls");
        }
    }
}

/// A sink error ends the run at once and comes back as the call's error.
#[test]
fn a_sink_error_stops_the_run() {
    let (a, b) = common::tori(8);
    let poses = tumbling_poses(POSES, [0.0; 3], [1.0, 0.0, 0.0]);
    let opts = QueryOptions::default();
    let c = Collider::builder(&a, &b).stream_chunk(16).build().unwrap();
    let fail = |calls: &mut usize, i: usize| {
        *calls += 1;
        match i {
            40 => Err(meshcollide::Error::InvalidOption("stop".into())),
            _ => Ok(()),
        }
    };
    let mut calls = 0;
    let e = c.collide_stream(poses.iter().copied(), &opts, |i, _| fail(&mut calls, i));
    assert!(
        matches!(e, Err(meshcollide::Error::InvalidOption(_))),
        "{e:?}"
    );
    assert_eq!(calls, 41);
    let Some(ctx) = common::gpu() else { return };
    let mut calls = 0;
    let e = c.collide_stream_gpu(&ctx, poses.iter().copied(), &opts, |i, _| {
        fail(&mut calls, i)
    });
    assert!(
        matches!(e, Err(meshcollide::Error::InvalidOption(_))),
        "{e:?}"
    );
    assert_eq!(calls, 41);
}

/// A run that fails at pose 37 leaves `--out` and `--stats` as they were (absent, or the
/// earlier file), no temporary file, and the pairs of poses 0..37 in `pairs.csv.partial`,
/// as its error says; the next complete run writes `pairs.csv` and removes the partial file.
#[test]
#[cfg(feature = "cli")]
fn a_failed_run_writes_no_output_and_keeps_the_finished_poses() {
    let d = tmp_dir("partial");
    let truth = scene(&d);
    let head: String = truth
        .lines()
        .filter(|l| {
            l.split(',')
                .next()
                .unwrap()
                .parse::<usize>()
                .map_or(true, |p| p < 37)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    for backend in backends() {
        for earlier in [None, Some("an earlier result\n")] {
            let _ = std::fs::remove_file(d.join("pairs.csv"));
            if let Some(text) = earlier {
                std::fs::write(d.join("pairs.csv"), text).unwrap();
            }
            let out = query(
                &d,
                backend,
                &[
                    "--fail-at-pose",
                    "37",
                    "--chunk-poses",
                    "16",
                    "--stats",
                    "s.json",
                ],
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{backend}: {err}");
            assert!(
                err.contains("poses 0..37 (of 100)") && err.contains("pairs.csv.partial"),
                "{backend}: {err}"
            );
            let partial = std::fs::read_to_string(d.join("pairs.csv.partial")).unwrap();
            assert!(
                partial == head,
                "{backend}: the partial file is not poses 0..37"
            );
            let mut want = vec!["a.obj", "b.obj", "pairs.csv.partial", "poses.csv"];
            if earlier.is_some() {
                want.insert(2, "pairs.csv");
                let kept = std::fs::read_to_string(d.join("pairs.csv")).unwrap();
                assert_eq!(Some(kept.as_str()), earlier);
            }
            assert_eq!(files(&d), want, "{backend}");
        }
        let out = query(&d, backend, &["--stats", "s.json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::read_to_string(d.join("pairs.csv")).unwrap() == truth);
        assert_eq!(
            files(&d),
            ["a.obj", "b.obj", "pairs.csv", "poses.csv", "s.json"]
        );
        std::fs::remove_file(d.join("s.json")).unwrap();
    }
}

/// A bad row at the end of a long poses file is reported with its line before any work:
/// exit 2 and nothing written.
#[test]
#[cfg(feature = "cli")]
fn a_bad_pose_row_is_reported_before_anything_is_written() {
    let d = tmp_dir("badrow");
    scene(&d);
    let mut text = format_poses(&tumbling_poses(3000, [0.0; 3], [1.0, 0.0, 0.0]));
    text += "1,0,0,0,0.5,zero,0\n";
    std::fs::write(d.join("poses.csv"), text).unwrap();
    for backend in backends() {
        let out = query(&d, backend, &["--stats", "s.json"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("poses.csv: line 3002 (pose 3000)") && err.contains("ty"),
            "{err}"
        );
        assert_eq!(files(&d), ["a.obj", "b.obj", "poses.csv"]);
    }
}

/// The streaming reader gives the poses and errors of the whole-file parser, line numbers
/// counted over blank lines and CRLF endings; `count_poses` stores none.
#[test]
fn pose_reader_streams_what_the_parser_reads() {
    let d = tmp_dir("reader");
    let p = d.join("poses.csv");
    let rows = "qw,qx,qy,qz,tx,ty,tz\r\n1,0,0,0,0.5,0,0\r\n\r\n0.7071068,0,0,0.7071068,0.5,0,0";
    std::fs::write(&p, rows).unwrap();
    let streamed: Vec<Pose> = PoseReader::open(&p).unwrap().map(Result::unwrap).collect();
    assert_eq!(streamed, meshcollide::pose::parse_poses(&p, rows).unwrap());
    assert_eq!((streamed.len(), count_poses(&p).unwrap()), (2, 2));
    std::fs::write(&p, format!("{rows}\n\n1,0,0,0,0,0\n1,0,0,0,0,0,0\n")).unwrap();
    let mut r = PoseReader::open(&p).unwrap();
    assert!(r.next().unwrap().is_ok() && r.next().unwrap().is_ok());
    let e = r.next().unwrap().unwrap_err().to_string();
    assert!(
        e.contains("line 6 (pose 2)") && e.contains("7 fields"),
        "{e}"
    );
    assert!(r.next().is_none(), "the reader ends after an error");
    assert_eq!(count_poses(&p).unwrap_err().to_string(), e);
}

/// After a batch is split (a buffer over the device's limit), later batches grow back, for
/// as many batches as follow: the cut is not doubled past the pose count into 0 (which made
/// every later batch a single pose).
#[test]
fn batches_grow_back_after_a_split() {
    use meshcollide::gpu::collide::GpuScene;
    use meshcollide::kdop::KdopScene;
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    // One pose over and over: what a batch needs per pose stays the same.
    let poses = vec![Pose::translation([1.0, 0.0, 0.0]); 6000];
    let o = meshcollide::BuildOptions::default();
    let scene = KdopScene::<9>::build(&a, &b, &o, &o, meshcollide::KdopOptions::default());
    let mut gpu = GpuScene::new(&ctx, &scene).unwrap();
    gpu.capacities = common::TINY_CAPACITIES;
    // Overflows resume in place while the grown buffers fit; under this limit the lazy
    // table holds 128 slots, less than the first batch of 16 poses grows to, so it splits.
    gpu.max_buffer_bytes = 16 << 10;
    let mut n = 0;
    let stats = gpu
        .collide_each(
            &ctx,
            &scene,
            poses.iter().copied(),
            meshcollide::Mode::All,
            meshcollide::TumbleMethod::Approximate,
            |i, _| {
                assert_eq!(i, n);
                n += 1;
                Ok::<_, meshcollide::gpu::GpuError>(())
            },
        )
        .unwrap();
    assert_eq!(n, poses.len());
    assert!(
        stats.splits > 0,
        "the budget must force a split: {} re-runs, {} resumes, batches {:?}",
        stats.reruns,
        stats.resumes,
        stats
            .batches
            .iter()
            .map(|b| b.poses)
            .take(12)
            .collect::<Vec<_>>()
    );
    let per_batch: u64 = stats.batches.iter().map(|b| b.reruns).sum();
    assert_eq!(per_batch, stats.reruns, "re-runs are attributed to batches");
    let sizes: Vec<u64> = stats.batches.iter().map(|b| b.poses).collect();
    assert!(sizes.len() > 70, "{} batches", sizes.len());
    let late = &sizes[sizes.len() / 2..sizes.len() - 1];
    assert!(
        late.iter().all(|&p| p > 1),
        "single-pose batches late in the run: {sizes:?}"
    );
}
