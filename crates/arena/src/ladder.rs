//! Ladder: every pair of players plays a match (a round robin), or, with
//! a fixed ladder ([`LadderSettings::fixed`]), every pair with at least one
//! of its rungs (a gauntlet); then all players are rated together by
//! Bradley–Terry ([`crate::bradley_terry`]).
//! Writes `ladder.md` (tables), `ladder.png` (chart), `ladder.json` and the
//! game records of every pair (`games/<i>-<j>.pgn|txt`) into one folder,
//! with a match journal per pair (`games/pair-<hash>.jsonl`,
//! [`crate::journal`]): a ladder run again into the same folder plays only
//! the games it lacks, so a stopped ladder resumes, and a learning curve
//! grows by adding players (a run's new generations) without replaying the
//! pairs already played.

use std::path::{Path, PathBuf};

use encoding::Encode;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bradley_terry::{fit, Anchor, PairResult, Rating, RatingError};
use crate::chart::{draw_ratings, ChartEntry, ChartError};
use crate::greedy::Heuristic;
use crate::journal::{check_games, read_journal, write_journal, JournalError};
use crate::matches::{run_match_resuming, MatchSettings};
use crate::records::{uses_pgn, write_records};
use crate::spec::PlayerFactory;
use crate::wdl::WdlCounts;

/// Settings of a ladder.
#[derive(Clone, Debug)]
pub struct LadderSettings {
    /// Games per pair (both colours, rounded up to an even number).
    pub games_per_pair: usize,
    /// Games in parallel.
    pub concurrency: usize,
    /// Ply cap (adjudicated draw).
    pub ply_cap: u32,
    /// Random opening plies (shared by the two games of a pair).
    pub opening_plies: u32,
    /// Seed.
    pub seed: u64,
    /// Virtual draws per pair that met (keeps perfect scores finite).
    pub prior_draws: f64,
    /// Player rated 0 (`None`: the mean is 0).
    pub anchor: Option<usize>,
    /// The first this-many players are a fixed ladder: they play each
    /// other and every other player, and the others play only them, so
    /// the others (a run's generations, say) are each measured against the
    /// same opponents in `fixed` matches instead of all `n - 1`. `None` (or
    /// `n - 1` and above): a round robin.
    pub fixed: Option<usize>,
    /// How the players searched (budget, contempt, policy temperature,
    /// rollout mix), one line for the report and `ladder.json`.
    pub player_settings: String,
    /// The search settings that change how bundles play (contempt, policy
    /// temperature, solver, ...), without the default budget (each
    /// player's own budget is in [`pair_identity`]): part of each pair's
    /// identity, so a pair played with other settings is played anew.
    pub search_settings: serde_json::Value,
}

/// The result of one pair.
#[derive(Clone, Debug, Serialize)]
pub struct PairSummary {
    /// Player index.
    pub a: usize,
    /// Player index.
    pub b: usize,
    /// W/D/L of `a`.
    pub wdl: WdlCounts,
    /// Games lost by forfeit.
    pub forfeits: usize,
}

/// A finished ladder.
#[derive(Clone, Debug, Serialize)]
pub struct LadderResult {
    /// Variant.
    pub variant: rules::VariantId,
    /// Player names (specs).
    pub names: Vec<String>,
    /// Ratings, in player order.
    pub ratings: Vec<Rating>,
    /// Every pair's result.
    pub pairs: Vec<PairSummary>,
    /// The anchored player (`None`: mean 0).
    pub anchor: Option<usize>,
    /// Virtual draws per pair used in the fit.
    pub prior_draws: f64,
    /// [`LadderSettings::player_settings`].
    pub player_settings: String,
}

/// Anything that stops a ladder.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    /// Fewer than two players.
    #[error("a ladder needs at least two players")]
    TooFewPlayers,
    /// A fixed ladder of no player, or of more players than there are.
    #[error("a fixed ladder of {fixed} players among {players}: expected 1 to {players}")]
    BadFixed {
        /// The size asked for.
        fixed: usize,
        /// The players.
        players: usize,
    },
    /// Writing an output file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The rating fit rejected its input.
    #[error(transparent)]
    Rating(#[from] RatingError),
    /// The chart failed.
    #[error(transparent)]
    Chart(#[from] ChartError),
    /// A pair's journal cannot be resumed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// Play the ladder's pairs ([`ladder_pairs`]) and write the outputs into
/// `out` (created). `progress` is told about each finished pair, and about
/// each pair resumed from its journal.
///
/// A pair is the same match whatever the other players are: its journal
/// and its seed come from [`pair_identity`] (the two players as they play,
/// their budgets and the ladder's settings), not from the players'
/// places.
///
/// # Errors
/// [`LadderError`].
pub fn run_ladder<G: Encode + Heuristic>(
    players: &[PlayerFactory<G>],
    settings: &LadderSettings,
    out: &Path,
    mut progress: impl FnMut(&str),
) -> Result<LadderResult, LadderError> {
    let n = players.len();
    let schedule = ladder_pairs(n, settings.fixed)?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LadderError::Io { path, source }
    };
    let games_dir = out.join("games");
    std::fs::create_dir_all(&games_dir).map_err(io(&games_dir))?;
    let ext = if uses_pgn(G::VARIANT) { "pgn" } else { "txt" };
    remove_old_records(&games_dir).map_err(io(&games_dir))?;
    let start = G::start().to_text();
    let mut games = Vec::new();
    let mut pairs = Vec::new();
    for (a, b) in schedule {
        let (pa, pb) = (&players[a], &players[b]);
        // A pair's journal keeps one order of its players whatever their
        // places in this ladder: `swap` when `b` comes first there.
        let order = |p: &PlayerFactory<G>| (p.played_as().to_string(), p.budget_text());
        let swap = order(pb) < order(pa);
        let (first, second) = if swap { (pb, pa) } else { (pa, pb) };
        let identity = pair_identity(G::VARIANT, first, second, settings);
        let digest = Sha256::digest(identity.to_string().as_bytes());
        let hash = u64::from_le_bytes(digest[..8].try_into().unwrap_or_default());
        let seed = rules::zobrist::key(settings.seed, hash);
        let match_settings = MatchSettings {
            games: settings.games_per_pair,
            concurrency: settings.concurrency,
            ply_cap: settings.ply_cap,
            time_control: None,
            opening_plies: settings.opening_plies,
            seed,
            sprt: None,
        };
        let journal = games_dir.join(format!("pair-{hash:016x}.jsonl"));
        let done = read_journal(&journal, &identity)?;
        check_games(&journal, &done, settings.games_per_pair.div_ceil(2) * 2)?;
        // Written before the first game: a folder that takes no file stops
        // the ladder now, not after the pair is played.
        write_journal(&journal, &identity, &done).map_err(io(&journal))?;
        if !done.is_empty() {
            progress(&format!(
                "{} vs {}: {} games already played (resumed from {})",
                pa.name(),
                pb.name(),
                done.len(),
                journal.display()
            ));
        }
        let record = games_dir.join(format!("{a}-{b}.{ext}"));
        let mut write_error = None;
        let report = run_match_resuming::<G, _, _>(
            &match_settings,
            &[],
            done,
            |i| first.make(rules::zobrist::key(seed, i as u64)),
            |i| second.make(rules::zobrist::key(seed.wrapping_mul(31), i as u64)),
            |r| {
                if let Err(e) = write_journal(&journal, &identity, &r.games) {
                    write_error = Some((journal.clone(), e));
                } else if let Err(e) = write_records(
                    &record,
                    G::VARIANT,
                    &start,
                    first.name(),
                    second.name(),
                    &r.games,
                ) {
                    write_error = Some((record.clone(), e));
                }
            },
        );
        if let Some((path, e)) = write_error {
            return Err(io(&path)(e));
        }
        for g in &report.games {
            let a_side = if g.a_first {
                rules::Player::First
            } else {
                rules::Player::Second
            };
            // `a_first` and the score are the first player's.
            let score_first = match g.result.winner {
                None => 0.5,
                Some(w) if w == a_side => 1.0,
                Some(_) => 0.0,
            };
            let score_a = if swap { 1.0 - score_first } else { score_first };
            games.push(PairResult { a, b, score_a });
        }
        let wdl = if swap {
            WdlCounts {
                wins: report.wdl.losses,
                draws: report.wdl.draws,
                losses: report.wdl.wins,
            }
        } else {
            report.wdl
        };
        progress(&format!(
            "{} vs {}: +{} ={} -{}{}",
            pa.name(),
            pb.name(),
            wdl.wins,
            wdl.draws,
            wdl.losses,
            if report.forfeits > 0 {
                format!(" ({} forfeits)", report.forfeits)
            } else {
                String::new()
            }
        ));
        pairs.push(PairSummary {
            a,
            b,
            wdl,
            forfeits: report.forfeits,
        });
    }
    let anchor = match settings.anchor {
        Some(i) => Anchor::Player(i),
        None => Anchor::Mean,
    };
    let ratings = fit(n, &games, settings.prior_draws, anchor)?;
    let result = LadderResult {
        variant: G::VARIANT,
        names: players.iter().map(|p| p.name().to_string()).collect(),
        ratings,
        pairs,
        anchor: settings.anchor,
        prior_draws: settings.prior_draws,
        player_settings: settings.player_settings.clone(),
    };
    let md = out.join("ladder.md");
    fsio::write_atomic(&md, markdown(&result, settings).as_bytes()).map_err(io(&md))?;
    let json = out.join("ladder.json");
    let text = serde_json::to_string_pretty(&result).unwrap_or_default();
    fsio::write_atomic(&json, text.as_bytes()).map_err(io(&json))?;
    let entries: Vec<ChartEntry> = result
        .names
        .iter()
        .zip(&result.ratings)
        .map(|(name, r)| ChartEntry {
            name: name.clone(),
            elo: r.elo,
            lower: r.lower,
            upper: r.upper,
        })
        .collect();
    draw_ratings(
        &out.join("ladder.png"),
        &format!(
            "{} ladder (Bradley-Terry Elo, 95% intervals)",
            result.variant
        ),
        &entries,
        960,
        540,
    )?;
    Ok(result)
}

/// What makes a pair of a ladder the same match as an earlier one (its
/// journal's header): the variant, the two players as they play
/// ([`PlayerFactory::played_as`]: a bundle by its weights, not its path)
/// with their budgets, and the ladder's ply cap, opening plies, seed and
/// search settings ([`LadderSettings::search_settings`]).
pub fn pair_identity<G: Encode + Heuristic>(
    variant: rules::VariantId,
    a: &PlayerFactory<G>,
    b: &PlayerFactory<G>,
    settings: &LadderSettings,
) -> serde_json::Value {
    serde_json::json!({
        "ladder": true,
        "variant": variant.as_str(),
        "a": a.played_as(), "b": b.played_as(),
        "budget_a": a.budget_text(), "budget_b": b.budget_text(),
        "ply_cap": settings.ply_cap,
        "openings_random_plies": settings.opening_plies,
        "seed": settings.seed,
        "search": settings.search_settings,
    })
}

/// Remove the game records (`<i>-<j>.pgn|txt`) an earlier ladder left in
/// `games`: they are named by the players' places, which another ladder
/// in the same folder gives to other players. Every pair of this ladder
/// writes its own from its journal, which stays.
fn remove_old_records(games: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(games)? {
        let path = entry?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let ext = path.extension().and_then(|s| s.to_str()).unwrap_or("");
        let digits = |n: &str| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit());
        let indices = stem
            .split_once('-')
            .is_some_and(|(i, j)| digits(i) && digits(j));
        if indices && matches!(ext, "pgn" | "txt") {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The pairs `(a, b)`, `a < b`, that a ladder of `n` players plays, in
/// order: all of them, or with a fixed ladder of `k` players
/// ([`LadderSettings::fixed`]) those with `a < k`.
///
/// # Errors
/// [`LadderError::TooFewPlayers`] for `n < 2`, [`LadderError::BadFixed`]
/// for `k` = 0 or `k > n`.
pub fn ladder_pairs(n: usize, fixed: Option<usize>) -> Result<Vec<(usize, usize)>, LadderError> {
    if n < 2 {
        return Err(LadderError::TooFewPlayers);
    }
    let k = match fixed {
        Some(k) if k == 0 || k > n => {
            return Err(LadderError::BadFixed {
                fixed: k,
                players: n,
            })
        }
        Some(k) => k,
        None => n,
    };
    Ok((0..k)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect())
}

/// The Markdown report: ratings sorted by Elo, then the pair results.
pub fn markdown(result: &LadderResult, settings: &LadderSettings) -> String {
    let mut s = format!("# {} ladder\n\n", result.variant);
    let anchor = match result.anchor {
        Some(i) => format!("`{}` = 0", result.names[i]),
        None => "mean = 0".into(),
    };
    s.push_str(&format!(
        "{}Bradley–Terry maximum likelihood (Hunter 2004 MM), draws as half wins, \
         {} virtual draws per pair, anchor {anchor}; 95 % intervals from the Fisher \
         information. {} games per pair, ply cap {}, {} random opening plies, seed {}.\n\n",
        match settings.fixed {
            Some(1) if result.names.len() > 2 => format!(
                "A fixed ladder: `{}` plays everyone, the others only it. ",
                result.names[0]
            ),
            Some(k) if k < result.names.len().saturating_sub(1) => format!(
                "A fixed ladder: the first {k} players (below in the pair table) play \
                 everyone, the others only them. "
            ),
            _ => String::new(),
        },
        result.prior_draws,
        settings.games_per_pair.div_ceil(2) * 2,
        settings.ply_cap,
        settings.opening_plies,
        settings.seed
    ));
    if !result.player_settings.is_empty() {
        s.push_str(&format!("Players: {}.\n\n", result.player_settings));
    }
    s.push_str("| rank | player | Elo | 95 % interval | ± | games | score |\n|---:|---|---:|---|---:|---:|---:|\n");
    let mut order: Vec<usize> = (0..result.names.len()).collect();
    order.sort_by(|&x, &y| result.ratings[y].elo.total_cmp(&result.ratings[x].elo));
    for (rank, &i) in order.iter().enumerate() {
        let r = &result.ratings[i];
        s.push_str(&format!(
            "| {} | `{}` | {:+.1} | [{:+.1}, {:+.1}] | {:.1} | {} | {:.1} % |\n",
            rank + 1,
            result.names[i],
            r.elo,
            r.lower,
            r.upper,
            crate::elo::Z95 * r.stderr,
            r.games,
            100.0 * r.points / f64::from(r.games.max(1))
        ));
    }
    s.push_str("\n## Pairs\n\n| A | B | +A | = | +B | score A | forfeits |\n|---|---|---:|---:|---:|---:|---:|\n");
    for p in &result.pairs {
        s.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {:.1} % | {} |\n",
            result.names[p.a],
            result.names[p.b],
            p.wdl.wins,
            p.wdl.draws,
            p.wdl.losses,
            100.0 * p.wdl.score(),
            p.forfeits
        ));
    }
    s.push_str("\n![ratings](ladder.png)\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_ladder_plays_only_the_pairs_with_a_rung() {
        let all = ladder_pairs(4, None).unwrap();
        assert_eq!(all, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(ladder_pairs(4, Some(4)).unwrap(), all);
        assert_eq!(ladder_pairs(4, Some(3)).unwrap(), all);
        assert_eq!(ladder_pairs(4, Some(1)).unwrap(), [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            ladder_pairs(5, Some(2)).unwrap(),
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]
        );
        assert!(matches!(
            ladder_pairs(1, None),
            Err(LadderError::TooFewPlayers)
        ));
        for k in [0, 5] {
            assert!(matches!(
                ladder_pairs(4, Some(k)),
                Err(LadderError::BadFixed { fixed, players: 4 }) if fixed == k
            ));
        }
    }
}
