//! Sweep and prune: the broad phase of a scene of many bodies (Cohen, Lin, Manocha and
//! Ponamgi, "I-COLLIDE", 1995, section 4.2, which Klosowski et al. 1998, 6.1, point to for
//! many flying objects).
//!
//! Each present body has a closed axis-aligned box. Per axis, the boxes' `2n` endpoints are
//! kept sorted across frames; under coherent motion few endpoints change places, so the
//! insertion sort that restores the order costs `O(n + swaps)`. Every swap of a lower
//! endpoint past an upper one (or the reverse) is the only event at which two boxes can
//! start or stop overlapping along that axis, so the set of overlapping pairs is kept up to
//! date from the swaps alone, never by testing all pairs.
//!
//! The sort key of an endpoint is `(value, upper)`, lower before upper at equal values:
//! boxes are closed, so two boxes that touch overlap (bodies at distance 0 can have
//! touching triangles), and along an axis box `i`'s lower endpoint precedes box `j`'s upper
//! one iff `lo_i ≤ hi_j`.
//!
//! Why the set is right after every update (tested against all pairs in the module's
//! tests): a swap of `i`'s lower endpoint to the left of `j`'s upper one tests the two
//! boxes on all three axes with their new values and adds the pair if they overlap; a swap
//! of an upper endpoint to the left of a lower one means the boxes no longer overlap along
//! that axis and removes the pair. A pair with no swap on any axis keeps the relative order
//! of its endpoints on every axis, hence its overlap, and its membership. A pair with swaps
//! ends with the verdict of its last one, which looked at the final boxes (an "add" that
//! finds no overlap does not change the set: before the swap the boxes were apart along
//! that axis, so the pair was not in the set, nor added by an earlier swap of this update,
//! which saw the same boxes).
//!
//! A new body's endpoints enter at the end of each list (as if its box were beyond every
//! other) and sort into place by the same swaps; a body taken out has its endpoints and
//! pairs dropped. Pairs of two static bodies are never added.

use rustc_hash::FxHashSet;

/// A closed axis-aligned box `[lo, hi]`.
pub type Aabb = [[f64; 3]; 2];

/// Whether two closed boxes overlap (touching counts).
#[inline]
pub fn boxes_overlap(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a[0][k] <= b[1][k] && b[0][k] <= a[1][k])
}

/// One endpoint of a box along an axis.
#[derive(Debug, Clone, Copy)]
struct Endpoint {
    value: f64,
    body: u32,
    upper: bool,
}

impl Endpoint {
    /// Whether `self` sorts strictly before `o`: by value, lower endpoints first at ties.
    #[inline]
    fn before(&self, o: &Endpoint) -> bool {
        self.value < o.value || (self.value == o.value && !self.upper && o.upper)
    }
}

/// The sorted endpoint lists of the present bodies and their overlapping pairs.
#[derive(Debug, Default, Clone)]
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    /// Each body's box, `None` while it is absent.
    boxes: Vec<Option<Aabb>>,
    /// Whether each body is static (static pairs are never added).
    fixed: Vec<bool>,
    /// The overlapping pairs `(i, j)`, `i < j`.
    pairs: FxHashSet<(u32, u32)>,
    /// Swaps of adjacent endpoints so far (all axes, insertions included).
    swaps: u64,
}

impl SweepAndPrune {
    /// An empty broad phase for bodies `0..fixed.len()`, `fixed[i]` when body `i` is static.
    pub fn new(fixed: Vec<bool>) -> SweepAndPrune {
        SweepAndPrune {
            boxes: vec![None; fixed.len()],
            fixed,
            ..Default::default()
        }
    }

    /// Adds a body (absent) and returns its number.
    pub fn add_body(&mut self, fixed: bool) -> u32 {
        self.boxes.push(None);
        self.fixed.push(fixed);
        (self.boxes.len() - 1) as u32
    }

    /// Swaps of adjacent endpoints since the broad phase was made.
    pub fn swaps(&self) -> u64 {
        self.swaps
    }

    /// Whether body `i` is present.
    pub fn is_present(&self, i: u32) -> bool {
        self.boxes[i as usize].is_some()
    }

    /// The overlapping pairs `(i, j)`, `i < j`, sorted.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.pairs.iter().copied().collect();
        v.sort_unstable();
        v
    }

    /// Number of overlapping pairs.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Sets the boxes of the bodies in `moved` (present or new; a new one is inserted),
    /// then restores the order and the pair set.
    pub fn update(&mut self, moved: &[(u32, Aabb)]) {
        self.step(moved, &[]);
    }

    /// One frame: takes out the bodies in `removed`, sets the boxes of those in `moved`
    /// (present or new), and restores the order and the pair set.
    ///
    /// The bodies already present sort into their new places by insertion sort (module
    /// docs). Arrivals do not: bubbling one in from the end of a list would pass every
    /// endpoint, `O(n)` swaps each. Their endpoints are sorted apart and merged into each
    /// list, and their pairs found by one sweep along x in which an arrival's lower
    /// endpoint meets every body open there and a present body's lower endpoint meets the
    /// arrivals open there: every pair with an arrival whose x-intervals overlap is met
    /// once (the one whose lower endpoint comes second meets the other), then tested on
    /// all three axes. Many arrivals at once (more than an eighth of the bodies: a scene's
    /// first frame) rebuild everything with one sort and one sweep instead. Removals are
    /// one pass over each list and over the pair set, however many there are.
    pub fn step(&mut self, moved: &[(u32, Aabb)], removed: &[u32]) {
        let gone: Vec<u32> = removed
            .iter()
            .copied()
            .filter(|&i| self.boxes[i as usize].take().is_some())
            .collect();
        if !gone.is_empty() {
            let boxes = &self.boxes;
            for axis in &mut self.axes {
                axis.retain(|e| boxes[e.body as usize].is_some());
            }
            self.pairs
                .retain(|&(a, b)| boxes[a as usize].is_some() && boxes[b as usize].is_some());
        }
        let mut arrivals: Vec<u32> = vec![];
        for &(i, b) in moved {
            if self.boxes[i as usize].replace(b).is_none() {
                arrivals.push(i);
            }
        }
        let present = self.axes[0].len() / 2;
        if arrivals.len() > 16 && arrivals.len() * 8 > present {
            return self.rebuild();
        }
        for k in 0..3 {
            let mut axis = std::mem::take(&mut self.axes[k]);
            for e in &mut axis {
                let b = self.boxes[e.body as usize].expect("endpoints only of present bodies");
                e.value = b[e.upper as usize][k];
            }
            self.sort_axis(&mut axis);
            self.axes[k] = axis;
        }
        if !arrivals.is_empty() {
            self.merge_in(&arrivals);
        }
    }

    /// Merges the endpoints of `arrivals` (boxes set, not in the lists) into each sorted
    /// list and adds their pairs ([`SweepAndPrune::step`]).
    fn merge_in(&mut self, arrivals: &[u32]) {
        for k in 0..3 {
            let mut new: Vec<Endpoint> = arrivals
                .iter()
                .flat_map(|&i| {
                    let b = self.boxes[i as usize].expect("set");
                    [false, true].map(|upper| Endpoint {
                        value: b[upper as usize][k],
                        body: i,
                        upper,
                    })
                })
                .collect();
            new.sort_by(order);
            let old = std::mem::take(&mut self.axes[k]);
            let mut merged = Vec::with_capacity(old.len() + new.len());
            let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
            while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
                merged.push(if y.before(x) { b.next() } else { a.next() }.expect("peeked"));
            }
            merged.extend(a);
            merged.extend(b);
            self.axes[k] = merged;
        }
        let mut arriving = vec![false; self.boxes.len()];
        for &i in arrivals {
            arriving[i as usize] = true;
        }
        let (mut open_old, mut open_new): (Vec<u32>, Vec<u32>) = (vec![], vec![]);
        let axis = std::mem::take(&mut self.axes[0]);
        for e in &axis {
            let open = match arriving[e.body as usize] {
                true => &mut open_new,
                false => &mut open_old,
            };
            if e.upper {
                let at = open.iter().position(|&o| o == e.body).expect("opened");
                open.swap_remove(at);
                continue;
            }
            open.push(e.body);
            let meets: &[u32] = if arriving[e.body as usize] {
                &open_old
            } else {
                &[]
            };
            for &o in meets.iter().chain(&open_new) {
                if o != e.body {
                    self.maybe_add(e.body, o);
                }
            }
        }
        self.axes[0] = axis;
    }

    /// Every list sorted anew from the present boxes, and the pair set found by one sweep
    /// along x: a body's lower endpoint meets every body whose x-interval is open there
    /// (lower endpoints first at ties, so touching intervals count), and those are tested
    /// on all three axes. The pairs are those of [`boxes_overlap`] by construction.
    fn rebuild(&mut self) {
        let present: Vec<u32> = (0..self.boxes.len() as u32)
            .filter(|&i| self.boxes[i as usize].is_some())
            .collect();
        for k in 0..3 {
            let axis = &mut self.axes[k];
            axis.clear();
            for &i in &present {
                let b = self.boxes[i as usize].expect("present");
                for upper in [false, true] {
                    axis.push(Endpoint {
                        value: b[upper as usize][k],
                        body: i,
                        upper,
                    });
                }
            }
            axis.sort_by(order);
        }
        self.pairs.clear();
        let mut open: Vec<u32> = vec![];
        for e in &self.axes[0] {
            if e.upper {
                let at = open.iter().position(|&o| o == e.body).expect("opened");
                open.swap_remove(at);
                continue;
            }
            for &o in &open {
                let (i, j) = (e.body, o);
                let both_fixed = self.fixed[i as usize] && self.fixed[j as usize];
                let (a, b) = (&self.boxes[i as usize], &self.boxes[j as usize]);
                if !both_fixed && boxes_overlap(&a.expect("present"), &b.expect("present")) {
                    self.pairs.insert(ordered(i, j));
                }
            }
            open.push(e.body);
        }
    }

    /// Takes body `i` out: its endpoints and pairs go. Nothing happens if it is absent.
    pub fn remove(&mut self, i: u32) {
        self.step(&[], &[i]);
    }

    /// Insertion sort of one axis, updating the pair set at each swap (module docs).
    fn sort_axis(&mut self, axis: &mut [Endpoint]) {
        for n in 1..axis.len() {
            let e = axis[n];
            let mut m = n;
            while m > 0 && e.before(&axis[m - 1]) {
                let f = axis[m - 1];
                self.swaps += 1;
                match (e.upper, f.upper) {
                    // `e`'s lower end passes `f`'s upper end: they may now overlap.
                    (false, true) => self.maybe_add(e.body, f.body),
                    // `e`'s upper end passes `f`'s lower end: apart along this axis.
                    (true, false) => {
                        self.pairs.remove(&ordered(e.body, f.body));
                    }
                    _ => {}
                }
                axis[m] = f;
                m -= 1;
            }
            axis[m] = e;
        }
    }

    fn maybe_add(&mut self, i: u32, j: u32) {
        if i == j || (self.fixed[i as usize] && self.fixed[j as usize]) {
            return;
        }
        let (Some(a), Some(b)) = (&self.boxes[i as usize], &self.boxes[j as usize]) else {
            return;
        };
        if boxes_overlap(a, b) {
            self.pairs.insert(ordered(i, j));
        }
    }
}

/// The order of [`Endpoint::before`] as a comparison: by value (finite; `-0` and `0`
/// equal), lower endpoints first at ties.
fn order(a: &Endpoint, b: &Endpoint) -> std::cmp::Ordering {
    let v = a.value.partial_cmp(&b.value).expect("finite");
    v.then(a.upper.cmp(&b.upper))
}

#[inline]
fn ordered(i: u32, j: u32) -> (u32, u32) {
    if i < j { (i, j) } else { (j, i) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// All pairs of present boxes that overlap, at least one not static: the oracle.
    fn all_pairs(s: &SweepAndPrune) -> Vec<(u32, u32)> {
        let n = s.boxes.len();
        let mut v = vec![];
        for i in 0..n {
            for j in i + 1..n {
                if let (Some(a), Some(b)) = (&s.boxes[i], &s.boxes[j])
                    && !(s.fixed[i] && s.fixed[j])
                    && boxes_overlap(a, b)
                {
                    v.push((i as u32, j as u32));
                }
            }
        }
        v
    }

    fn random_box(rng: &mut Rng, grid: bool) -> Aabb {
        // On a coarse grid, boxes touch exactly and share endpoint values often.
        let mut c = [0.0; 3];
        let mut h = [0.0; 3];
        for k in 0..3 {
            if grid {
                c[k] = (rng.next_u64() % 8) as f64;
                h[k] = (1 + rng.next_u64() % 2) as f64 * 0.5;
            } else {
                c[k] = rng.f64() * 10.0;
                h[k] = 0.2 + rng.f64();
            }
        }
        [
            [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
            [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
        ]
    }

    #[test]
    fn pair_set_equals_all_pairs_through_moves_insertions_and_removals() {
        for (seed, grid) in [(1u64, false), (2, true), (3, false), (4, true)] {
            let mut rng = Rng::new(seed);
            let n = 40;
            let fixed: Vec<bool> = (0..n).map(|i| i % 7 == 0).collect();
            let mut s = SweepAndPrune::new(fixed);
            let mut boxes: Vec<Option<Aabb>> = vec![None; n];
            for _ in 0..60 {
                let mut moved = vec![];
                let mut removed = vec![];
                for (i, slot) in boxes.iter_mut().enumerate() {
                    let r = rng.next_u64() % 10;
                    match (slot.is_some(), r) {
                        (true, 0) => {
                            // One at a time, or all of a frame's in one step.
                            match seed % 2 {
                                0 => s.remove(i as u32),
                                _ => removed.push(i as u32),
                            }
                            *slot = None;
                        }
                        (false, 1..=3) | (true, 4..=9) if !(s.fixed[i] && slot.is_some()) => {
                            let b = match slot {
                                // Coherent motion: a small step from the last box.
                                Some(old) if !grid => {
                                    let d = (rng.f64() - 0.5) * 0.3;
                                    [old[0].map(|x| x + d), old[1].map(|x| x + d)]
                                }
                                _ => random_box(&mut rng, grid),
                            };
                            *slot = Some(b);
                            moved.push((i as u32, b));
                        }
                        _ => {}
                    }
                }
                s.step(&moved, &removed);
                assert_eq!(s.pairs(), all_pairs(&s), "seed {seed}");
                assert_eq!(s.pair_count(), all_pairs(&s).len());
            }
            assert!(s.swaps() > 0);
        }
    }

    #[test]
    fn many_arrivals_at_once_are_swept_in() {
        for grid in [false, true] {
            let mut rng = Rng::new(9);
            let fixed: Vec<bool> = (0..160).map(|i| i % 9 == 0).collect();
            let mut s = SweepAndPrune::new(fixed);
            let first: Vec<(u32, Aabb)> =
                (0..100).map(|i| (i, random_box(&mut rng, grid))).collect();
            s.update(&first);
            assert_eq!(s.pairs(), all_pairs(&s));
            assert!(!s.pairs().is_empty());
            // Some move, then 60 more arrive at once, then all move by insertion sort.
            let moved: Vec<(u32, Aabb)> = (0..100)
                .step_by(3)
                .map(|i| (i, random_box(&mut rng, grid)))
                .collect();
            s.update(&moved);
            assert_eq!(s.pairs(), all_pairs(&s));
            let more: Vec<(u32, Aabb)> = (100..160)
                .map(|i| (i, random_box(&mut rng, grid)))
                .collect();
            s.update(&more);
            assert_eq!(s.pairs(), all_pairs(&s));
            let all: Vec<(u32, Aabb)> = (0..160).map(|i| (i, random_box(&mut rng, grid))).collect();
            s.update(&all);
            assert_eq!(s.pairs(), all_pairs(&s));
        }
    }

    #[test]
    fn touching_boxes_overlap_and_static_pairs_are_never_made() {
        let mut s = SweepAndPrune::new(vec![false, false, true, true]);
        let unit = |x: f64| [[x, 0.0, 0.0], [x + 1.0, 1.0, 1.0]];
        s.update(&[
            (0, unit(0.0)),
            (1, unit(1.0)),
            (2, unit(2.0)),
            (3, unit(3.0)),
        ]);
        // 0–1 and 1–2 touch; 2–3 touch but are both static.
        assert_eq!(s.pairs(), vec![(0, 1), (1, 2)]);
        s.update(&[(1, unit(1.0 + f64::EPSILON * 4.0))]);
        assert_eq!(s.pairs(), vec![(1, 2)]);
        s.remove(2);
        assert!(s.pairs().is_empty());
        assert!(!s.is_present(2));
    }
}
