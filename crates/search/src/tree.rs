//! One PUCT search tree with a step-wise, batch-friendly API.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};
use rules::Game;

use crate::config::SearchConfig;
use crate::evaluator::{Wdl, DRAW_WDL};
use crate::gumbel;
use crate::node::{wdl_for, Node, NodeKind};

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

/// How the root picks the child to descend into (inner nodes always use PUCT).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum RootSelection {
    /// The same PUCT rule as every inner node (AlphaZero), with Dirichlet
    /// root noise and optionally KataGo's forced playouts.
    #[default]
    Puct,
    /// Gumbel AlphaZero (Danihelka et al., ICLR 2022, "Policy improvement by
    /// planning with Gumbel"; reference implementation mctx
    /// `gumbel_muzero_policy`):
    ///
    /// - at the first step after the root's evaluation, Gumbel noise
    ///   `g(a) ~ Gumbel(0, 1)` is drawn per root action when root noise is on
    ///   (`g = 0` otherwise, mctx `gumbel_scale = 0`), and the `min(m, legal)`
    ///   actions with the largest `g + logits` are considered (Gumbel-top-k);
    /// - sequential halving ([`crate::sequential_halving`]) spreads the
    ///   `simulations - 1` root-child visits of the search (the first
    ///   simulation evaluates the root; see [`Mcts::set_simulations`]) over
    ///   them: a descent goes to the considered action with the
    ///   scheduled visit count ([`crate::considered_visit`]) and the largest
    ///   `g + logits + sigma(q_hat)`, `q_hat` the completed Q
    ///   ([`crate::completed_q`]), `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`;
    /// - [`Mcts::policy_target`] is the improved policy
    ///   `softmax(logits + sigma(q_hat))` over all legal actions, and
    ///   [`Mcts::choose_action`] the paper's action: among the most visited
    ///   actions, the largest `g + logits + sigma(q_hat)`.
    ///
    /// Logits are `ln(prior)`; no Dirichlet noise is mixed into the priors.
    /// Each search starts from a fresh tree ([`Mcts::advance`] keeps no
    /// subtree), as in the paper, so the schedule counts from zero.
    Gumbel {
        /// Number of actions sampled at the root (`>= 1`; paper: 16).
        m: u32,
        /// `c_visit` of `sigma` (paper: 50).
        c_visit: f32,
        /// `c_scale` of `sigma` (paper: 1.0).
        c_scale: f32,
        /// Min-max normalise the completed Q-values (mctx default) rather
        /// than map `[-1, 1]` to `[0, 1]` linearly.
        rescale_q: bool,
    },
}

/// The Gumbel root's per-search state, aligned with the root's children.
#[derive(Clone, Debug)]
struct GumbelRoot {
    /// Gumbel noise per child (zeros when root noise is off).
    g: Vec<f32>,
    /// `ln(prior)` per child.
    logits: Vec<f32>,
    /// Child offsets (from `first_child`) of the considered actions, best
    /// `g + logits` first.
    considered: Vec<u32>,
}

/// Statistics of one root child, from the **root's side to move**.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildStats<A> {
    /// The action leading to this child.
    pub action: A,
    /// Completed visits.
    pub visits: u32,
    /// Prior probability used by the search (including root noise when on).
    pub prior: f32,
    /// Mean value `W - L` in `[-1, 1]` for the root's side to move; `None` if unvisited.
    pub q: Option<f32>,
    /// Mean `[W, D, L]` for the root's side to move; `None` if unvisited.
    pub wdl: Option<Wdl>,
}

/// What one descent produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Descent {
    /// A new leaf awaits evaluation.
    Pending,
    /// A terminal node was reached and backed up at once.
    Terminal,
    /// The descent ended on a leaf already awaiting evaluation.
    Collision,
}

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
/// [`crate::run_batched`] does this for many trees in lockstep.
///
/// # Values
/// Values are scalars `W - L` in `[-1, 1]` derived from WDL triples. Each
/// node keeps its sums from its own side to move; a leaf value is backed up
/// to each node on the path negated or not by comparing that node's side to
/// move with the leaf's (never by depth parity: a side may move twice).
#[derive(Clone, Debug)]
pub struct Mcts<G: Game> {
    config: SearchConfig,
    root_selection: RootSelection,
    /// Root exploration (noise, forced playouts) on for this search.
    explore: bool,
    /// Target root visits of the current search (Gumbel budget; 0 = unset).
    simulations: u32,
    /// The network's value (`W - L`, root's side to move) of the root, once evaluated.
    root_raw_value: Option<f32>,
    /// Gumbel root state, once prepared for this search.
    gumbel: Option<GumbelRoot>,
    root_state: G,
    /// The arena; `nodes[0]` is the root.
    nodes: Vec<Node>,
    /// `actions[i - 1]` is the action leading to `nodes[i]` (`i >= 1`).
    actions: Vec<G::Action>,
    /// Root preparation (noise, Gumbel sampling) still to do once the root is expanded.
    noise_pending: bool,
    /// The root's forced wins in two ([`SearchConfig::win_in_two`]) still
    /// to look for once the root is expanded.
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

/// Clamp negatives and renormalise a WDL; a non-finite or zero one is a draw.
fn sanitize_wdl(wdl: Wdl) -> Wdl {
    if wdl.iter().any(|x| !x.is_finite()) {
        return DRAW_WDL;
    }
    let w = wdl.map(|x| x.max(0.0));
    let sum = w[0] + w[1] + w[2];
    if sum > 0.0 {
        [w[0] / sum, w[1] / sum, w[2] / sum]
    } else {
        DRAW_WDL
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
            root_selection: config.root_selection(),
            explore: true,
            simulations: 0,
            root_raw_value: None,
            gumbel: None,
            nodes: Vec::new(),
            actions: Vec::new(),
            noise_pending: false,
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
    /// and arm root noise.
    fn init_root(&mut self) {
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
        self.noise_pending = true;
        self.proof_pending = self.config.win_in_two;
        self.gumbel = None;
    }

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
        self.root_selection = selection;
        self.gumbel = None;
    }

    /// How the root selects children.
    pub fn root_selection(&self) -> RootSelection {
        self.root_selection
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
    /// reach, as passed to [`crate::run_batched`] (which calls this). A
    /// Gumbel root plans sequential halving over `simulations - 1` child
    /// visits (the first simulation is the root's own evaluation); PUCT
    /// ignores it. Unset (0), the Gumbel schedule degrades to one visit per
    /// considered action per phase.
    pub fn set_simulations(&mut self, simulations: u32) {
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

    /// PUCT child choice at `node` (Silver et al. 2018, Methods):
    /// `argmax_a Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a))`, where
    ///
    /// - `N(s)` is the parent's visits plus its in-flight descents;
    /// - `N(s,a)` is the child's visits plus `virtual_loss` per in-flight descent;
    /// - `Q(s,a)` is the child's mean value from the parent's side to move,
    ///   each virtual visit counting as a loss (-1); an unvisited child gets
    ///   first-play urgency `Q(s) - fpu_reduction` (Leela Chess Zero, KataGo).
    ///
    /// Ties go to the first child in legal-action order.
    ///
    /// With `forced_k = Some(k)` (KataGo forced playouts, Wu 2019 section
    /// 3.1; the root only), a child with at least one completed visit and
    /// `N(s,a) < sqrt(k * P(s,a) * sum_b N(s,b))` (completed visits in the
    /// sum) is chosen outright, the first such in legal order.
    fn select_child(&self, node: usize, forced_k: Option<f32>) -> usize {
        let parent = &self.nodes[node];
        let c_puct = self.config.c_puct;
        let vl = self.config.virtual_loss;
        let sqrt_n = ((parent.visits + parent.in_flight) as f32).sqrt();
        let fpu = parent.q().unwrap_or(0.0) - self.config.fpu_reduction;
        let child_visits: f32 = match forced_k {
            Some(_) => parent.children().map(|c| self.nodes[c].visits as f32).sum(),
            None => 0.0,
        };
        let mut best = parent.first_child as usize;
        let mut best_score = f32::NEG_INFINITY;
        for c in parent.children() {
            let child = &self.nodes[c];
            let virtual_visits = vl * child.in_flight as f32;
            let n_eff = child.visits as f32 + virtual_visits;
            if let Some(k) = forced_k {
                if child.visits > 0 && n_eff < (k * child.prior * child_visits).sqrt() {
                    return c;
                }
            }
            let q = if child.visits == 0 && virtual_visits <= 0.0 {
                fpu
            } else {
                (child.seen_by(parent.to_move).value_sum() - virtual_visits) / n_eff
            };
            let score = q + c_puct * child.prior * sqrt_n / (1.0 + n_eff);
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }

    /// Child choice at the root; the plug point for other root policies.
    fn select_root_child(&self) -> usize {
        match (self.root_selection, &self.gumbel) {
            (RootSelection::Gumbel { m, .. }, Some(state)) => self.select_gumbel_child(m, state),
            _ => {
                let forced = (self.config.forced_playouts && self.exploration())
                    .then_some(self.config.forced_playouts_k);
                self.select_child(0, forced)
            }
        }
    }

    /// `sigma(q_hat)` per root child (the paper's eq. 8 applied to the
    /// completed Q of eq. 10), or `None` for a PUCT root.
    fn root_sigma_q(&self) -> Option<Vec<f32>> {
        let RootSelection::Gumbel {
            c_visit,
            c_scale,
            rescale_q,
            ..
        } = self.root_selection
        else {
            return None;
        };
        let root = &self.nodes[0];
        let n = root.children().len();
        let (mut priors, mut visits, mut q) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for c in root.children() {
            let child = &self.nodes[c];
            priors.push(child.prior);
            visits.push(child.visits);
            q.push(child.seen_by(root.to_move).q().unwrap_or(0.0));
        }
        let raw = self.root_raw_value.or_else(|| root.q()).unwrap_or(0.0);
        let completed = gumbel::completed_q(raw, &priors, &visits, &q, rescale_q);
        let max_visits = visits.iter().copied().max().unwrap_or(0);
        let scale = gumbel::sigma_scale(c_visit, c_scale, max_visits);
        Some(completed.iter().map(|x| scale * x).collect())
    }

    /// Sequential halving with Gumbel at the root (mctx
    /// `gumbel_muzero_root_action_selection`): among the considered children
    /// whose visits (completed plus in flight) equal the scheduled
    /// [`gumbel::considered_visit`] for the current simulation index (the
    /// sum of those counts over all children), the one with the largest
    /// `max(-1e9, g + logits + sigma(q_hat))` (ties: legal order). If none
    /// has the scheduled count (cannot happen from a fresh tree), those
    /// with the fewest visits compete instead.
    fn select_gumbel_child(&self, m: u32, state: &GumbelRoot) -> usize {
        let root = &self.nodes[0];
        let first = root.first_child as usize;
        let count = |c: usize| {
            let node = &self.nodes[c];
            node.visits + node.in_flight
        };
        let index: u64 = root.children().map(|c| u64::from(count(c))).sum();
        let m_eff = m.min(root.num_children);
        let target = gumbel::considered_visit(m_eff, self.simulations.saturating_sub(1), index);
        let sigma = self.root_sigma_q().unwrap_or_default();
        let has_target = state
            .considered
            .iter()
            .any(|&o| count(first + o as usize) == target);
        let wanted = if has_target {
            target
        } else {
            state
                .considered
                .iter()
                .map(|&o| count(first + o as usize))
                .min()
                .unwrap_or(0)
        };
        let mut best: Option<(usize, f32)> = None;
        for &o in &state.considered {
            let o = o as usize;
            if count(first + o) != wanted {
                continue;
            }
            let score = (state.g[o] + state.logits[o] + sigma.get(o).copied().unwrap_or(0.0))
                .max(gumbel::LOW_SCORE);
            let better = match best {
                None => true,
                Some((b, s)) => score > s || (score == s && o < b),
            };
            if better {
                best = Some((o, score));
            }
        }
        first + best.map_or(0, |(o, _)| o)
    }

    /// Prepare the Gumbel root for this search: logits, Gumbel noise (when
    /// exploring) and the considered actions (Gumbel-top-k by `g + logits`).
    fn prepare_gumbel<R: Rng + ?Sized>(&mut self, m: u32, rng: &mut R) {
        let children = self.nodes[0].children();
        let logits: Vec<f32> = children
            .clone()
            .map(|c| gumbel::logit(self.nodes[c].prior))
            .collect();
        let g: Vec<f32> = match (self.exploration(), Gumbel::new(0.0f32, 1.0f32)) {
            (true, Ok(dist)) => logits.iter().map(|_| dist.sample(rng)).collect(),
            _ => vec![0.0; logits.len()],
        };
        let mut order: Vec<u32> = (0..logits.len() as u32).collect();
        let key = |o: &u32| g[*o as usize] + logits[*o as usize];
        // Stable sort: ties keep legal order.
        order.sort_by(|a, b| key(b).total_cmp(&key(a)));
        order.truncate(m.max(1) as usize);
        self.gumbel = Some(GumbelRoot {
            g,
            logits,
            considered: order,
        });
    }

    /// Add one visit with `wdl` (from `leaf_to_move`'s view) to every node
    /// of `path`, flipping W and L for nodes whose side to move differs from
    /// the leaf's. With `undo_virtual`, also remove one in-flight descent.
    fn backup(
        nodes: &mut [Node],
        path: &[u32],
        leaf_to_move: rules::Player,
        wdl: Wdl,
        undo_virtual: bool,
    ) {
        for &n in path {
            let node = &mut nodes[n as usize];
            let [w, _, l] = wdl_for(wdl, leaf_to_move, node.to_move);
            node.win_sum += w;
            node.loss_sum += l;
            node.visits += 1;
            if undo_virtual {
                node.in_flight = node.in_flight.saturating_sub(1);
            }
        }
    }

    /// One descent from the root into the pending slot `slot`.
    fn descend(&mut self, slot: usize) -> Descent {
        if slot < self.pending_positions.len() {
            self.pending_positions[slot].clone_from(&self.root_state);
        } else {
            self.pending_positions.push(self.root_state.clone());
            self.pending_legal.push(Vec::new());
        }
        self.path.clear();
        let mut node = 0usize;
        loop {
            self.path.push(node as u32);
            match self.nodes[node].kind {
                NodeKind::Expanded => {
                    let child = if node == 0 {
                        self.select_root_child()
                    } else {
                        self.select_child(node, None)
                    };
                    self.pending_positions[slot].play(self.actions[child - 1]);
                    node = child;
                }
                NodeKind::Unexpanded => {
                    if self.nodes[node].in_flight > 0 {
                        for &n in &self.path {
                            self.nodes[n as usize].in_flight += 1;
                        }
                        self.collision_nodes.extend_from_slice(&self.path);
                        return Descent::Collision;
                    }
                    let state = &self.pending_positions[slot];
                    let to_move = state.side_to_move();
                    self.nodes[node].to_move = to_move;
                    let kind = match state.outcome() {
                        Some(outcome) => NodeKind::terminal(outcome.value_for(to_move)),
                        None if node != 0
                            && self.config.two_fold_draws
                            && state.repeats_earlier() =>
                        {
                            NodeKind::TerminalDraw
                        }
                        None => {
                            state.legal_actions(&mut self.pending_legal[slot]);
                            if self.pending_legal[slot].is_empty() {
                                // No legal action but no outcome: a rules gap; score a draw.
                                NodeKind::TerminalDraw
                            } else if self.config.decisive_moves && self.expand_decisive(node, slot)
                            {
                                let wdl = self.terminal_value(NodeKind::TerminalWin, to_move);
                                Self::backup(&mut self.nodes, &self.path, to_move, wdl, false);
                                return Descent::Terminal;
                            } else {
                                for &n in &self.path {
                                    self.nodes[n as usize].in_flight += 1;
                                }
                                self.pending_nodes.push(node as u32);
                                self.pending_paths.extend_from_slice(&self.path);
                                self.pending_path_ends.push(self.pending_paths.len() as u32);
                                return Descent::Pending;
                            }
                        }
                    };
                    self.nodes[node].kind = kind;
                    let wdl = self.terminal_value(kind, to_move);
                    Self::backup(&mut self.nodes, &self.path, to_move, wdl, false);
                    return Descent::Terminal;
                }
                kind => {
                    let to_move = self.nodes[node].to_move;
                    let wdl = self.terminal_value(kind, to_move);
                    Self::backup(&mut self.nodes, &self.path, to_move, wdl, false);
                    return Descent::Terminal;
                }
            }
        }
    }

    /// Mark each root child whose action wins in two
    /// ([`SearchConfig::win_in_two`]) as a proven loss for its side to move,
    /// so every later visit backs up an exact win for the root player, and
    /// give the proven children the whole prior (as a decisive expansion
    /// does), so the search visits them first.
    fn prove_root_wins(&mut self) {
        let me = self.root_state.side_to_move();
        let mut budget = crate::proof::PROOF_BUDGET;
        let mut proven = Vec::new();
        for c in self.nodes[0].children() {
            if self.nodes[c].kind.terminal_wdl().is_some() {
                continue;
            }
            self.scratch_state.clone_from(&self.root_state);
            self.scratch_state.play(self.actions[c - 1]);
            let after = &self.scratch_state;
            if after.outcome().is_some() || after.side_to_move() == me {
                continue; // Scored by the search itself, or our turn goes on.
            }
            if crate::proof::replies_all_lose(after, me, &mut budget) {
                self.nodes[c].kind = NodeKind::TerminalLoss;
                self.nodes[c].to_move = me.opponent();
                proven.push(c);
            }
            if budget == 0 {
                break;
            }
        }
        if !proven.is_empty() {
            let share = 1.0 / proven.len() as f32;
            for c in self.nodes[0].children() {
                self.nodes[c].prior = if proven.contains(&c) { share } else { 0.0 };
            }
        }
    }

    /// Mix Dirichlet noise into the root priors (Silver et al. 2018:
    /// `P(s,a) = (1 - epsilon) p_a + epsilon * eta_a`, `eta ~ Dir(alpha)`),
    /// sampled as normalised `Gamma(alpha, 1)` draws.
    fn apply_root_noise<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.noise_pending = false;
        let children = self.nodes[0].children();
        if children.is_empty() {
            return;
        }
        let Ok(gamma) = Gamma::new(self.config.dirichlet_alpha, 1.0) else {
            return;
        };
        let eta: Vec<f32> = children.clone().map(|_| gamma.sample(rng)).collect();
        let sum: f32 = eta.iter().sum();
        if !(sum.is_finite() && sum > 0.0) {
            return;
        }
        let eps = self.config.dirichlet_epsilon;
        for (c, e) in children.zip(eta) {
            let node = &mut self.nodes[c];
            node.prior = (1.0 - eps) * node.prior + eps * e / sum;
        }
    }

    /// WDL of a terminal node for its side to move `to_move`: exact for a
    /// win or loss; a draw shifted by [`SearchConfig::contempt`] against
    /// the player to move at the root.
    fn terminal_value(&self, kind: NodeKind, to_move: rules::Player) -> Wdl {
        let c = self.config.contempt;
        match kind.terminal_wdl() {
            Some(wdl) if wdl != DRAW_WDL || c == 0.0 => wdl,
            _ if c == 0.0 => DRAW_WDL,
            _ if to_move == self.root_state.side_to_move() => [0.0, 1.0 - c, c],
            _ => [c, 1.0 - c, 0.0],
        }
    }

    /// Descend up to `max_leaves` times, each with virtual loss on its path,
    /// and collect the leaves needing evaluation. Terminal leaves are scored
    /// exactly and backed up at once (each counts as a completed visit);
    /// a descent that ends on an already pending leaf (a collision) keeps
    /// its virtual loss until [`Mcts::apply_evaluations`], so later descents
    /// spread to other leaves. Applies pending root noise first, using `rng`.
    ///
    /// Returns the number of leaves added to [`Mcts::pending_leaves`]. May be
    /// called again before applying; leaves accumulate.
    pub fn select_leaves<R: Rng + ?Sized>(&mut self, max_leaves: usize, rng: &mut R) -> usize {
        if self.noise_pending && self.nodes[0].kind == NodeKind::Expanded {
            match self.root_selection {
                RootSelection::Gumbel { m, .. } => {
                    self.noise_pending = false;
                    self.prepare_gumbel(m, rng);
                }
                RootSelection::Puct => {
                    if self.exploration() {
                        self.apply_root_noise(rng);
                    } else {
                        self.noise_pending = false;
                    }
                }
            }
        }
        if self.proof_pending && self.nodes[0].kind == NodeKind::Expanded {
            self.proof_pending = false;
            self.prove_root_wins();
        }
        let before = self.pending_nodes.len();
        for _ in 0..max_leaves {
            let slot = self.pending_nodes.len();
            self.descend(slot);
        }
        self.pending_nodes.len() - before
    }

    /// The leaves awaiting evaluation: `(positions, legal)`, both of length
    /// [`Mcts::num_pending`], `legal[i]` the non-empty legal actions of
    /// `positions[i]` in [`Game::legal_actions`] order. The buffers are
    /// reused between steps, so no allocation happens per leaf once warm.
    pub fn pending_leaves(&self) -> (&[G], &[Vec<G::Action>]) {
        let n = self.pending_nodes.len();
        (&self.pending_positions[..n], &self.pending_legal[..n])
    }

    /// Expand the pending leaves and back up their values.
    ///
    /// - `priors`: `[sum_i legal[i].len()]`, one block per pending leaf in
    ///   order, aligned with its legal actions (renormalised; uniform if no
    ///   positive finite entry).
    /// - `wdl`: `[num_pending]`, `[W, D, L]` from each leaf's side to move
    ///   (sanitised: negatives clamped, renormalised, non-finite = draw).
    ///
    /// Removes all virtual losses (including collisions') and clears the
    /// pending list.
    ///
    /// # Errors
    /// [`SearchError::LengthMismatch`] if a slice has the wrong length; the
    /// tree is then unchanged.
    pub fn apply_evaluations(&mut self, priors: &[f32], wdl: &[Wdl]) -> Result<(), SearchError> {
        let n = self.pending_nodes.len();
        if wdl.len() != n {
            return Err(SearchError::LengthMismatch {
                what: "wdl",
                expected: n,
                found: wdl.len(),
            });
        }
        let total: usize = self.pending_legal[..n].iter().map(Vec::len).sum();
        if priors.len() != total {
            return Err(SearchError::LengthMismatch {
                what: "priors",
                expected: total,
                found: priors.len(),
            });
        }
        self.apply_unchecked(priors, wdl);
        Ok(())
    }

    /// Expand `leaf` with children for `legal` and priors `block` (aligned,
    /// raised to `inv_temperature` ([`SearchConfig::policy_temperature`])
    /// and renormalised; uniform if no positive finite entry). Skipped only
    /// if the arena would outgrow `u32` indices (the leaf then stays a leaf).
    fn expand(
        nodes: &mut Vec<Node>,
        actions: &mut Vec<G::Action>,
        leaf: usize,
        legal: &[G::Action],
        block: &[f32],
        inv_temperature: f32,
    ) {
        let first = nodes.len();
        let (Ok(first_child), Ok(count)) = (u32::try_from(first), u32::try_from(legal.len()))
        else {
            return;
        };
        if u32::try_from(first + legal.len()).is_err() {
            return;
        }
        // (p / p_max)^(1/T): dividing by the largest prior first keeps the
        // top action at 1, so a small T cannot underflow every prior to 0.
        let p_max = block
            .iter()
            .filter(|p| p.is_finite() && **p > 0.0)
            .fold(0.0f32, |m, &p| m.max(p));
        let shape = |p: f32| {
            if inv_temperature == 1.0 {
                p
            } else {
                (p / p_max).powf(inv_temperature)
            }
        };
        let sum: f32 = block
            .iter()
            .filter(|p| p.is_finite() && **p > 0.0)
            .map(|&p| shape(p))
            .sum();
        let uniform = 1.0 / legal.len() as f32;
        for &p in block {
            let prior = if sum > 0.0 && p.is_finite() && p > 0.0 {
                shape(p) / sum
            } else if sum > 0.0 {
                0.0
            } else {
                uniform
            };
            nodes.push(Node::leaf(prior));
        }
        actions.extend_from_slice(legal);
        let node = &mut nodes[leaf];
        node.first_child = first_child;
        node.num_children = count;
        node.kind = NodeKind::Expanded;
    }

    /// The decisive-move test ([`SearchConfig::decisive_moves`]) for leaf
    /// `leaf` whose position and legal actions are in pending slot `slot`:
    /// if some action wins at once for the side to move, expand the leaf
    /// with the prior spread evenly over the winning actions and return
    /// true (the caller backs up an exact win).
    fn expand_decisive(&mut self, leaf: usize, slot: usize) -> bool {
        let state = &self.pending_positions[slot];
        let legal = &self.pending_legal[slot];
        // Only the actions the rules say might win are played out.
        state.win_candidates(legal, &mut self.scratch_candidates);
        self.scratch_priors.clear();
        let mut wins = 0usize;
        for (&action, &candidate) in legal.iter().zip(&self.scratch_candidates) {
            let win = candidate && crate::proof::wins_now(state, action, &mut self.scratch_state);
            wins += usize::from(win);
            self.scratch_priors.push(if win { 1.0 } else { 0.0 });
        }
        if wins == 0 {
            return false;
        }
        Self::expand(
            &mut self.nodes,
            &mut self.actions,
            leaf,
            legal,
            &self.scratch_priors,
            1.0,
        );
        self.nodes[leaf].kind == NodeKind::Expanded
    }

    /// [`Mcts::apply_evaluations`] with lengths already checked by the caller.
    pub(crate) fn apply_unchecked(&mut self, priors: &[f32], wdl: &[Wdl]) {
        let mut offset = 0usize;
        let mut path_start = 0usize;
        for (i, (&leaf, legal)) in self
            .pending_nodes
            .iter()
            .zip(&self.pending_legal)
            .enumerate()
        {
            let leaf = leaf as usize;
            let block = &priors[offset..offset + legal.len()];
            offset += legal.len();
            Self::expand(
                &mut self.nodes,
                &mut self.actions,
                leaf,
                legal,
                block,
                1.0 / self.config.policy_temperature,
            );
            let path_end = self.pending_path_ends[i] as usize;
            let to_move = self.nodes[leaf].to_move;
            let value = sanitize_wdl(wdl[i]);
            if leaf == 0 {
                self.root_raw_value = Some(value[0] - value[2]);
            }
            Self::backup(
                &mut self.nodes,
                &self.pending_paths[path_start..path_end],
                to_move,
                value,
                true,
            );
            path_start = path_end;
        }
        self.clear_pending();
    }

    /// Statistics of every root child, in legal-action order, from the
    /// root's side to move. Empty while the root is unexpanded or terminal.
    pub fn root_children(&self) -> Vec<ChildStats<G::Action>> {
        let root = &self.nodes[0];
        root.children()
            .map(|c| {
                let child = &self.nodes[c];
                let seen = child.seen_by(root.to_move);
                ChildStats {
                    action: self.actions[c - 1],
                    visits: child.visits,
                    prior: child.prior,
                    q: seen.q(),
                    wdl: seen.wdl(),
                }
            })
            .collect()
    }

    /// The root's `[W, D, L]` estimate for its side to move: the mean of all
    /// values backed up through it; exact at a terminal root; a draw
    /// `[0, 1, 0]` before any visit.
    pub fn root_wdl(&self) -> Wdl {
        let root = &self.nodes[0];
        root.kind
            .terminal_wdl()
            .or_else(|| root.wdl())
            .unwrap_or(DRAW_WDL)
    }

    /// The policy target, one entry per legal action in legal-action order,
    /// summing to 1; empty when the root is unexpanded or terminal.
    ///
    /// - PUCT root (AlphaZero): root visit counts normalised; with
    ///   `config.forced_playouts`, the counts after KataGo's policy target
    ///   pruning ([`Mcts::pruned_root_visits`]). Uniform when no child has
    ///   been visited.
    /// - Gumbel root: the improved policy `softmax(logits + sigma(q_hat))`
    ///   (Danihelka et al. 2022, eq. 11; see [`RootSelection::Gumbel`]).
    pub fn policy_target(&self) -> Vec<(G::Action, f32)> {
        let children = self.nodes[0].children();
        if let Some(sigma) = self.root_sigma_q() {
            let logits: Vec<f32> = children
                .clone()
                .map(|c| gumbel::logit(self.nodes[c].prior))
                .collect();
            let policy = gumbel::improved_policy(&logits, &sigma, 1.0);
            return children
                .zip(policy)
                .map(|(c, p)| (self.actions[c - 1], p))
                .collect();
        }
        let counts = self.pruned_root_visits();
        let total: f64 = counts.iter().map(|&v| f64::from(v)).sum();
        let n = children.len() as f32;
        children
            .zip(counts)
            .map(|(c, v)| {
                let p = if total > 0.0 {
                    (f64::from(v) / total) as f32
                } else {
                    1.0 / n
                };
                (self.actions[c - 1], p)
            })
            .collect()
    }

    /// Root child visit counts in legal-action order, after KataGo's policy
    /// target pruning when `config.forced_playouts` is on (Wu 2019, section
    /// 3.1), otherwise as they are. Pruning keeps the most visited child
    /// `c*` ([`Mcts::principal_variation`]'s first move) and takes from
    /// every other child `c` as many visits `d <= n_forced(c) = sqrt(k * P(c) * sum_b N(b))`
    /// as possible while `PUCT(c) < PUCT(c*)` still holds with `N(c) - d`
    /// visits, where `PUCT(x) = Q(x) + c_puct * P(x) * sqrt(N_root) / (1 + N(x))`
    /// with the final counts (no first-play urgency: unvisited children
    /// stay at 0). A child left with a single visit after losing some is
    /// pruned to 0.
    pub fn pruned_root_visits(&self) -> Vec<u32> {
        let root = &self.nodes[0];
        let raw: Vec<u32> = root.children().map(|c| self.nodes[c].visits).collect();
        if !self.config.forced_playouts || !matches!(self.root_selection, RootSelection::Puct) {
            return raw;
        }
        let Some(best) = self.best_child(0) else {
            return raw;
        };
        let first = root.first_child as usize;
        let c_puct = self.config.c_puct;
        let k = self.config.forced_playouts_k;
        let sqrt_root = (root.visits as f32).sqrt();
        let sum_n: f32 = raw.iter().map(|&v| v as f32).sum();
        let q_root = |c: usize| self.nodes[c].seen_by(root.to_move).q().unwrap_or(0.0);
        let star = &self.nodes[best];
        let puct_star = q_root(best) + c_puct * star.prior * sqrt_root / (1.0 + star.visits as f32);
        raw.iter()
            .enumerate()
            .map(|(i, &n)| {
                let c = first + i;
                if c == best || n == 0 {
                    return n;
                }
                let prior = self.nodes[c].prior;
                let n_forced = (k * prior * sum_n).sqrt();
                let max_cut = n_forced.floor().min(n as f32) as u32;
                let gap = puct_star - q_root(c);
                if gap.is_nan() || gap <= 0.0 || max_cut == 0 {
                    return n;
                }
                // PUCT(c) with n' visits < PUCT(c*)  <=>  n' > c_puct * P(c) * sqrt(N_root) / gap - 1.
                let bound = c_puct * prior * sqrt_root / gap - 1.0;
                let min_keep = if bound < 0.0 {
                    0
                } else if bound >= n as f32 {
                    n
                } else {
                    bound.floor() as u32 + 1
                };
                let kept = min_keep.max(n - max_cut).min(n);
                if kept < n && kept <= 1 {
                    0
                } else {
                    kept
                }
            })
            .collect()
    }

    /// The most visited child of `node` (ties: higher prior, then first).
    fn best_child(&self, node: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for c in self.nodes[node].children() {
            let better = match best {
                None => true,
                Some(b) => {
                    let (x, y) = (&self.nodes[c], &self.nodes[b]);
                    x.visits > y.visits || (x.visits == y.visits && x.prior > y.prior)
                }
            };
            if better {
                best = Some(c);
            }
        }
        best
    }

    /// The action to play: with `temperature <= 0` (or non-finite) the most
    /// visited root child (ties: higher prior, then legal order); otherwise
    /// sampled with probability proportional to `N(a)^(1 / temperature)`
    /// (Silver et al. 2018), `N` after policy target pruning when forced
    /// playouts are on ([`Mcts::pruned_root_visits`]). `None` only when
    /// there is no legal action. If the root is unexpanded, the first legal
    /// action (temperature 0) or a uniformly random one.
    ///
    /// A Gumbel root ignores `temperature` and plays the paper's action
    /// ([`Mcts::gumbel_action`]), already a sample when its noise is on.
    pub fn choose_action<R: Rng + ?Sized>(
        &self,
        temperature: f32,
        rng: &mut R,
    ) -> Option<G::Action> {
        let children = self.nodes[0].children();
        if children.is_empty() {
            if self.is_terminal() {
                return None;
            }
            let legal = self.root_state.legal_vec();
            if legal.is_empty() {
                return None;
            }
            let i = if temperature > 0.0 && temperature.is_finite() {
                rng.random_range(0..legal.len())
            } else {
                0
            };
            return legal.get(i).copied();
        }
        if let Some(action) = self.gumbel_action() {
            return Some(action);
        }
        let best = self.best_child(0)?;
        let max_visits = self.nodes[best].visits;
        if !(temperature > 0.0 && temperature.is_finite()) || max_visits == 0 {
            return Some(self.actions[best - 1]);
        }
        let counts = self.pruned_root_visits();
        let max_visits = counts.iter().copied().max().unwrap_or(0).max(1);
        // Weights N^(1/t) scaled by max N^(1/t), computed in logs to avoid overflow.
        let inv_t = 1.0 / f64::from(temperature);
        let ln_max = f64::from(max_visits).ln();
        let weights: Vec<f64> = counts
            .iter()
            .map(|&v| {
                if v == 0 {
                    0.0
                } else {
                    ((f64::from(v).ln() - ln_max) * inv_t).exp()
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let mut x = rng.random::<f64>() * total;
        for (c, w) in children.zip(&weights) {
            if *w > 0.0 {
                if x < *w {
                    return Some(self.actions[c - 1]);
                }
                x -= w;
            }
        }
        Some(self.actions[best - 1])
    }

    /// The Gumbel root's action (Danihelka et al. 2022, section 4; mctx
    /// `gumbel_muzero_policy`): among the root children with the most
    /// visits, the one with the largest `max(-1e9, g + logits + sigma(q_hat))`
    /// (ties: legal order), `g` the search's Gumbel noise (0 if none was
    /// drawn). `None` for a PUCT root or an unexpanded or terminal root.
    pub fn gumbel_action(&self) -> Option<G::Action> {
        let sigma = self.root_sigma_q()?;
        let root = &self.nodes[0];
        let first = root.first_child as usize;
        let max_visits = root.children().map(|c| self.nodes[c].visits).max()?;
        let mut best: Option<(usize, f32)> = None;
        for (o, c) in root.children().enumerate() {
            if self.nodes[c].visits != max_visits {
                continue;
            }
            let (g, logit) = match &self.gumbel {
                Some(state) => (state.g[o], state.logits[o]),
                None => (0.0, gumbel::logit(self.nodes[c].prior)),
            };
            let score = (g + logit + sigma[o]).max(gumbel::LOW_SCORE);
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((o, score));
            }
        }
        best.map(|(o, _)| self.actions[first + o - 1])
    }

    /// The expected line: from the root, repeatedly the most visited child
    /// while it has visits, at most `max_len` actions.
    pub fn principal_variation(&self, max_len: usize) -> Vec<G::Action> {
        let mut line = Vec::new();
        let mut node = 0;
        while line.len() < max_len {
            match self.best_child(node) {
                Some(c) if self.nodes[c].visits > 0 => {
                    line.push(self.actions[c - 1]);
                    node = c;
                }
                _ => break,
            }
        }
        line
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
        let reuse = matches!(self.root_selection, RootSelection::Puct);
        match child {
            Some(_) if !reuse => {
                self.root_state.play(action);
                self.reset_to_root_state();
            }
            Some(c) => {
                self.clear_pending();
                self.root_state.play(action);
                self.reroot(c);
                self.init_root();
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
    fn reroot(&mut self, new_root: usize) {
        let mut nodes = Vec::new();
        let mut actions = Vec::new();
        let mut root = self.nodes[new_root];
        root.in_flight = 0;
        nodes.push(root);
        let mut i = 0;
        while i < nodes.len() {
            let old = nodes[i];
            if old.kind == NodeKind::Expanded {
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
        self.nodes = nodes;
        self.actions = actions;
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
