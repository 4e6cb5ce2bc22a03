//! One PUCT search tree with a step-wise, batch-friendly API.

use rand::Rng;
use rand_distr::{Distribution, Gamma};
use rules::Game;

use crate::config::SearchConfig;
use crate::evaluator::{Wdl, DRAW_WDL};
use crate::node::{Node, NodeKind};

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

/// How the root picks the child to descend into. Only PUCT exists now;
/// Gumbel AlphaZero (Danihelka et al. 2022, sequential halving at the root)
/// is meant to plug in here as another variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootSelection {
    /// The same PUCT rule as every inner node.
    #[default]
    Puct,
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
    root_state: G,
    /// The arena; `nodes[0]` is the root.
    nodes: Vec<Node>,
    /// `actions[i - 1]` is the action leading to `nodes[i]` (`i >= 1`).
    actions: Vec<G::Action>,
    /// Root noise still to be mixed into the root priors (once expanded).
    noise_pending: bool,
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
    /// Root noise is applied once the root is expanded if
    /// `config.dirichlet_epsilon > 0`.
    pub fn new(root: G, config: &SearchConfig) -> Self {
        let mut tree = Mcts {
            config: config.clone(),
            root_selection: RootSelection::default(),
            root_state: root,
            nodes: Vec::new(),
            actions: Vec::new(),
            noise_pending: false,
            pending_positions: Vec::new(),
            pending_legal: Vec::new(),
            pending_nodes: Vec::new(),
            pending_path_ends: Vec::new(),
            pending_paths: Vec::new(),
            collision_nodes: Vec::new(),
            path: Vec::new(),
        };
        tree.reset_to_root_state();
        tree
    }

    /// Drop the whole tree and start over from `root_state`.
    fn reset_to_root_state(&mut self) {
        self.nodes.clear();
        self.actions.clear();
        self.nodes.push(Node::leaf(1.0));
        self.clear_pending();
        self.init_root();
    }

    /// Fix the root's side to move, mark it terminal if the game is over,
    /// and arm root noise.
    fn init_root(&mut self) {
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
        self.noise_pending = self.config.noise_enabled();
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

    /// Choose how the root selects children (only [`RootSelection::Puct`] today).
    pub fn set_root_selection(&mut self, selection: RootSelection) {
        self.root_selection = selection;
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
    fn select_child(&self, node: usize) -> usize {
        let parent = &self.nodes[node];
        let c_puct = self.config.c_puct;
        let vl = self.config.virtual_loss;
        let sqrt_n = ((parent.visits + parent.in_flight) as f32).sqrt();
        let fpu = parent.q().unwrap_or(0.0) - self.config.fpu_reduction;
        let mut best = parent.first_child as usize;
        let mut best_score = f32::NEG_INFINITY;
        for c in parent.children() {
            let child = &self.nodes[c];
            let virtual_visits = vl * child.in_flight as f32;
            let n_eff = child.visits as f32 + virtual_visits;
            let q = if child.visits == 0 && virtual_visits <= 0.0 {
                fpu
            } else {
                let own = child.win_sum - child.loss_sum;
                let for_parent = if child.to_move == parent.to_move {
                    own
                } else {
                    -own
                };
                (for_parent - virtual_visits) / n_eff
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
        match self.root_selection {
            RootSelection::Puct => self.select_child(0),
        }
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
            let (w, l) = if node.to_move == leaf_to_move {
                (wdl[0], wdl[2])
            } else {
                (wdl[2], wdl[0])
            };
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
                        self.select_child(node)
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
                        None => {
                            state.legal_actions(&mut self.pending_legal[slot]);
                            if self.pending_legal[slot].is_empty() {
                                // No legal action but no outcome: a rules gap; score a draw.
                                NodeKind::TerminalDraw
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
                    let wdl = kind.terminal_wdl().unwrap_or(DRAW_WDL);
                    Self::backup(&mut self.nodes, &self.path, to_move, wdl, false);
                    return Descent::Terminal;
                }
                kind => {
                    let wdl = kind.terminal_wdl().unwrap_or(DRAW_WDL);
                    let to_move = self.nodes[node].to_move;
                    Self::backup(&mut self.nodes, &self.path, to_move, wdl, false);
                    return Descent::Terminal;
                }
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
            self.apply_root_noise(rng);
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
            // Expand (skipped only if the arena would outgrow u32 indices).
            let first = self.nodes.len();
            if let (Ok(first_child), Ok(count)) = (u32::try_from(first), u32::try_from(legal.len()))
            {
                if u32::try_from(first + legal.len()).is_ok() {
                    let sum: f32 = block.iter().filter(|p| p.is_finite() && **p > 0.0).sum();
                    let uniform = 1.0 / legal.len() as f32;
                    for &p in block {
                        let prior = if sum > 0.0 && p.is_finite() && p > 0.0 {
                            p / sum
                        } else if sum > 0.0 {
                            0.0
                        } else {
                            uniform
                        };
                        self.nodes.push(Node::leaf(prior));
                    }
                    self.actions.extend_from_slice(legal);
                    let node = &mut self.nodes[leaf];
                    node.first_child = first_child;
                    node.num_children = count;
                    node.kind = NodeKind::Expanded;
                }
            }
            let path_end = self.pending_path_ends[i] as usize;
            let to_move = self.nodes[leaf].to_move;
            Self::backup(
                &mut self.nodes,
                &self.pending_paths[path_start..path_end],
                to_move,
                sanitize_wdl(wdl[i]),
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
                let same = child.to_move == root.to_move;
                ChildStats {
                    action: self.actions[c - 1],
                    visits: child.visits,
                    prior: child.prior,
                    q: child.q().map(|q| if same { q } else { -q }),
                    wdl: child
                        .wdl()
                        .map(|[w, d, l]| if same { [w, d, l] } else { [l, d, w] }),
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

    /// The AlphaZero policy target: root visit counts normalised to sum to
    /// 1, one entry per legal action in legal-action order. Uniform when no
    /// child has been visited; empty when the root is unexpanded or terminal.
    pub fn policy_target(&self) -> Vec<(G::Action, f32)> {
        let children = self.nodes[0].children();
        let total: u64 = children
            .clone()
            .map(|c| u64::from(self.nodes[c].visits))
            .sum();
        let n = children.len() as f32;
        children
            .map(|c| {
                let p = if total > 0 {
                    self.nodes[c].visits as f32 / total as f32
                } else {
                    1.0 / n
                };
                (self.actions[c - 1], p)
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
    /// (Silver et al. 2018). `None` only when there is no legal action. If
    /// the root is unexpanded, the first legal action (temperature 0) or a
    /// uniformly random one.
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
        let best = self.best_child(0)?;
        let max_visits = self.nodes[best].visits;
        if !(temperature > 0.0 && temperature.is_finite()) || max_visits == 0 {
            return Some(self.actions[best - 1]);
        }
        // Weights N^(1/t) scaled by max N^(1/t), computed in logs to avoid overflow.
        let inv_t = 1.0 / f64::from(temperature);
        let ln_max = f64::from(max_visits).ln();
        let weights: Vec<f64> = children
            .clone()
            .map(|c| {
                let v = self.nodes[c].visits;
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
    /// had noisy priors and the new root's children never did.
    ///
    /// # Errors
    /// [`SearchError::IllegalAction`] if `action` is not legal at the root;
    /// the tree is then unchanged.
    pub fn advance(&mut self, action: G::Action) -> Result<(), SearchError> {
        let root = self.nodes[0];
        let child = root.children().find(|&c| self.actions[c - 1] == action);
        match child {
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
}
