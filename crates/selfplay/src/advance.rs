//! The end of a move's search: count it, record its training target,
//! resign or play the chosen action, and end the game when the rules, the
//! ply cap or a resignation say so.

use rules::{Game, Player};
use search::Mcts;

use crate::adjudicate::final_result;
use crate::config::SelfPlayConfig;
use crate::record::{GameRecord, SearchTarget};
use crate::slot::Slot;
use crate::stats::SelfPlayStats;

impl<G: Game> Slot<G> {
    /// The slot's search is done ([`Slot::search_done`]): record the
    /// target and play the chosen action, or resign. Returns the finished
    /// record when the game ended.
    pub fn play_move(
        &mut self,
        config: &SelfPlayConfig,
        stats: &mut SelfPlayStats,
    ) -> Option<GameRecord> {
        let legal = self.game.legal_vec();
        if !self.forced {
            if self.full {
                stats.full_searches += 1;
            } else {
                stats.fast_searches += 1;
            }
        }
        let target = (legal.len() > 1 && self.full).then(|| self.search_target(&legal));
        if !self.forced && self.resigns(config) {
            stats.resigned += 1;
            let loser = self.game.side_to_move();
            return Some(self.finish(Some(loser.opponent()), false, stats));
        }
        let temperature = if self.game.ply() < config.temperature_plies {
            config.temperature
        } else {
            config.final_temperature
        };
        // `legal` is non-empty: a finished game never reaches here.
        let action = self
            .tree
            .choose_action(temperature, &mut self.rng)
            .or(legal.first().copied())?;
        let index = legal.iter().position(|&a| a == action).unwrap_or(0);
        stats.positions += target.is_some() as usize;
        stats.plies += 1;
        self.record.actions.push(index as u16);
        self.record.targets.push(target);
        self.game.play(action);
        let outcome = self.game.outcome();
        if outcome.is_some() || self.game.ply() >= config.ply_cap {
            let (winner, ply_capped) = final_result(&self.game, outcome, config);
            return Some(self.finish(winner, ply_capped, stats));
        }
        self.next_move(action, config);
        None
    }

    /// The search's training target at a position with these `legal`
    /// actions.
    fn search_target(&self, legal: &[G::Action]) -> SearchTarget {
        SearchTarget {
            policy: align_policy(legal, self.tree.policy_target()),
            root_wdl: self.tree.root_wdl(),
        }
    }

    /// After `action` was played: keep its subtree and set up the next
    /// move's search.
    fn next_move(&mut self, action: G::Action, config: &SelfPlayConfig) {
        self.forced = self.game.legal_vec().len() == 1;
        if self.tree.advance(action).is_err() {
            // Cannot happen for an action the tree offered; start afresh to be safe.
            self.tree = Mcts::new(self.game.clone(), self.tree.config());
        }
        self.begin_move(config);
    }

    /// Feed the finished search's root value to the resignation tracker;
    /// whether the side to move resigns.
    fn resigns(&mut self, config: &SelfPlayConfig) -> bool {
        let [w, _, l] = self.tree.root_wdl();
        let player = self.game.side_to_move();
        self.resign.observe(player, w - l, config.resign_threshold)
    }

    /// End the game with this result; collects the resignation samples of
    /// a played-out game (when resignation is on). Returns the record.
    fn finish(
        &mut self,
        winner: Option<Player>,
        ply_capped: bool,
        stats: &mut SelfPlayStats,
    ) -> GameRecord {
        if !self.resign.enabled() && stats.resign_on {
            stats.played_out += 1;
            stats.resign_samples.extend(self.resign.samples(winner));
        }
        self.record.winner = winner;
        self.record.ply_capped = ply_capped;
        std::mem::replace(&mut self.record, GameRecord::new(String::new()))
    }
}

/// The policy target `(action, p)` as one probability per action of
/// `legal`, in that order (0 for actions the target lacks). The search's
/// root children are in legal order, so this is one pass; a target in
/// another order (never produced here) falls back to a lookup per action
/// rather than misplacing probabilities.
pub(crate) fn align_policy<A: PartialEq + Copy>(legal: &[A], target: Vec<(A, f32)>) -> Vec<f32> {
    let aligned = target.len() == legal.len() && target.iter().zip(legal).all(|((a, _), b)| a == b);
    if aligned {
        return target.into_iter().map(|(_, p)| p).collect();
    }
    let mut policy = vec![0.0; legal.len()];
    for (action, p) in target {
        if let Some(i) = legal.iter().position(|&a| a == action) {
            policy[i] = p;
        }
    }
    policy
}
