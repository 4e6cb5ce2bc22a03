//! One PUCT search tree with a step-wise, batch-friendly API: the [`Mcts`]
//! struct, its arena and the root's (re)initialisation. The work is split
//! by concept:
//!
//! - `select`: descents with PUCT and virtual loss, collecting leaves;
//! - `expand`: applying evaluations (expansion with the priors);
//! - `backup`: backing values up the path, exact terminal scores;
//! - `decisive`: decisive moves and the root's wins in two;
//! - `report`: what a search yields (statistics, targets, moves, PV);
//! - the root's own policy (PUCT or Gumbel) is [`crate::root`].

mod backup;
mod decisive;
mod expand;
mod report;
mod select;

use rules::Game;

use crate::config::SearchConfig;
use crate::node::{Node, NodeKind};
use crate::root::{Root, RootPolicy, RootSelection, RootView};

pub(crate) use expand::PendingMark;
pub(crate) use report::most_visited;
pub use report::ChildStats;
pub(crate) use select::puct_child;

/// A misuse of the step-wise API, reported instead of panicking.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// An evaluation slice does not match the pending leaves.
    #[error("{what}: expected {expected} entries, got {found}")]
    LengthMismatch {
        /// Which argument (`priors` or `wdl`).
        what: &'static str,
        /// Required length.
        expected: usize,
        /// Length passed.
        found: usize,
    },
    /// [`Mcts::advance`] was given an action that is not legal at the root.
    #[error("action {0} is not legal at the search root")]
    IllegalAction(String),
}

/// [`Mcts::root_unclear`]: the second most visited root child's share of
/// the most visited one's visits at which the choice counts as close.
pub const CLOSE_SHARE: f64 = 0.75;
/// [`Mcts::root_unclear`]: by how much (in `W - L`) another child's value
/// must beat the most visited child's to count as better valued.
pub const UNST_MARGIN: f32 = 0.02;

/// One PUCT Monte-Carlo search tree (AlphaZero, Silver et al. 2018, Science
/// 362:1140).
///
/// Nodes live in an arena `Vec` addressed by `u32` indices (no `Box`), 32
/// bytes each plus one `G::Action` in a parallel arena; index 0 is the root.
///
/// # Step-wise use (batching many trees into one network call)
/// 1. [`Mcts::select_leaves`] descends up to `max_leaves` times with virtual
///    loss and collects the leaves that need a network evaluation; terminal
///    leaves are scored from [`Game::outcome`] and backed up at once.
/// 2. [`Mcts::pending_leaves`] exposes those positions and their legal
///    actions for the caller to batch (with other trees' leaves).
/// 3. [`Mcts::apply_evaluations`] expands the leaves with the priors, backs
///    up the WDLs and removes the virtual losses.
///
/// [`crate::Batch::step`] does this for many trees in lockstep.
///
/// # Values
/// Values are scalars `W - L` in `[-1, 1]` derived from WDL triples. Each
/// node keeps its sums from its own side to move; a leaf value is backed up
/// to each node on the path negated or not by comparing that node's side to
/// move with the leaf's (never by depth parity: a side may move twice).
#[derive(Clone, Debug)]
pub struct Mcts<G: Game> {
    config: SearchConfig,
    /// The root policy (PUCT or Gumbel) and its per-search state.
    root: Root,
    /// Root exploration (noise, forced playouts) on for this search.
    explore: bool,
    /// Target root visits of the current search (Gumbel budget; 0 = unset).
    simulations: u32,
    /// The network's value (`W - L`, root's side to move) of the root, once evaluated.
    root_raw_value: Option<f32>,
    root_state: G,
    /// The arena; `nodes[0]` is the root.
    nodes: Vec<Node>,
    /// `actions[i - 1]` is the action leading to `nodes[i]` (`i >= 1`).
    actions: Vec<G::Action>,
    /// The most nodes the arena grows to by doubling (from
    /// [`crate::Budget::tree_bytes`], [`Mcts::bound_memory`]); `None`:
    /// no bound.
    node_cap: Option<usize>,
    /// The root policy's preparation (noise, Gumbel sampling) still to do
    /// once the root is expanded.
    prepare_pending: bool,
    /// The root's forced wins ([`SearchConfig::win_in_two`],
    /// [`SearchConfig::forcing_depth`]) still to look for once the root is
    /// expanded.
    proof_pending: bool,
    /// Position slots; `[..pending_nodes.len()]` are the pending leaves.
    pending_positions: Vec<G>,
    /// Legal-action slots aligned with `pending_positions`.
    pending_legal: Vec<Vec<G::Action>>,
    /// Arena index of each pending leaf.
    pending_nodes: Vec<u32>,
    /// Pending leaf `i`'s path is `pending_paths[ends[i - 1]..ends[i]]` (root first).
    pending_path_ends: Vec<u32>,
    /// Concatenated root-to-leaf paths of the pending leaves.
    pending_paths: Vec<u32>,
    /// Nodes given a virtual visit by a collision, reverted on apply.
    collision_nodes: Vec<u32>,
    /// Scratch path of the current descent.
    path: Vec<u32>,
    /// Scratch position for the decisive-move test (reused allocation).
    scratch_state: G,
    /// Scratch priors for a decisive expansion.
    scratch_priors: Vec<f32>,
    /// Scratch [`Game::win_candidates`] flags.
    scratch_candidates: Vec<bool>,
}

/// Arenas of at least this many nodes (32 MiB) are freed on another
/// thread ([`Mcts::release`], and the old arena of a reroot).
const FREE_ELSEWHERE_NODES: usize = 1 << 20;

/// Drop `arena` (`nodes` long), on another thread when it is large:
/// freeing hundreds of megabytes takes milliseconds a clock should not
/// pay (lc0's node garbage collector).
fn drop_arena<T: Send + 'static>(arena: T, nodes: usize) {
    if nodes >= FREE_ELSEWHERE_NODES {
        std::thread::spawn(move || drop(arena));
    }
}

impl<G: Game> Mcts<G> {
    /// A tree with only the root `root`, unexpanded (terminal if the game is
    /// over there). Does not validate `config` (see [`SearchConfig::validate`]).
    /// The root selection is `config.root_selection()`. Root noise is
    /// applied once the root is expanded if `config.dirichlet_epsilon > 0`
    /// (see [`Mcts::set_exploration`]).
    pub fn new(root: G, config: &SearchConfig) -> Self {
        let mut tree = Mcts {
            config: config.clone(),
            root: Root::new(config.root_selection(), config),
            explore: true,
            simulations: 0,
            root_raw_value: None,
            nodes: Vec::new(),
            actions: Vec::new(),
            node_cap: None,
            prepare_pending: false,
            proof_pending: false,
            pending_positions: Vec::new(),
            pending_legal: Vec::new(),
            pending_nodes: Vec::new(),
            pending_path_ends: Vec::new(),
            pending_paths: Vec::new(),
            collision_nodes: Vec::new(),
            path: Vec::new(),
            scratch_state: root.clone(),
            scratch_priors: Vec::new(),
            scratch_candidates: Vec::new(),
            root_state: root,
        };
        tree.reset_to_root_state();
        tree
    }

    /// A node proven below the old root (MCTS-Solver) is the new root: keep
    /// its subtree but search it again, as a root is never marked proven.
    /// The descents that stopped at it while proven backed up exact values
    /// without visiting a child, so its visits are cut back to one plus its
    /// children's (a search counts root visits toward its budget), its
    /// win and loss sums in proportion.
    fn reopen_proven_root(&mut self) {
        let kept = 1 + self.nodes[0]
            .children()
            .map(|c| self.nodes[c].visits)
            .sum::<u32>();
        let root = &mut self.nodes[0];
        root.kind = NodeKind::Expanded;
        if root.visits > kept {
            let scale = kept as f32 / root.visits as f32;
            root.win_sum *= scale;
            root.loss_sum *= scale;
            root.visits = kept;
        }
    }

    /// Drop the whole tree and start over from `root_state`.
    fn reset_to_root_state(&mut self) {
        self.nodes.clear();
        self.actions.clear();
        self.nodes.push(Node::leaf(1.0));
        self.root_raw_value = None;
        self.clear_pending();
        self.init_root();
    }

    /// Fix the root's side to move, mark it terminal if the game is over,
    /// and arm the root policy's preparation and the root proofs.
    fn init_root(&mut self) {
        if matches!(
            self.nodes[0].kind,
            NodeKind::ProvenWin | NodeKind::ProvenLoss
        ) {
            self.reopen_proven_root();
        }
        if self.nodes[0].kind.terminal_wdl().is_some() && self.root_state.outcome().is_none() {
            // Scored terminal by the search alone below the old root (a
            // two-fold repetition, a proven win): here the game goes on, so
            // search it afresh (its visits were exact scores, not a tree).
            self.nodes.truncate(1);
            self.actions.clear();
            self.nodes[0] = Node::leaf(1.0);
        }
        let to_move = self.root_state.side_to_move();
        let root = &mut self.nodes[0];
        root.to_move = to_move;
        root.prior = 1.0;
        if root.kind == NodeKind::Unexpanded {
            if let Some(outcome) = self.root_state.outcome() {
                root.kind = NodeKind::terminal(outcome.value_for(to_move));
            } else if self.root_state.legal_vec().is_empty() {
                root.kind = NodeKind::TerminalDraw;
            }
        }
        self.prepare_pending = true;
        self.proof_pending = self.config.win_in_two || self.config.forcing_depth > 0;
        self.root.reset();
    }

    /// Drop the pending leaves and revert the collisions' virtual visits.
    fn clear_pending(&mut self) {
        for &n in &self.collision_nodes {
            if let Some(node) = self.nodes.get_mut(n as usize) {
                node.in_flight = node.in_flight.saturating_sub(1);
            }
        }
        self.collision_nodes.clear();
        self.pending_nodes.clear();
        self.pending_path_ends.clear();
        self.pending_paths.clear();
    }

    /// Choose how the root selects children (default: `config.root_selection()`).
    /// Call it before the search starts.
    pub fn set_root_selection(&mut self, selection: RootSelection) {
        self.root = Root::new(selection, &self.config);
    }

    /// How the root selects children.
    pub fn root_selection(&self) -> RootSelection {
        self.root.selection()
    }

    /// Switch root exploration on or off for the coming search: the root
    /// noise (Dirichlet for a PUCT root, Gumbel for a Gumbel root) and
    /// forced playouts, which run only while this is on **and**
    /// `config.noise_enabled()` (so `true` restores the configured
    /// behaviour). Default on; KataGo's playout cap randomisation switches
    /// it off for fast searches. The
    /// noise part takes effect only if called before the first
    /// [`Mcts::select_leaves`] after the root was set ([`Mcts::new`],
    /// [`Mcts::advance`]) and evaluated.
    pub fn set_exploration(&mut self, on: bool) {
        self.explore = on;
    }

    /// Whether root exploration is on: [`Mcts::set_exploration`] and
    /// `config.noise_enabled()`.
    pub fn exploration(&self) -> bool {
        self.explore && self.config.noise_enabled()
    }

    /// Tell the tree its search budget: the root visits the search will
    /// reach, its node limit in the batched step (which calls this). A
    /// Gumbel root plans sequential halving over `simulations - 1` child
    /// visits (the first simulation is the root's own evaluation); PUCT
    /// ignores it. Unset (0), the Gumbel schedule degrades to one visit per
    /// considered action per phase.
    pub(crate) fn set_simulations(&mut self, simulations: u32) {
        self.simulations = simulations;
    }

    /// The configuration this tree searches with.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The root position.
    pub fn root_state(&self) -> &G {
        &self.root_state
    }

    /// Whether the game is over at the root (nothing to search).
    pub fn is_terminal(&self) -> bool {
        self.nodes[0].kind.terminal_wdl().is_some()
    }

    /// Number of nodes in the arena (memory is about `node_count() * (32 + size_of::<G::Action>())` bytes).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes the tree's nodes use: 32 per node ([`crate::NODE_BYTES`]) and
    /// its action. The arena grows by doubling, so the memory it holds may
    /// reach twice this, except up to a bound set by
    /// [`Mcts::bound_memory`]. What a [`crate::Budget::tree_bytes`] bound
    /// is checked against.
    pub fn memory_bytes(&self) -> u64 {
        (self.nodes.len() * Self::BYTES_PER_NODE) as u64
    }

    /// Bytes the arena holds (its capacity), at least [`Mcts::memory_bytes`].
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> u64 {
        (self.nodes.capacity() * size_of::<Node>()
            + self.actions.capacity() * size_of::<G::Action>()) as u64
    }

    const BYTES_PER_NODE: usize = size_of::<Node>() + size_of::<G::Action>();

    /// Grow the arena by doubling only up to `bytes` ([`Mcts::memory_bytes`]),
    /// then by what each expansion needs, so that a search stopped at a
    /// [`crate::Budget::tree_bytes`] of `bytes` holds about that much;
    /// `None`: grow by doubling. The search loop sets it from its budget.
    pub fn bound_memory(&mut self, bytes: Option<u64>) {
        self.node_cap =
            bytes.map(|b| usize::try_from(b).unwrap_or(usize::MAX) / Self::BYTES_PER_NODE);
    }

    /// Drop the tree, on another thread when it is large (as a reroot
    /// frees its old arena).
    pub fn release(self) {
        let len = self.nodes.len();
        drop_arena(self, len);
    }

    /// Number of leaves collected by [`Mcts::select_leaves`] and not yet applied.
    pub fn num_pending(&self) -> usize {
        self.pending_nodes.len()
    }

    /// Completed visits of the root: evaluations and terminal scorings
    /// backed up through it, including those kept from a reused subtree.
    /// After a search from a fresh tree this equals the number of
    /// simulations; the root children's visits sum to one less (the root's
    /// own evaluation).
    pub fn visits(&self) -> u32 {
        self.nodes[0].visits
    }

    /// How many visits the most visited root child leads the second by;
    /// `u32::MAX` when the root has one child (a forced move: nothing can
    /// overtake it); `None` when the root has no children yet or its
    /// policy does not play the most visited child (Gumbel). [`crate::Stopper`] reads
    /// it to stop a timed search whose move can no longer change.
    pub fn root_visit_lead(&self) -> Option<u32> {
        if self.root.selection() != RootSelection::Puct {
            return None;
        }
        let mut visits = self.root_view().child_visits();
        match visits.len() {
            0 => return None,
            1 => return Some(u32::MAX),
            _ => {}
        }
        visits.sort_unstable_by(|a, b| b.cmp(a));
        Some(visits[0] - visits[1])
    }

    /// Whether the root's choice is still unclear, so a timed search may
    /// think longer ([`crate::Budget::time_max`]): the most visited child
    /// (the move played) is not the best valued of the children with at
    /// least a quarter of its visits, or the second most visited child has
    /// [`CLOSE_SHARE`] of its visits or more. These are the "UNST" and
    /// "CLOSE" extensions of Baier and Winands, "Time Management for
    /// Monte Carlo Tree Search", IEEE TCIAIG 8(3), 2016. Never with fewer
    /// than two visited children, a most visited child proven won, or a
    /// root policy that does not play the most visited child (Gumbel).
    pub fn root_unclear(&self) -> bool {
        if self.root.selection() != RootSelection::Puct {
            return false;
        }
        let children = self.root_children();
        let mut by_visits: Vec<&ChildStats<G::Action>> =
            children.iter().filter(|c| c.visits > 0).collect();
        if by_visits.len() < 2 {
            return false;
        }
        by_visits.sort_by_key(|c| std::cmp::Reverse(c.visits));
        let (best, second) = (by_visits[0], by_visits[1]);
        if best.proven == Some(1.0) {
            return false;
        }
        let best_q = best.q.unwrap_or(0.0);
        let better_valued = by_visits[1..]
            .iter()
            .any(|c| c.visits * 4 >= best.visits && c.q.is_some_and(|q| q > best_q + UNST_MARGIN));
        let close = f64::from(second.visits) >= CLOSE_SHARE * f64::from(best.visits);
        better_valued || close
    }

    /// The tree as the root policy reads it.
    fn root_view(&self) -> RootView<'_> {
        RootView {
            nodes: &self.nodes,
            config: &self.config,
            explore: self.exploration(),
            simulations: self.simulations,
            raw_value: self.root_raw_value,
        }
    }

    /// Play `action` at the root and keep its subtree (visit counts and
    /// values intact) as the new tree. Pending leaves are discarded and all
    /// virtual losses cleared. Root noise is armed again for the new root
    /// when enabled (applied at the next [`Mcts::select_leaves`]); the old
    /// root's noise does not carry over, since only the old root's children
    /// had noisy priors and the new root's children never did. A Gumbel
    /// root keeps no subtree: the tree restarts from the new position, as
    /// every search of the paper does.
    ///
    /// # Errors
    /// [`SearchError::IllegalAction`] if `action` is not legal at the root;
    /// the tree is then unchanged.
    pub fn advance(&mut self, action: G::Action) -> Result<(), SearchError> {
        let root = self.nodes[0];
        let child = root.children().find(|&c| self.actions[c - 1] == action);
        match child {
            Some(c) if self.root.keeps_subtree() => {
                self.clear_pending();
                self.root_state.play(action);
                self.reroot(c);
                self.init_root();
            }
            Some(_) => {
                self.root_state.play(action);
                self.reset_to_root_state();
            }
            None => {
                let legal = root.kind == NodeKind::Unexpanded
                    && self.root_state.legal_vec().contains(&action);
                if !legal {
                    return Err(SearchError::IllegalAction(format!("{action:?}")));
                }
                self.root_state.play(action);
                self.reset_to_root_state();
            }
        }
        Ok(())
    }

    /// Replace the arena by the subtree under `new_root`, renumbered
    /// breadth-first (children blocks stay contiguous), in-flight counts zeroed.
    ///
    /// The new arena reserves the old one's length (address space only:
    /// pages are committed as they are written), so that it is written
    /// once rather than regrown by doubling; a large old arena is freed
    /// on another thread (lc0's node garbage collector), so that neither
    /// costs the search's clock much after a long search or a ponder.
    fn reroot(&mut self, new_root: usize) {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut actions = Vec::with_capacity(self.actions.len());
        let mut root = self.nodes[new_root];
        root.in_flight = 0;
        nodes.push(root);
        let mut i = 0;
        while i < nodes.len() {
            let old = nodes[i];
            if old.kind.is_expanded() {
                let start = nodes.len();
                for c in old.children() {
                    let mut child = self.nodes[c];
                    child.in_flight = 0;
                    nodes.push(child);
                    actions.push(self.actions[c - 1]);
                }
                // Fits: the new arena is no larger than the old one.
                nodes[i].first_child = start as u32;
            }
            i += 1;
        }
        let old = (
            std::mem::replace(&mut self.nodes, nodes),
            std::mem::replace(&mut self.actions, actions),
        );
        let len = old.0.len();
        drop_arena(old, len);
    }

    #[cfg(test)]
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Hand-built statistics in tests.
    #[cfg(test)]
    pub(crate) fn nodes_mut(&mut self) -> &mut [Node] {
        &mut self.nodes
    }
}
