//! The host's pose-level box pretest around the device, in one place ([`Screen`]): every
//! driver (the batch driver, the coherent driver's lanes, the CPU mirror of the pipeline)
//! keeps the poses it separates off the device, answers them with no contact and the
//! pretest's one node test, and adds that test to the Nv of every pose the device ran, so
//! the counters equal the CPU's ([`crate::kdop::pretest`], where the test is proved).

use super::pair_scene::GpuPairScene;
use crate::kdop::pretest::BoxPretest;
use crate::pose::Pose;
use crate::scene::{Counters, PoseResult, SubCounters};

/// A scene's pretest, if it runs one.
#[derive(Clone, Copy)]
pub(crate) struct Screen<'s> {
    test: Option<BoxPretest>,
    scene: std::marker::PhantomData<&'s ()>,
}

/// A batch screened: which poses the pretest separated, and the others, for the device.
pub(crate) struct Screened {
    /// Per pose of the batch, in order.
    pub(crate) separated: Vec<bool>,
    /// The poses not separated, in order.
    pub(crate) kept: Vec<Pose>,
}

impl<'s> Screen<'s> {
    /// The pretest of `scene` (none for the scenes without one).
    pub(crate) fn of<const H: usize, S: GpuPairScene<H>>(scene: &'s S) -> Screen<'s> {
        Screen {
            test: scene.pretest().copied(),
            scene: std::marker::PhantomData,
        }
    }

    /// The pretest of a tolerance query: A's box widened by `eps`
    /// ([`BoxPretest::widened`], as the CPU's `within_into`); itself for `eps = 0`.
    pub(crate) fn widened(self, eps: f64) -> Screen<'s> {
        Screen {
            test: self
                .test
                .map(|t| if eps == 0.0 { t } else { t.widened(eps) }),
            ..self
        }
    }

    /// No pretest here: the caller ran and counted it (a deforming frame, whose pretest
    /// depends on the frame's positions).
    pub(crate) fn counted_by_caller() -> Screen<'static> {
        Screen {
            test: None,
            scene: std::marker::PhantomData,
        }
    }

    /// Whether the pretest separates `pose`: it never reaches the device.
    pub(crate) fn separated(&self, pose: &Pose) -> bool {
        self.test.is_some_and(|t| t.separated(pose))
    }

    /// The node tests every pose owes the pretest: 1 with one, else 0.
    pub(crate) fn nv(&self) -> u64 {
        self.test.is_some() as u64
    }

    /// A separated pose's result: no contact, the pretest's test.
    pub(crate) fn rejected<S: SubCounters>(&self) -> PoseResult<S> {
        PoseResult {
            pairs: Vec::new(),
            counters: Counters {
                bv_tests: self.nv(),
                ..Default::default()
            },
        }
    }

    /// A pose the device ran: its counters and the pretest's test.
    pub(crate) fn ran<S>(&self, mut r: PoseResult<S>) -> PoseResult<S> {
        r.counters.bv_tests += self.nv();
        r
    }

    /// Screens a batch.
    pub(crate) fn batch(&self, poses: &[Pose]) -> Screened {
        let separated: Vec<bool> = poses.iter().map(|p| self.separated(p)).collect();
        let kept = poses
            .iter()
            .zip(&separated)
            .filter(|(_, s)| !**s)
            .map(|(p, _)| *p)
            .collect();
        Screened { separated, kept }
    }
}

impl Screened {
    /// Every pose's result in the batch's order: the device's for the kept poses (`ran`, one
    /// per kept pose, in order), [`Screen::rejected`] for the others, the pretest counted.
    pub(crate) fn splice<S: SubCounters>(
        &self,
        screen: Screen<'_>,
        ran: impl IntoIterator<Item = PoseResult<S>>,
    ) -> impl Iterator<Item = PoseResult<S>> {
        let mut ran = ran.into_iter();
        self.separated.iter().map(move |&s| {
            if s {
                screen.rejected()
            } else {
                screen.ran(ran.next().expect("one result per pose run"))
            }
        })
    }
}
