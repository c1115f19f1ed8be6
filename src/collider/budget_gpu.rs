//! Budgeted queries on the GPU ([`crate::gpu::collide::GpuScene::collide_budgeted_each`]):
//! the breadth-first order by whole levels, with the CPU's answers, node tests and bound.

use super::budget::{OnePose, Visit, lent};
use super::{AnyScene, AnySub, Collider, Contacts};
use crate::budget::{Answer, Budget, HasFrontier, Order, PoseStatus};
use crate::gpu::GpuContext;
use crate::gpu::collide::{GpuPairScene, GpuScene, GpuStats};
use crate::kind::for_each_k;
use crate::pose::Pose;
use crate::scene::{Mode, PairScene, QueryOptions};
use std::cell::RefCell;
use std::collections::VecDeque;

impl Collider {
    /// [`Collider::collide_budgeted`] on the GPU: the same answers, pairs, node tests and
    /// bounds as the CPU's breadth-first order ([`Order::Breadth`], whole levels) without
    /// the hot start (poses run side by side), plus what the GPU did. The budget's order
    /// must be breadth-first and it has no wall-clock part. In [`Mode::First`] a pose with
    /// a contact is complete, as on the CPU, but its `bv_tests` count the levels the device
    /// ran (it finds contacts after its last level; the CPU stops at the first). A budget
    /// below [`GpuScene::min_device_budget`] (at most the pretest, the roots and level 1)
    /// is answered on the host. The hierarchies of [`Collider::collide_stream_gpu`].
    pub fn collide_budgeted_gpu(
        &self,
        ctx: &GpuContext,
        poses: &[Pose],
        opts: &QueryOptions,
        budget: Budget,
    ) -> crate::error::Result<(Vec<(Contacts, PoseStatus)>, GpuStats)> {
        let mut all = Vec::with_capacity(poses.len());
        let stats = self.collide_budgeted_stream_gpu(
            ctx,
            poses.iter().copied(),
            opts,
            budget,
            |_, r, s| {
                all.push((r, s));
                Ok(())
            },
        )?;
        Ok((all, stats))
    }

    /// [`Collider::collide_budgeted_gpu`] streamed: each pose's contacts and status go to
    /// `sink` in pose order; the first error of `sink` ends the run and is returned.
    pub fn collide_budgeted_stream_gpu(
        &self,
        ctx: &GpuContext,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        budget: Budget,
        mut sink: impl FnMut(usize, Contacts, PoseStatus) -> crate::error::Result<()>,
    ) -> crate::error::Result<GpuStats> {
        self.check_budgeted(opts)?;
        if budget.order != Order::Breadth {
            return Err(crate::error::Error::InvalidOption(format!(
                "the GPU spends a budget breadth first, a whole level at a time: the order must be breadth, not {}",
                budget.order.name()
            )));
        }
        if budget.time.is_some() {
            return Err(crate::error::Error::InvalidOption(
                "a wall-clock budget runs on the CPU only".into(),
            ));
        }
        let budget = Budget {
            hot_start: false,
            front: false,
            ..budget
        };
        let sink: &mut Sink<'_> = &mut sink;
        if let AnyScene::Auto(a) = &self.scene {
            // The budget runs on auto's kdop18 tree, as on the CPU.
            return self.budget_gpu_run(ctx, &a.kdop, poses, opts, budget, sink);
        }
        with_gpu_scene!(&self.scene, s => self.budget_gpu_run(ctx, s, poses, opts, budget, sink),
            other => Err(crate::gpu::GpuError::Unsupported { bv: other.kind().name() }.into()))
    }

    /// [`Collider::collide_budgeted_stream_gpu`] on one scene.
    fn budget_gpu_run<const H: usize, S: GpuPairScene<H> + 'static>(
        &self,
        ctx: &GpuContext,
        s: &S,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        budget: Budget,
        sink: &mut Sink<'_>,
    ) -> crate::error::Result<GpuStats>
    where
        AnySub: From<S::Sub>,
    {
        let nodes = budget.nodes.get();
        if nodes < GpuScene::<H>::min_device_budget(s) {
            self.collide_budgeted_stream(poses, opts, budget, sink)?;
            return Ok(GpuStats::default());
        }
        // The poses the device has read and not yet answered, for the host's bounds.
        let pending = RefCell::new(VecDeque::new());
        let poses = poses
            .into_iter()
            .inspect(|p| pending.borrow_mut().push_back(*p));
        self.gpu.with(ctx, s, |g| {
            g.max_batch_poses = self.chunk.unwrap_or(crate::gpu::collide::MAX_BATCH_POSES);
            g.tolerance = opts.tolerance;
            g.collide_budgeted_each(
                ctx,
                s,
                poses,
                opts.mode,
                opts.tumble,
                nodes,
                |i, r, frontier| {
                    let pose = pending
                        .borrow_mut()
                        .pop_front()
                        .expect("read before answered");
                    let r = r.map_sub(AnySub::from);
                    let found = !r.pairs.is_empty();
                    let bv_tests = r.counters.bv_tests;
                    let status = if frontier.is_empty() || (opts.mode == Mode::First && found) {
                        PoseStatus::complete(found, bv_tests)
                    } else {
                        let bound = self.dispatch(opts, budget, Replay { pose, frontier });
                        PoseStatus {
                            answer: if found {
                                Answer::Contact
                            } else {
                                Answer::Maybe
                            },
                            complete: false,
                            depth_bound: bound,
                            bv_tests,
                        }
                    };
                    sink(i, r, status)
                },
            )
        })
    }
}

/// Where a budgeted run's results go.
type Sink<'a> = dyn FnMut(usize, Contacts, PoseStatus) -> crate::error::Result<()> + 'a;

/// The bound of a pose's frontier left by the device, by the CPU's search
/// ([`crate::budget`]'s replay): `+∞` should the scene answer the pose without searching
/// (its pretest separating what the device's did not; never seen, and still a bound).
struct Replay {
    pose: Pose,
    frontier: Vec<(u32, u32)>,
}

impl Visit<f64> for Replay {
    fn visit<S: PairScene>(self, s: &S, one: &OnePose<'_, S::Workspace>) -> f64
    where
        S::Workspace: HasFrontier,
    {
        lent(s, |ws| {
            ws.frontier().replay = Some(self.frontier);
            let (_, status) = one(&self.pose, ws, &mut Vec::new());
            match ws.frontier().replay.take() {
                Some(_) => f64::INFINITY,
                None => status.depth_bound,
            }
        })
    }
}
