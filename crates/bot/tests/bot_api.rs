//! The bot API on tiny untrained bundles: loading, positions, analysis,
//! move choice at each strength level, and error cases.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bot::{write_untrained_bundle, Bot, BotError, Strength};
use rules::VariantId;
use search::Budget;

fn device() -> burn::tensor::Device {
    burn::tensor::Device::flex()
}

fn bundle(variant: VariantId) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(variant.as_str());
    write_untrained_bundle(&dir, variant, 1, 8, 16, &device()).unwrap();
    (tmp, dir)
}

#[test]
fn load_picks_the_variant_from_the_bundle() {
    for variant in VariantId::ALL {
        let (_tmp, dir) = bundle(variant);
        let mut bot = Bot::load(&dir, &device()).unwrap();
        assert_eq!(bot.variant(), variant);
        assert_eq!(bot.meta().unwrap().generation, 0);
        let choice = bot.choose_move(&Budget::nodes(16), &mut |_| {}).unwrap();
        // The budget is the whole move's, a Loki move of two actions too.
        assert_eq!(choice.info.nodes, 16, "{variant}");
        // The chosen token is a legal move of the start position.
        bot.set_position(None, &[choice.mv.as_str()]).unwrap();
    }
}

#[test]
fn wrong_variant_is_a_clear_error() {
    let (_tmp, dir) = bundle(VariantId::Shakti);
    let err = Bot::load_for(VariantId::Losers, &dir, &device())
        .err()
        .unwrap();
    assert!(matches!(err, BotError::WrongVariant { .. }));
    let text = err.to_string();
    assert!(
        text.contains("is for variant shakti, but variant losers was asked for"),
        "{text}"
    );
}

#[test]
fn positions_and_bad_input() {
    let (_tmp, dir) = bundle(VariantId::Losers);
    let mut bot = Bot::load(&dir, &device()).unwrap();
    bot.set_position(Some("startpos"), &["e2e4", "e7e5"])
        .unwrap();
    assert_eq!(
        bot.position_text(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // Illegal move: error names index and token; position unchanged.
    let err = bot
        .set_position(Some("startpos"), &["e2e4", "e2e4"])
        .unwrap_err();
    assert!(matches!(err, BotError::Move { index: 1, .. }), "{err}");
    assert!(bot.position_text().ends_with("KQkq - 0 2"));
    let err = bot
        .set_position(Some("not a fen"), &[] as &[&str])
        .unwrap_err();
    assert!(matches!(err, BotError::Position(_)), "{err}");
    // docs/rules.md §1: only e1e2 (capture forced).
    bot.set_position(Some("4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1"), &[] as &[&str])
        .unwrap();
    assert_eq!(bot.legal_actions(), vec!["e1e2"]);
    let choice = bot.choose_move(&Budget::nodes(50), &mut |_| {}).unwrap();
    assert_eq!(choice.mv, "e1e2");
    assert_eq!(choice.info.nodes, 1, "a forced move gets one evaluation");
    // After it Black has a bare king and has won: no move to choose.
    bot.set_position(Some("4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1"), &["e1e2"])
        .unwrap();
    assert!(bot.outcome().is_some());
    let err = bot
        .choose_move(&Budget::nodes(10), &mut |_| {})
        .unwrap_err();
    assert!(matches!(err, BotError::GameOver(_)), "{err}");
    let analysis = bot.analyse(&Budget::nodes(10), 5).unwrap();
    assert!(analysis.actions.is_empty());
    assert_eq!(
        analysis.root.wdl,
        [1.0, 0.0, 0.0],
        "Black (to move, bare king) has won"
    );
}

#[test]
fn analysis_reports_top_actions() {
    let (_tmp, dir) = bundle(VariantId::Losers);
    let mut bot = Bot::load(&dir, &device()).unwrap();
    let a = bot.analyse(&Budget::nodes(64), 3).unwrap();
    assert_eq!(a.root.visits, 64);
    assert_eq!(a.actions.len(), 3);
    // Root children's visits sum to one less than the root's (its own evaluation).
    let all = bot.analyse(&Budget::nodes(64), 0).unwrap();
    assert_eq!(all.actions.len(), 20);
    assert_eq!(all.actions.iter().map(|x| x.visits).sum::<u32>(), 63);
    let prior_sum: f32 = all.actions.iter().map(|x| x.prior).sum();
    assert!((prior_sum - 1.0).abs() < 1e-4, "{prior_sum}");
    for w in all.actions.windows(2) {
        assert!(w[0].visits >= w[1].visits);
    }
    for x in &all.actions {
        assert_eq!(x.pv[0], x.action);
        assert_eq!(x.q.is_some(), x.visits > 0);
    }
    assert!(bot.analyse(&Budget::default(), 3).is_err(), "no limit");
}

#[test]
fn strength_levels() {
    let (_tmp, dir) = bundle(VariantId::Shakti);
    let mut bot = Bot::load(&dir, &device()).unwrap();
    // Node cap applies below the limits.
    bot.set_strength(Strength {
        max_nodes: Some(5),
        ..Strength::default()
    })
    .unwrap();
    let c = bot.choose_move(&Budget::nodes(100), &mut |_| {}).unwrap();
    assert_eq!(c.info.nodes, 5);
    // Policy-only: one evaluation, deterministic at temperature 0.
    bot.set_strength(Strength {
        policy_only: true,
        ..Strength::default()
    })
    .unwrap();
    let a = bot.choose_move(&Budget::nodes(100), &mut |_| {}).unwrap();
    let b = bot.choose_move(&Budget::nodes(100), &mut |_| {}).unwrap();
    assert_eq!(a.info.nodes, 1);
    assert_eq!(a.mv, b.mv);
    // Temperature sampling from a uniform-ish policy spreads the choice.
    bot.set_strength(Strength {
        policy_only: true,
        temperature: 100.0,
        ..Strength::default()
    })
    .unwrap();
    let distinct: std::collections::HashSet<String> = (0..40)
        .map(|_| bot.choose_move(&Budget::nodes(1), &mut |_| {}).unwrap().mv)
        .collect();
    assert!(distinct.len() > 3, "{distinct:?}");
    assert!(bot
        .set_strength(Strength {
            temperature: -1.0,
            ..Strength::default()
        })
        .is_err());
}

#[test]
fn stop_flag_and_time_limit_end_the_search() {
    let (_tmp, dir) = bundle(VariantId::Losers);
    let mut bot = Bot::load(&dir, &device()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let limits = Budget {
        stop: Some(stop),
        ..Budget::default()
    };
    let c = bot.choose_move(&limits, &mut |_| {}).unwrap();
    stopper.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(c.info.nodes > 1);
    let started = Instant::now();
    let c = bot
        .choose_move(&Budget::time(Duration::from_millis(200)), &mut |_| {})
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(c.info.nodes >= 1);
}

#[test]
fn loki_moves_are_whole_tokens() {
    let (_tmp, dir) = bundle(VariantId::Loki);
    let mut bot = Bot::load(&dir, &device()).unwrap();
    let mut moves: Vec<String> = Vec::new();
    // Sample moves with temperature so multi-action moves come up; every
    // chosen token must replay through parse_move.
    bot.set_strength(Strength {
        temperature: 1.0,
        ..Strength::default()
    })
    .unwrap();
    for _ in 0..12 {
        if bot.outcome().is_some() {
            break;
        }
        let c = bot.choose_move(&Budget::nodes(8), &mut |_| {}).unwrap();
        moves.push(c.mv);
        bot.set_position(None, &moves).unwrap();
    }
    assert!(!moves.is_empty());
}

#[test]
fn int8_precision_where_the_cpu_has_vnni_and_fp32_elsewhere() {
    use model::Precision;
    for variant in [VariantId::Losers, VariantId::Shakti] {
        let (_tmp, dir) = bundle(variant);
        let mut bot = Bot::load(&dir, &device()).unwrap();
        let expected = if model::quant::int8_accelerated() {
            Precision::Int8
        } else {
            Precision::Fp32
        };
        assert_eq!(bot.set_precision(Precision::Int8), expected, "{variant}");
        let choice = bot.choose_move(&Budget::nodes(16), &mut |_| {}).unwrap();
        assert_eq!(choice.info.nodes, 16, "{variant}");
        bot.set_position(None, &[choice.mv.as_str()]).unwrap();
        // And back.
        assert_eq!(bot.set_precision(Precision::Fp32), Precision::Fp32);
    }
}
