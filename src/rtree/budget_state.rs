//! What the R-tree's budgeted pose ([`super::budget`]) keeps in the workspace between
//! poses.

use super::aabb::Aabb;
use crate::budget::Frontier;

/// No candidate (an entry of B that is none this pose).
pub(super) const NONE: u32 = u32::MAX;

/// A triangle of B that passed the filters, as the budgeted search reads it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cand {
    /// Its corners moved by the pose (global f64, the exact test's input).
    pub(super) tri: [[f64; 3]; 3],
    /// Its optimal box in A's local frame (the bound's).
    pub(super) whole: Aabb,
    /// The box the node tests compare (version 2: its part in the OAABB).
    pub(super) test: Aabb,
    /// Its entry in B's R-tree.
    pub(super) entry: u32,
}

/// A budgeted pose's state in the workspace: the frontier (with the hot start), the
/// candidates and, per entry of B, its candidate's index this pose.
#[derive(Debug, Default)]
pub(crate) struct BudgetState {
    pub(crate) frontier: Frontier,
    pub(super) cand: Vec<Cand>,
    pub(super) slot: Vec<u32>,
}
