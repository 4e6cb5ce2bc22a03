//! Self-play tests: seeded games, playout cap randomisation, the ply cap's
//! results, resignation and the config checks.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules::Game;
use search::{SearchConfig, TreeWork};

use crate::advance::align_policy;
use crate::driver::play_games_on;
use crate::slot::{Slot, CAP_SEED_SALT};
use crate::*;
use rules::Shakti;
use search::{RootKind, UniformEvaluator};

fn config(p: f32) -> SelfPlayConfig {
    SelfPlayConfig {
        games_per_generation: 3,
        concurrent_games: 1,
        simulations: 8,
        full_search_prob: p,
        fast_simulations: 2,
        leaves_per_tree: 2,
        temperature_plies: 4,
        ply_cap: 24,
        ..SelfPlayConfig::default()
    }
}

/// The games of one call.
fn plan<'a, G>(
    start: &'a G,
    search: &'a SearchConfig,
    config: &'a SelfPlayConfig,
    count: usize,
    seed: u64,
) -> Games<'a, G> {
    Games {
        start,
        branch_starts: &[],
        search,
        config,
        count,
        seed,
    }
}

fn play(
    search: &SearchConfig,
    config: &SelfPlayConfig,
    seed: u64,
) -> (Vec<GameRecord>, SelfPlayStats) {
    let mut records = Vec::new();
    let start = Shakti::start();
    let games = plan(&start, search, config, config.games_per_generation, seed);
    let stats = play_games(&games, &mut UniformEvaluator, |r| records.push(r));
    (records, stats)
}

/// Per ply of `record`, whether the position had more than one legal
/// action (was searched).
fn searched_plies(record: &GameRecord) -> Vec<bool> {
    let mut searched = Vec::new();
    record
        .replay::<Shakti>(|_, legal, _| searched.push(legal.len() > 1))
        .unwrap();
    searched
}

/// Where the tree work runs (pool or worker thread) is a scheduling
/// choice only: the same seed gives the same games either way.
#[test]
fn tree_work_placement_does_not_change_the_games() {
    let cfg = SelfPlayConfig {
        concurrent_games: 3,
        ..config(1.0)
    };
    let search = SearchConfig::default();
    let games = |work| {
        let mut records = Vec::new();
        let start = Shakti::start();
        let eval = &mut UniformEvaluator;
        play_games_on(&plan(&start, &search, &cfg, 4, 9), eval, work, |r| {
            records.push(r)
        });
        records
    };
    let parallel = games(TreeWork::Parallel);
    assert_eq!(parallel.len(), 4);
    assert_eq!(parallel, games(TreeWork::OwnThread));
}

#[test]
fn playout_cap_randomisation_records_only_full_searches() {
    let seed = 5;
    let cfg = config(0.25);
    assert_eq!(cfg.validate(), Ok(()));
    let (records, stats) = play(&SearchConfig::default(), &cfg, seed);
    assert_eq!(records.len(), 3);
    // With one game at a time, game k gets the k-th seed of the stream;
    // its j-th searched move is full iff the j-th draw of its cap
    // stream is < p. Predict every move exactly.
    let mut seeds = SmallRng::seed_from_u64(seed);
    let (mut full, mut fast) = (0, 0);
    for record in &records {
        let mut cap = SmallRng::seed_from_u64(seeds.random::<u64>() ^ CAP_SEED_SALT);
        for (ply, searched) in searched_plies(record).into_iter().enumerate() {
            let want_target = searched && cap.random::<f32>() < 0.25;
            assert_eq!(record.targets[ply].is_some(), want_target, "ply {ply}");
            full += want_target as usize;
            fast += (searched && !want_target) as usize;
        }
    }
    assert_eq!(stats.full_searches, full);
    assert_eq!(stats.fast_searches, fast);
    assert_eq!(stats.positions, full);
    assert_eq!(
        records.iter().map(GameRecord::recorded).sum::<usize>(),
        full
    );
    // The seeded run (default search, root proofs on): 64 plies (games
    // end before the cap of 24), 63 of them searched: 15 full, 48 fast.
    assert_eq!(stats.plies, 64);
    assert_eq!((full, fast), (15, 48));
}

#[test]
fn policy_targets_align_with_legal_order() {
    let legal = [3u8, 7, 9];
    assert_eq!(
        align_policy(&legal, vec![(3, 0.5), (7, 0.25), (9, 0.25)]),
        vec![0.5, 0.25, 0.25]
    );
    assert_eq!(
        align_policy(&legal, vec![(9, 0.75), (3, 0.25)]),
        vec![0.25, 0.0, 0.75],
        "another order or missing actions: looked up"
    );
}

#[test]
fn ply_cap_winner_scores_undecided_ply_capped_games() {
    let start = rules::Hnefatafl::start();
    let search = SearchConfig::default();
    for (setting, expected) in [
        (PlyCapWinner::Draw, None),
        (PlyCapWinner::First, Some(rules::Player::First)),
        (PlyCapWinner::Second, Some(rules::Player::Second)),
    ] {
        let cfg = SelfPlayConfig {
            games_per_generation: 2,
            concurrent_games: 2,
            simulations: 4,
            ply_cap: 4,
            ply_cap_winner: setting,
            ..SelfPlayConfig::default()
        };
        let mut records = Vec::new();
        play_games(
            &plan(&start, &search, &cfg, 2, 5),
            &mut UniformEvaluator,
            |r| records.push(r),
        );
        assert_eq!(records.len(), 2);
        for r in &records {
            // Four plies from the start cannot end a tafl game.
            assert!(r.ply_capped && r.actions.len() == 4, "{setting:?}");
            assert_eq!(r.winner, expected, "{setting:?}");
        }
    }
    let parsed: SelfPlayConfig = toml::from_str("ply_cap_winner = \"first\"").unwrap();
    assert_eq!(parsed.ply_cap_winner, PlyCapWinner::First);
    for bad in ["ply_cap_winner = \"attackers\"", "ply_cap_winner = 1"] {
        let err = toml::from_str::<SelfPlayConfig>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("ply_cap_winner"), "{err}");
    }
    let err = toml::from_str::<SelfPlayConfig>("ply_cap_winner = \"attackers\"")
        .unwrap_err()
        .to_string();
    assert!(err.contains("\"draw\", \"first\" or \"second\""), "{err}");
}

#[test]
fn material_adjudication_scores_ply_capped_games_only() {
    use rules::Viking;
    // The Viking start without Black's queen and king's rook: White +14.
    let ahead =
        Viking::from_text("12/12/12/12/1PPPP2pppp1/RPNNPPppnnpr/RBKQBPpb1kb1 w - - 0 1").unwrap();
    assert_eq!(ahead.material(), Some(14.0));
    assert_eq!(adjudicate(&ahead, 3.0), Some(rules::Player::First));
    assert_eq!(adjudicate(&ahead, 14.5), None);
    assert_eq!(adjudicate(&ahead, 0.0), None, "0 turns adjudication off");
    assert_eq!(adjudicate(&Viking::start(), 3.0), None);
    assert_eq!(
        adjudicate(&Shakti::start(), 3.0),
        None,
        "no material measure"
    );
    let cfg = SelfPlayConfig {
        games_per_generation: 2,
        concurrent_games: 2,
        simulations: 4,
        ply_cap: 4,
        adjudicate_material: 3.0,
        ..SelfPlayConfig::default()
    };
    assert_eq!(cfg.validate(), Ok(()));
    let mut records = Vec::new();
    let search = SearchConfig::default();
    play_games(
        &plan(&ahead, &search, &cfg, 2, 3),
        &mut UniformEvaluator,
        |r| records.push(r),
    );
    assert_eq!(records.len(), 2);
    for r in &records {
        assert!(r.ply_capped);
        let end = r.replay::<Viking>(|_, _, _| {}).unwrap();
        assert_eq!(
            r.winner,
            adjudicate(&end, 3.0),
            "final material {:?}",
            end.material()
        );
    }
    let off = SelfPlayConfig {
        adjudicate_material: 0.0,
        ..cfg
    };
    records.clear();
    play_games(
        &plan(&ahead, &search, &off, 2, 3),
        &mut UniformEvaluator,
        |r| records.push(r),
    );
    assert!(records.iter().all(|r| r.ply_capped && r.winner.is_none()));
    let bad = SelfPlayConfig {
        adjudicate_material: f32::NAN,
        ..off
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .contains("adjudicate_material"));
    for mix in [-0.1, 1.5, f32::NAN] {
        let bad = SelfPlayConfig {
            rollout_mix: mix,
            ..SelfPlayConfig::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("rollout_mix"),
            "{mix}"
        );
    }
}

#[test]
fn playout_cap_extremes() {
    // p = 1: every searched move full and recorded (the old behaviour).
    let (records, stats) = play(&SearchConfig::default(), &config(1.0), 9);
    let searched: usize = records
        .iter()
        .map(|r| searched_plies(r).iter().filter(|s| **s).count())
        .sum();
    assert_eq!(stats.fast_searches, 0);
    assert_eq!(stats.full_searches, searched);
    assert_eq!(stats.positions, searched);
    // p = 0: nothing recorded, every search fast (2 root visits: the
    // root plus at most one more evaluation per move, fewer with reuse).
    let (records, stats) = play(&SearchConfig::default(), &config(0.0), 9);
    assert_eq!(stats.full_searches, 0);
    assert_eq!(stats.positions, 0);
    assert!(records.iter().all(|r| r.recorded() == 0));
    assert!(stats.evaluations <= 2 * stats.fast_searches as u64);
}

#[test]
fn resignation_ends_games_and_played_out_games_give_samples() {
    // Threshold 1: every searched position is "lost enough", so with
    // one search in a row required, the first player resigns at once.
    let resign_all = SelfPlayConfig {
        resign: true,
        resign_threshold: 1.0,
        resign_threshold_max: 1.0,
        resign_consecutive: 1,
        resign_playout_fraction: 0.0,
        ..config(1.0)
    };
    assert_eq!(resign_all.validate(), Ok(()));
    let (records, stats) = play(&SearchConfig::default(), &resign_all, 2);
    assert_eq!(stats.resigned, 3);
    assert_eq!(stats.played_out, 0);
    for r in &records {
        assert!(r.actions.is_empty() && r.targets.is_empty());
        assert_eq!(r.winner, Some(rules::Player::Second));
        assert!(!r.ply_capped);
    }
    // Every game played out: no resignation, one sample per player and
    // game (both search at least twice before the ply cap of 24).
    let play_out_all = SelfPlayConfig {
        resign_consecutive: 2,
        resign_playout_fraction: 1.0,
        ..resign_all
    };
    let (records, stats) = play(&SearchConfig::default(), &play_out_all, 2);
    assert_eq!(stats.resigned, 0);
    assert_eq!(stats.played_out, 3);
    assert_eq!(stats.resign_samples.len(), 6);
    assert!(records.iter().all(|r| r.actions.len() >= 4));
    // Resignation off: nothing measured, nothing resigned.
    let (_, stats) = play(&SearchConfig::default(), &config(1.0), 2);
    assert_eq!((stats.resigned, stats.played_out), (0, 0));
    assert!(stats.resign_samples.is_empty());
}

#[test]
fn config_checks_the_playout_cap_keys() {
    let bad_p = SelfPlayConfig {
        full_search_prob: 1.5,
        ..SelfPlayConfig::default()
    };
    assert!(bad_p
        .validate()
        .unwrap_err()
        .to_string()
        .contains("full_search_prob"));
    let bad_fast = SelfPlayConfig {
        full_search_prob: 0.5,
        fast_simulations: 100,
        simulations: 64,
        ..SelfPlayConfig::default()
    };
    assert!(bad_fast
        .validate()
        .unwrap_err()
        .to_string()
        .contains("fast_simulations"));
    // `full_simulations` is another name for `simulations`.
    let parsed: SelfPlayConfig =
        toml::from_str("full_simulations = 100\nfull_search_prob = 0.25\nfast_simulations = 20\n")
            .unwrap();
    assert_eq!(parsed.simulations, 100);
    assert_eq!(parsed.validate(), Ok(()));
}

#[test]
fn fast_simulations_are_checked_against_the_second_players_budget() {
    let text = "simulations = 64\nsecond_player_simulations = 4\n\
                full_search_prob = 0.5\nfast_simulations = 40\n";
    let bad: SelfPlayConfig = toml::from_str(text).unwrap();
    assert_eq!(
        bad.validate().map_err(|e| e.to_string()),
        Err(
            "selfplay.fast_simulations must be in 1..=selfplay.second_player_simulations (4) \
             when full_search_prob < 1, got 40"
                .into()
        )
    );
    // Within both budgets, with the cap off, or with no second budget: fine.
    for ok in [
        SelfPlayConfig {
            fast_simulations: 4,
            ..bad.clone()
        },
        SelfPlayConfig {
            full_search_prob: 1.0,
            ..bad.clone()
        },
        SelfPlayConfig {
            second_player_simulations: 0,
            ..bad.clone()
        },
    ] {
        assert_eq!(ok.validate(), Ok(()), "{ok:?}");
    }
}

#[test]
fn gumbel_self_play_records_improved_policies() {
    // Without decisive moves: a position with a win in one action gets
    // a target on the winning actions only (their priors are the only
    // non-zero ones); this test checks the dense improved policy.
    let search = SearchConfig {
        root: RootKind::Gumbel,
        gumbel_m: 4,
        decisive_moves: false,
        ..SearchConfig::default()
    };
    let cfg = SelfPlayConfig {
        concurrent_games: 2,
        ..config(0.5)
    };
    let (records, stats) = play(&search, &cfg, 3);
    assert_eq!(records.len(), 3);
    assert!(stats.positions > 0);
    for record in &records {
        for target in record.targets.iter().flatten() {
            let sum: f32 = target.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "{sum}");
            // Improved policies are dense: every legal action gets mass.
            assert!(target.policy.iter().all(|p| *p > 0.0));
        }
    }
}

/// Branching: with `branch_fraction` 1 every game starts from one of the
/// given positions (and records it as its start); with 0 none does, and
/// the games are those of a call without a pool.
#[test]
fn branched_games_start_from_the_pool() {
    let search = SearchConfig::default();
    let mut mid = Shakti::start();
    for _ in 0..6 {
        let legal = mid.legal_vec();
        mid.play(legal[legal.len() / 2]);
    }
    let pool = [mid.clone()];
    let start = Shakti::start();
    let games = |fraction: f32, pool: &[Shakti]| {
        let cfg = SelfPlayConfig {
            branch_fraction: fraction,
            ..config(1.0)
        };
        let mut records = Vec::new();
        let plan = Games {
            branch_starts: pool,
            ..plan(&start, &search, &cfg, 4, 3)
        };
        play_games(&plan, &mut UniformEvaluator, |r| records.push(r));
        records
    };
    let branched = games(1.0, &pool);
    assert_eq!(branched.len(), 4);
    assert!(branched.iter().all(|r| r.start == mid.to_text()));
    assert!(branched
        .iter()
        .all(|r| r.replay::<Shakti>(|_, _, _| {}).is_ok()));
    let unbranched = games(0.0, &pool);
    assert!(unbranched.iter().all(|r| r.start == start.to_text()));
    assert_eq!(unbranched, games(0.5, &[]));
}

#[test]
fn branch_fraction_out_of_range_is_named() {
    let cfg = SelfPlayConfig {
        branch_fraction: 1.5,
        ..config(1.0)
    };
    assert_eq!(
        cfg.validate(),
        Err(search::InvalidSetting::new(
            "selfplay.branch_fraction",
            "must be in [0, 1]"
        ))
    );
    // A book no game would start from is a mistake worth naming.
    let idle_book = SelfPlayConfig {
        branch_book: Some("book.txt".into()),
        branch_fraction: 0.0,
        ..config(1.0)
    };
    let err = idle_book.validate().unwrap_err().to_string();
    assert!(
        err.contains("branch_book is set but selfplay.branch_fraction is 0"),
        "{err}"
    );
    let used_book = SelfPlayConfig {
        branch_fraction: 0.25,
        ..idle_book
    };
    assert_eq!(used_book.validate(), Ok(()));
}

#[test]
fn second_player_simulations_set_the_second_players_full_searches() {
    let handicap = SelfPlayConfig {
        second_player_simulations: 40,
        ..config(1.0)
    };
    assert_eq!(handicap.validate(), Ok(()));
    let (start, search) = (Shakti::start(), SearchConfig::default());
    let games = plan(&start, &search, &handicap, 1, 5);
    let mut slot = Slot::new(&games, 5);
    // White (first) searches `simulations`, black (second) 40, white again 8.
    let mut targets = vec![slot.target];
    for _ in 0..2 {
        let action = slot.game.legal_vec()[0];
        slot.game.play(action);
        slot.begin_move(&handicap);
        targets.push(slot.target);
    }
    assert_eq!(targets, [8, 40, 8]);
    // 0 = the same budget for both sides; fast searches keep theirs.
    assert_eq!(config(1.0).full_simulations(rules::Player::Second), 8);
    let fast_only = SelfPlayConfig {
        full_search_prob: 0.0,
        ..handicap
    };
    let mut slot = Slot::new(&plan(&start, &search, &fast_only, 1, 5), 5);
    slot.game.play(slot.game.legal_vec()[0]);
    slot.begin_move(&fast_only);
    assert_eq!(slot.target, 2);
}

#[test]
fn a_record_splits_into_whole_turns() {
    // Loki splits some turns into several actions (its powers).
    use rules::Loki;
    let mut rng = SmallRng::seed_from_u64(11);
    let start = Loki::start();
    let mut game = start.clone();
    let mut record = GameRecord::new(start.to_text());
    let mut played = Vec::new();
    let mut legal = Vec::new();
    let mut multi = false;
    while game.outcome().is_none() && played.len() < 400 {
        game.legal_actions(&mut legal);
        let index = rng.random_range(0..legal.len());
        record.actions.push(index as u16);
        played.push(legal[index]);
        game.play(legal[index]);
        multi |= game.mid_turn();
    }
    assert!(multi, "the seed should reach a multi-part turn");
    let (root, turns) = record.turns::<Loki>().unwrap();
    assert_eq!(root.to_text(), start.to_text());
    assert_eq!(turns.concat(), played);
    let mut game = root;
    for turn in &turns {
        for (i, &action) in turn.iter().enumerate() {
            assert!(i == 0 || game.mid_turn(), "a turn starts mid-turn");
            game.play(action);
        }
        assert!(
            !game.mid_turn() || game.outcome().is_some(),
            "a turn ends mid-turn"
        );
    }
    // An index out of range is an error, not a panic.
    record.actions.push(u16::MAX);
    assert!(record.turns::<Loki>().is_err());
}
