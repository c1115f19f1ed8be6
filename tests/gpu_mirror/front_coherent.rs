//! `front_coherent.wgsl` against `gpu::mirror::front_coherent`: temporal coherence's
//! device hand-over (`record_counts`, `gather_seeds`).

use crate::{Gpu, sorted};
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::{FrontPair, HandOver, HandOverParams, LaneRecord, NO_LANE};
use meshcollide::gpu::mirror::front_coherent;

/// `record_counts` and `gather_seeds` (temporal coherence's device hand-over) against their
/// twins: per-lane counts and root flags exactly; the seeds lane by lane as sorted lists
/// (a lane's pairs land in the device's order), both tumbling methods.
#[test]
fn hand_over_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let mut rng = meshcollide::rng::Rng::new(7);
    let (lanes, n_fly) = (37u32, 61u32);
    // A record of 5,000 pairs over the lanes (lane 5 empty), some at B's root.
    let record: Vec<FrontPair> = (0..5000)
        .map(|_| {
            let pose = (rng.next_u64() % lanes as u64) as u32;
            let pose = if pose == 5 { 6 } else { pose };
            let b = (rng.next_u64() % 9) as u32;
            FrontPair::new(pose, (rng.next_u64() % 1000) as u32, b * (b % 3))
        })
        .collect();
    for n_record in [0u32, 1, 4999, 5000] {
        let params = HandOverParams {
            n_record,
            n_fly,
            ..Default::default()
        };
        let zero = LaneRecord::default();
        let (rec_b, params_b, lanes_b) = (
            gpu.buf(&record),
            gpu.buf(&[params]),
            gpu.buf(&vec![zero; lanes as usize]),
        );
        let b = [
            ("front_record", &rec_b),
            ("params", &params_b),
            ("lanes", &lanes_b),
        ];
        gpu.run(&kernels::RECORD_COUNTS, 9, &b, n_record as u64);
        let mut counts = vec![zero; lanes as usize];
        front_coherent::record_counts(&record, &params, &mut counts);
        let got: Vec<LaneRecord> = gpu.read(&lanes_b, lanes as usize);
        assert_eq!(got, counts, "record_counts of {n_record}");
        if n_record < 5000 {
            continue;
        }
        assert!(counts.iter().any(|l| l.root == 1) && counts.iter().any(|l| l.root == 0));
        // The next step: every third lane dropped, the others seeded in reverse order, and
        // four lanes from the roots.
        for dense in [false, true] {
            let mut hand = vec![
                HandOver {
                    lane: NO_LANE,
                    offset: 0
                };
                lanes as usize
            ];
            let mut next = 0;
            let mut total = 0;
            let mut segments = Vec::new();
            for src in (0..lanes).rev().filter(|l| l % 3 != 0) {
                hand[src as usize] = HandOver {
                    lane: next,
                    offset: total,
                };
                segments.push((total, counts[src as usize].pairs));
                total += counts[src as usize].pairs;
                next += 1;
            }
            for _ in 0..4 {
                hand.push(HandOver {
                    lane: next,
                    offset: total,
                });
                segments.push((total, 1));
                total += 1;
                next += 1;
            }
            let params = HandOverParams {
                n_record,
                n_src: lanes,
                n_roots: 4,
                n_fly,
                dense: dense as u32,
                ..Default::default()
            };
            let filler = FrontPair::new(9, 9, 9);
            let (params_b, hand_b, cursor_b, seeds_b) = (
                gpu.buf(&[params]),
                gpu.buf(&hand),
                gpu.buf(&vec![0u32; next as usize]),
                gpu.buf(&vec![filler; total as usize]),
            );
            let b = [
                ("front_record", &rec_b),
                ("params", &params_b),
                ("hand", &hand_b),
                ("cursor", &cursor_b),
                ("seeds", &seeds_b),
            ];
            gpu.run(&kernels::GATHER_SEEDS, 9, &b, n_record as u64 + 4);
            let mut cursor = vec![0u32; next as usize];
            let mut seeds = vec![filler; total as usize];
            front_coherent::gather_seeds(&record, &params, &hand, &mut cursor, &mut seeds);
            let got: Vec<FrontPair> = gpu.read(&seeds_b, total as usize);
            assert_eq!(gpu.read::<u32>(&cursor_b, next as usize), cursor, "cursor");
            assert!(!seeds.contains(&filler), "every seed written");
            for (offset, n) in segments {
                let r = offset as usize..(offset + n) as usize;
                assert_eq!(
                    sorted(got[r.clone()].to_vec()),
                    sorted(seeds[r].to_vec()),
                    "gather_seeds dense={dense} at {offset}"
                );
            }
        }
    }
}
