//! What a search yields: root statistics, the policy target, the action
//! to play and the principal variation.

use rand::Rng;
use rules::Game;

use super::Mcts;
use crate::evaluator::{Wdl, DRAW_WDL};
use crate::node::Node;
use crate::root::RootPolicy;

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
    /// The result proven for the root's side to move (game over, MCTS-Solver
    /// or a root proof): `1` won, `-1` lost; `None` when open or drawn.
    pub proven: Option<f32>,
}

/// The most visited child of `node` (ties: higher prior, then first).
pub(crate) fn most_visited(nodes: &[Node], node: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    for c in nodes[node].children() {
        let better = match best {
            None => true,
            Some(b) => {
                let (x, y) = (&nodes[c], &nodes[b]);
                x.visits > y.visits || (x.visits == y.visits && x.prior > y.prior)
            }
        };
        if better {
            best = Some(c);
        }
    }
    best
}

impl<G: Game> Mcts<G> {
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
                    proven: child.proven_for(root.to_move),
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
    ///   (Danihelka et al. 2022, eq. 11; see [`crate::RootSelection::Gumbel`]).
    pub fn policy_target(&self) -> Vec<(G::Action, f32)> {
        let target = self.root.policy_target(&self.root_view());
        self.nodes[0]
            .children()
            .zip(target)
            .map(|(c, p)| (self.actions[c - 1], p))
            .collect()
    }

    /// Root child visit counts in legal-action order, after KataGo's policy
    /// target pruning when `config.forced_playouts` is on (Wu 2019, section
    /// 3.1) and the root is PUCT, otherwise as they are. Pruning keeps the
    /// most visited child `c*` ([`Mcts::principal_variation`]'s first move)
    /// and takes from every other child `c` as many visits
    /// `d <= n_forced(c) = sqrt(k * P(c) * sum_b N(b))` as possible while
    /// `PUCT(c) < PUCT(c*)` still holds with `N(c) - d` visits, where
    /// `PUCT(x) = Q(x) + c_puct * P(x) * sqrt(N_root) / (1 + N(x))` with
    /// the final counts (no first-play urgency: unvisited children stay at
    /// 0). A child left with a single visit after losing some is pruned to 0.
    pub fn pruned_root_visits(&self) -> Vec<u32> {
        self.root.visit_counts(&self.root_view())
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
        if self.nodes[0].children().is_empty() {
            return self.choose_unexpanded(temperature, rng);
        }
        let child = self.root.choose(&self.root_view(), temperature, rng)?;
        Some(self.actions[self.solver_choice(child) - 1])
    }

    /// The root child to play instead of the root policy's `chosen` when
    /// the solver ([`crate::SearchConfig::solver`]) knows better: the most
    /// visited child proven won for the root's side to move, if any; else,
    /// if `chosen` is proven lost, the most visited child not proven lost,
    /// if any; else `chosen`.
    fn solver_choice(&self, chosen: usize) -> usize {
        if !self.config.solver {
            return chosen;
        }
        let me = self.nodes[0].to_move;
        let proven = |c: usize| self.nodes[c].proven_for(me);
        let most_visited_where = |keep: &dyn Fn(usize) -> bool| {
            self.nodes[0]
                .children()
                .filter(|&c| keep(c))
                .max_by_key(|&c| (self.nodes[c].visits, std::cmp::Reverse(c)))
        };
        if let Some(win) = most_visited_where(&|c| proven(c).is_some_and(|v| v > 0.0)) {
            return win;
        }
        if proven(chosen).is_some_and(|v| v < 0.0) {
            return most_visited_where(&|c| proven(c).is_none()).unwrap_or(chosen);
        }
        chosen
    }

    /// [`Mcts::choose_action`] before the root is expanded: none at a
    /// terminal root, else the first legal action at temperature 0 or a
    /// uniformly random one.
    fn choose_unexpanded<R: Rng + ?Sized>(
        &self,
        temperature: f32,
        rng: &mut R,
    ) -> Option<G::Action> {
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
        legal.get(i).copied()
    }

    /// The Gumbel root's action (Danihelka et al. 2022, section 4; mctx
    /// `gumbel_muzero_policy`): among the root children with the most
    /// visits, the one with the largest `max(-1e9, g + logits + sigma(q_hat))`
    /// (ties: legal order), `g` the search's Gumbel noise (0 if none was
    /// drawn). `None` for a PUCT root or an unexpanded or terminal root.
    pub fn gumbel_action(&self) -> Option<G::Action> {
        let child = self.root.gumbel()?.action(&self.root_view())?;
        Some(self.actions[self.solver_choice(child) - 1])
    }

    /// The expected line: from the root, repeatedly the most visited child
    /// while it has visits, at most `max_len` actions.
    pub fn principal_variation(&self, max_len: usize) -> Vec<G::Action> {
        self.line_from(0, max_len)
    }

    /// The expected line after the actions `path` from the root (not
    /// included): [`Mcts::principal_variation`] of the tree that
    /// [`Mcts::advance`] through `path` would leave, without cutting that
    /// subtree out. Empty when `path` leaves the tree.
    pub fn principal_variation_after(&self, path: &[G::Action], max_len: usize) -> Vec<G::Action> {
        let mut node = 0;
        for &action in path {
            match self.nodes[node]
                .children()
                .find(|&c| self.actions[c - 1] == action)
            {
                Some(child) => node = child,
                None => return Vec::new(),
            }
        }
        self.line_from(node, max_len)
    }

    /// The most visited line below `node`, at most `max_len` actions.
    fn line_from(&self, mut node: usize, max_len: usize) -> Vec<G::Action> {
        let mut line = Vec::new();
        while line.len() < max_len {
            match most_visited(&self.nodes, node) {
                Some(c) if self.nodes[c].visits > 0 => {
                    line.push(self.actions[c - 1]);
                    node = c;
                }
                _ => break,
            }
        }
        line
    }
}
