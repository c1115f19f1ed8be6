//! What the boxtree's budgeted pose ([`super::budget`]) keeps in the workspace between
//! poses.

use super::overlap::Iv;
use crate::budget::Frontier;

/// A budgeted pose's state in the workspace: the frontier (with the hot start) and the
/// node intervals of A and of B for each test's number of directions.
#[derive(Debug, Default)]
pub(crate) struct BudgetState {
    pub(crate) frontier: Frontier,
    iv3: [Vec<Iv<3>>; 2],
    iv6: [Vec<Iv<6>>; 2],
    iv15: [Vec<Iv<15>>; 2],
}

/// The node intervals of a test with `N` directions: A's, then B's.
pub(crate) trait NodeIntervals<const N: usize> {
    fn intervals(&mut self) -> &mut [Vec<Iv<N>>; 2];
}

impl NodeIntervals<3> for BudgetState {
    fn intervals(&mut self) -> &mut [Vec<Iv<3>>; 2] {
        &mut self.iv3
    }
}

impl NodeIntervals<6> for BudgetState {
    fn intervals(&mut self) -> &mut [Vec<Iv<6>>; 2] {
        &mut self.iv6
    }
}

impl NodeIntervals<15> for BudgetState {
    fn intervals(&mut self) -> &mut [Vec<Iv<15>>; 2] {
        &mut self.iv15
    }
}
