//! The JSON API through the router (tower's `oneshot`, no socket): each
//! endpoint, each class of bad input, and games of two clients side by
//! side. Uses the shipped bundles in `models/`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use serde_json::{json, Value};
use serve::{router, ServeConfig, Service};
use tower::ServiceExt;

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

/// One service for the tests of this file (loading the bundles once).
fn service() -> Arc<Service> {
    static SERVICE: OnceLock<Arc<Service>> = OnceLock::new();
    SERVICE
        .get_or_init(|| {
            let mut config = ServeConfig::new(models());
            config.max_nodes = 5000;
            config.max_movetime_ms = 5000;
            config.body_limit = 4096;
            Arc::new(Service::new(config).expect("the shipped bundles load"))
        })
        .clone()
}

/// Send `body` (raw text) to `path`; returns the status and the JSON answer.
async fn send_raw(
    service: &Arc<Service>,
    method: Method,
    path: &str,
    body: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(path);
    if body.is_some() {
        request = request.header(header::CONTENT_TYPE, "application/json");
    }
    let request = request
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    let response = router(service.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = to_bytes(response.into_body(), 1 << 24).await.unwrap();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| json!({ "raw": String::from_utf8_lossy(&bytes) }));
    (status, value)
}

async fn get(service: &Arc<Service>, path: &str) -> (StatusCode, Value) {
    send_raw(service, Method::GET, path, None).await
}

async fn post(service: &Arc<Service>, path: &str, body: Value) -> (StatusCode, Value) {
    send_raw(service, Method::POST, path, Some(&body.to_string())).await
}

async fn new_game(service: &Arc<Service>, variant: &str, position: Option<&str>) -> Value {
    let mut body = json!({ "variant": variant });
    if let Some(p) = position {
        body["position"] = json!(p);
    }
    let (status, game) = post(service, "/api/games", body).await;
    assert_eq!(status, StatusCode::OK, "{game}");
    game
}

/// A 4xx answer whose JSON `error` contains `needle`.
fn assert_error(answer: &(StatusCode, Value), status: StatusCode, needle: &str) {
    assert_eq!(answer.0, status, "{}", answer.1);
    let message = answer.1["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message: {}", answer.1));
    assert!(
        message.contains(needle),
        "{message:?} should name {needle:?}"
    );
}

/// Positions one move from the end, with the move that ends the game and
/// the winner (`docs/rules.md` for each variant's rules).
pub const LAST_MOVES: [(&str, &str, &str, &str); 6] = [
    (
        "losers",
        "4k3/8/8/8/8/8/4r2P/4K3 w - - 0 1",
        "e1e2",
        "second",
    ),
    (
        "viking",
        "k11/2K9/12/12/12/12/1Q10 w - - 0 1",
        "b1b7",
        "first",
    ),
    (
        "hnefatafl",
        "5s5/11/11/11/11/11/11/11/11/11/1K9 d",
        "b1a1",
        "second",
    ),
    (
        "loki",
        "5s5/11/11/11/11/11/11/11/11/11/1K9 d 3333/3333 -",
        "b1a1",
        "second",
    ),
    ("shakti", "kx5/xxW4/7/7/7/7/6K w", "c6c7", "first"),
    (
        "copenhagen",
        "5s5/11/11/11/11/11/11/11/11/11/1K9 d",
        "b1a1",
        "second",
    ),
];

#[tokio::test]
async fn variants_list_bundles_levels_and_caps() {
    let service = service();
    let (status, body) = get(&service, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    let variants = body["variants"].as_array().unwrap();
    let ids: Vec<&str> = variants.iter().map(|v| v["id"].as_str().unwrap()).collect();
    // Every variant of the rules crate, in its order.
    assert_eq!(ids, rules::VariantId::ALL.map(rules::VariantId::as_str));
    for v in variants {
        assert_eq!(v["bot"], json!(true), "{v}");
        assert!(v["generation"].as_u64().unwrap() > 0, "{v}");
        assert!(v["strength"].as_str().unwrap().contains(" games"), "{v}");
    }
    assert_eq!(body["limits"]["max_nodes"], json!(5000));
    assert!(body["levels"].as_array().unwrap().len() >= 3);
}

/// `/api/variants` reports each shipped bundle's headline record, the
/// first match of its `model.json` against a fixed opponent: the record
/// the README's table and `docs/models.md` show
/// (`tests/strength_figures.rs` checks those against the same files).
#[tokio::test]
async fn variants_report_the_headline_record_of_each_model_json() {
    let service = service();
    let (status, body) = get(&service, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    for v in body["variants"].as_array().unwrap() {
        let id = v["id"].as_str().unwrap();
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(models().join(id).join("model.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(v["generation"], meta["generation"], "{id}");
        let matches = meta["strength"]["matches"].as_array().unwrap();
        let headline = matches
            .iter()
            .find(|m| !m["b"].as_str().unwrap().starts_with("bundle:"))
            .unwrap_or_else(|| panic!("{id}: no match against a fixed opponent"));
        let line = v["strength"].as_str().unwrap();
        let expected = format!(
            "+{} ={} -{} vs {} ({} games",
            headline["wins"],
            headline["draws"],
            headline["losses"],
            headline["b"].as_str().unwrap(),
            headline["games"]
        );
        assert!(
            line.starts_with(&expected),
            "{id}: {line:?} is not {expected:?}"
        );
        assert_eq!(
            Some(line.to_string()),
            serve::catalog::strength_line(&meta["strength"]),
            "{id}"
        );
    }
}

#[tokio::test]
async fn every_variant_plays_a_move_and_a_bot_move() {
    let service = service();
    for (variant, width, height) in [
        ("losers", 8, 8),
        ("viking", 12, 7),
        ("hnefatafl", 11, 11),
        ("loki", 11, 11),
        ("shakti", 7, 7),
        ("copenhagen", 11, 11),
    ] {
        let game = new_game(&service, variant, None).await;
        let id = game["id"].as_str().unwrap();
        assert_eq!(game["side_to_move"], "first");
        assert_eq!(game["outcome"], Value::Null);
        assert_eq!(game["board"]["width"], json!(width));
        assert_eq!(
            game["board"]["squares"].as_array().unwrap().len(),
            width * height
        );
        let legal = game["legal_moves"].as_array().unwrap();
        assert_eq!(legal.len(), game["legal"].as_array().unwrap().len());
        let first = legal[0].as_str().unwrap();
        let (status, after) = post(
            &service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": first }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{after}");
        assert_eq!(after["moves"], json!([first]));
        let (status, answer) = post(
            &service,
            &format!("/api/games/{id}/bot"),
            json!({ "nodes": 8 }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{variant}: {answer}");
        let bot_move = answer["bot"]["move"].as_str().unwrap();
        assert!(
            after["legal_moves"]
                .as_array()
                .unwrap()
                .contains(&json!(bot_move)),
            "{variant}: {bot_move}"
        );
        assert_eq!(answer["moves"], json!([first, bot_move]));
        let wdl: Vec<f64> = answer["bot"]["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{wdl:?}");
        assert_eq!(answer["bot"]["pv"][0], json!(bot_move));
        let (status, fetched) = get(&service, &format!("/api/games/{id}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(fetched["moves"], answer["moves"]);
        assert_eq!(fetched["position"], answer["position"]);
    }
}

#[tokio::test]
async fn tafl_board_marks_and_loki_powers() {
    let service = service();
    let game = new_game(&service, "loki", None).await;
    let squares = game["board"]["squares"].as_array().unwrap();
    let mark = |name: &str| squares.iter().find(|s| s["name"] == name).unwrap()["mark"].clone();
    assert_eq!(mark("f6"), json!("throne"));
    assert_eq!(mark("a1"), json!("corner"));
    assert_eq!(mark("k11"), json!("corner"));
    assert_eq!(
        game["powers"][0],
        json!({"exchange": 3, "command": 3, "freeze": 3, "hop": 3})
    );
    assert_eq!(game["board"]["style"], json!("lines"));
    assert_eq!(
        game["board"]["powers"][0],
        json!({"kind": "exchange", "name": "Exchange", "uses": [3, 3]})
    );
    let king = squares.iter().find(|s| s["name"] == "f6").unwrap();
    assert_eq!(
        king["figure"],
        json!({"side": "second", "name": "king", "symbol": "♔", "shape": "disc", "colour": "light"})
    );
    // Whole-turn tokens: exchanges and commands are single tokens.
    let legal: Vec<&str> = game["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        legal.len(),
        1488,
        "the loki start has 1488 whole turns (docs/rules.md §4)"
    );
    let exchange = legal.iter().find(|m| m.starts_with("x:")).unwrap();
    assert!(legal.iter().any(|m| m.starts_with("g:") && m.len() == 10));
    let id = game["id"].as_str().unwrap();
    // The first part of an exchange alone is not a move.
    let half = &exchange[..4];
    assert_error(
        &post(
            &service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": half }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        half,
    );
    let (status, after) = post(
        &service,
        &format!("/api/games/{id}/moves"),
        json!({ "move": exchange }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["powers"][0]["exchange"], json!(2));
    assert_eq!(after["side_to_move"], "second");
    // Shakti holes.
    let shakti = new_game(&service, "shakti", Some("x5x/1w1k1w1/7/7/7/1W1K1W1/x5x w")).await;
    let a1 = shakti["board"]["squares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "a1")
        .unwrap()
        .clone();
    assert_eq!(
        (a1["hole"].clone(), a1["piece"].clone()),
        (json!(true), Value::Null)
    );
}

#[tokio::test]
async fn one_move_from_the_end_finishes_every_variant() {
    let service = service();
    for (variant, position, last, winner) in LAST_MOVES {
        let game = new_game(&service, variant, Some(position)).await;
        let id = game["id"].as_str().unwrap();
        let (status, over) = post(
            &service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": last }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{variant}: {over}");
        assert_eq!(
            over["outcome"]["winner"],
            json!(winner),
            "{variant}: {over}"
        );
        assert_eq!(over["legal_moves"], json!([]));
        // No move and no bot move after the end.
        let again = post(
            &service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": last }),
        )
        .await;
        assert_error(&again, StatusCode::CONFLICT, "over");
        let bot = post(&service, &format!("/api/games/{id}/bot"), json!({})).await;
        assert_error(&bot, StatusCode::CONFLICT, "over");
    }
}

#[tokio::test]
async fn undo_takes_back_moves_and_refuses_too_many() {
    let service = service();
    let game = new_game(&service, "losers", None).await;
    let id = game["id"].as_str().unwrap();
    let mut states = vec![game.clone()];
    for token in ["e2e3", "e7e6"] {
        let (status, state) = post(
            &service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": token }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{state}");
        states.push(state);
    }
    let undo = |plies: Value| {
        let service = service.clone();
        let path = format!("/api/games/{id}/undo");
        async move { post(&service, &path, json!({ "plies": plies })).await }
    };
    let (status, back) = undo(json!(1)).await;
    assert_eq!(status, StatusCode::OK, "{back}");
    assert_eq!(back["moves"], json!(["e2e3"]));
    assert_eq!(back["position"], states[1]["position"]);
    assert_eq!(back["legal_moves"], states[1]["legal_moves"]);
    // The SAN list and the PGN are of the game that stands.
    assert_eq!(back["san"], states[1]["san"]);
    assert_eq!(back["san"], json!(["e3"]));
    assert_eq!(back["pgn"], states[1]["pgn"]);
    // More than were played: refused, the game unchanged.
    assert_error(&undo(json!(2)).await, StatusCode::BAD_REQUEST, "plies");
    assert_error(&undo(json!(0)).await, StatusCode::BAD_REQUEST, "plies");
    let (_, now) = get(&service, &format!("/api/games/{id}")).await;
    assert_eq!(now["moves"], json!(["e2e3"]));
    let (status, start) = undo(json!(1)).await;
    assert_eq!(status, StatusCode::OK, "{start}");
    assert_eq!(start["position"], game["position"]);
    assert_eq!(start["moves"], json!([]));
    assert_eq!(start["san"], json!([]));
    assert_eq!(start["pgn"], game["pgn"]);
    // Nothing left to take back: said so.
    assert_error(&undo(json!(1)).await, StatusCode::BAD_REQUEST, "no moves");
    // A finished game can be taken back and played on; a start position is kept.
    let (variant, position, last, _) = LAST_MOVES[0];
    let game = new_game(&service, variant, Some(position)).await;
    let id = game["id"].as_str().unwrap();
    let path = format!("/api/games/{id}");
    let (_, over) = post(&service, &format!("{path}/moves"), json!({ "move": last })).await;
    assert!(over["outcome"].is_object(), "{over}");
    let (status, back) = post(&service, &format!("{path}/undo"), json!({ "plies": 1 })).await;
    assert_eq!(status, StatusCode::OK, "{back}");
    assert_eq!(back["outcome"], Value::Null);
    assert_eq!(back["position"], game["position"]);
    assert_eq!(back["start"], json!(position));
    let unknown = post(&service, "/api/games/nope/undo", json!({ "plies": 1 })).await;
    assert_error(&unknown, StatusCode::NOT_FOUND, "nope");
}

#[tokio::test]
async fn the_variants_side_colours_and_the_check_square() {
    let service = service();
    let (_, body) = get(&service, "/api/variants").await;
    let colours = |id: &str| {
        body["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == json!(id))
            .unwrap()["colours"]
            .clone()
    };
    assert_eq!(colours("losers"), json!(["light", "dark"]));
    assert_eq!(colours("hnefatafl"), json!(["dark", "light"]));
    assert_eq!(colours("shakti"), json!(["light", "dark"]));
    // Black's king on e8 in check from the rook on e2; none at the start.
    let game = new_game(&service, "losers", Some("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1")).await;
    assert_eq!(game["board"]["check"], json!("e8"));
    let game = new_game(&service, "viking", None).await;
    assert_eq!(game["board"]["check"], Value::Null);
    let game = new_game(&service, "hnefatafl", None).await;
    assert_eq!(game["board"]["check"], Value::Null);
}

#[tokio::test]
async fn bad_input_gets_a_4xx_naming_the_problem() {
    let service = service();
    let game = new_game(&service, "losers", None).await;
    let id = game["id"].as_str().unwrap();
    let moves = format!("/api/games/{id}/moves");
    let bot = format!("/api/games/{id}/bot");
    // Malformed JSON, a missing field, an unknown field, no JSON content type.
    assert_error(
        &send_raw(&service, Method::POST, "/api/games", Some("{\"variant\": ")).await,
        StatusCode::BAD_REQUEST,
        "EOF",
    );
    assert_error(
        &post(&service, "/api/games", json!({})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "variant",
    );
    assert_error(
        &post(
            &service,
            "/api/games",
            json!({"variant": "losers", "colour": "w"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "colour",
    );
    assert_error(
        &send_raw(&service, Method::POST, &moves, None).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "Content-Type",
    );
    // Unknown variant, bad position, unknown game, unknown path.
    assert_error(
        &post(&service, "/api/games", json!({"variant": "chess960"})).await,
        StatusCode::BAD_REQUEST,
        "chess960",
    );
    assert_error(
        &post(
            &service,
            "/api/games",
            json!({"variant": "losers", "position": "8/8 w"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "position",
    );
    assert_error(
        &get(&service, "/api/games/nope").await,
        StatusCode::NOT_FOUND,
        "nope",
    );
    assert_error(
        &post(&service, "/api/games/nope/moves", json!({"move": "e2e4"})).await,
        StatusCode::NOT_FOUND,
        "nope",
    );
    assert_error(
        &post(&service, "/api/games/nope/bot", json!({})).await,
        StatusCode::NOT_FOUND,
        "nope",
    );
    assert_error(
        &get(&service, "/api/nothing").await,
        StatusCode::NOT_FOUND,
        "no such endpoint",
    );
    // A known path with the wrong method: 405 with a JSON body too.
    assert_error(
        &get(&service, "/api/analyse").await,
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed",
    );
    // Illegal and malformed moves leave the game as it was.
    assert_error(
        &post(&service, &moves, json!({"move": "e2e5"})).await,
        StatusCode::BAD_REQUEST,
        "e2e5",
    );
    assert_error(
        &post(&service, &moves, json!({"move": "zz"})).await,
        StatusCode::BAD_REQUEST,
        "zz",
    );
    assert_eq!(
        get(&service, &format!("/api/games/{id}")).await.1["moves"],
        json!([])
    );
    // A body over the limit.
    let long = json!({"move": "e".repeat(5000)});
    assert_error(
        &post(&service, &moves, long).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "size limit",
    );
    // Budgets beyond the caps, an unknown level.
    assert_error(
        &post(&service, &bot, json!({"nodes": 5001})).await,
        StatusCode::BAD_REQUEST,
        "nodes",
    );
    assert_error(
        &post(&service, &bot, json!({"nodes": 0})).await,
        StatusCode::BAD_REQUEST,
        "nodes",
    );
    assert_error(
        &post(&service, &bot, json!({"movetime_ms": 60000})).await,
        StatusCode::BAD_REQUEST,
        "movetime_ms",
    );
    assert_error(
        &post(&service, &bot, json!({"level": "grandmaster"})).await,
        StatusCode::BAD_REQUEST,
        "grandmaster",
    );
    assert_error(
        &post(&service, &bot, json!({"nodes": -3})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "nodes",
    );
    // Analysis: unknown variant, over the cap, a server-side bundle path, a bad move.
    assert_error(
        &post(&service, "/api/analyse", json!({"variant": "go"})).await,
        StatusCode::BAD_REQUEST,
        "go",
    );
    assert_error(
        &post(
            &service,
            "/api/analyse",
            json!({"variant": "losers", "nodes": 9999}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "nodes",
    );
    assert_error(
        &post(
            &service,
            "/api/analyse",
            json!({"variant": "losers", "movetime": "1000s"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "movetime",
    );
    assert_error(
        &post(
            &service,
            "/api/analyse",
            json!({"variant": "losers", "movetime": "soon"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "movetime",
    );
    assert_error(
        &post(
            &service,
            "/api/analyse",
            json!({"variant": "losers", "bundle": "/etc"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "bundle",
    );
    assert_error(
        &post(
            &service,
            "/api/analyse",
            json!({"variant": "losers", "moves": ["e2e5"]}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "e2e5",
    );
    // The game is untouched by all of it.
    let (_, still) = get(&service, &format!("/api/games/{id}")).await;
    assert_eq!(
        (still["moves"].clone(), still["position"].clone()),
        (json!([]), game["position"].clone())
    );
}

/// A path parameter that is not UTF-8 once percent-decoded gets a 400 with
/// the JSON error shape of every other failure (not axum's plain text),
/// naming the parameter, on every route that has one.
#[tokio::test]
async fn a_path_parameter_that_is_not_utf8_gets_a_json_400() {
    let service = service();
    let body = json!({"token": "e2e3"}).to_string();
    for (method, path, param) in [
        (Method::GET, "/api/games/%ff%fe", "id"),
        (Method::POST, "/api/games/%ff%fe/moves", "id"),
        (Method::POST, "/api/games/%ff%fe/bot", "id"),
        (Method::GET, "/assets/%ff%fe", "name"),
    ] {
        let request = Request::builder()
            .method(method.clone())
            .uri(path)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.clone()))
            .unwrap();
        let response = router(service.clone()).oneshot(request).await.unwrap();
        assert_eq!(
            response.status(),
            StatusCode::BAD_REQUEST,
            "{method} {path}"
        );
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/json",
            "{method} {path}"
        );
        let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            answer,
            json!({ "error": format!("Invalid URL: Invalid UTF-8 in `{param}`") }),
            "{method} {path}"
        );
    }
}

#[tokio::test]
async fn analyse_answers_like_lokizero_analyse() {
    let service = service();
    let request =
        json!({"id": "a1", "variant": "losers", "moves": ["e2e3"], "nodes": 40, "top": 3});
    let (status, answer) = post(&service, "/api/analyse", request).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["id"], json!("a1"));
    assert_eq!(answer["variant"], json!("losers"));
    assert_eq!(answer["actions"].as_array().unwrap().len(), 3);
    assert!(answer["root"]["visits"].as_u64().unwrap() >= 40);
    assert!(answer["actions"][0]["pv"].as_array().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_without_a_budget_fits_a_low_node_cap() {
    let mut config = ServeConfig::new(models());
    config.max_nodes = 50;
    let service = Arc::new(Service::new(config).expect("the shipped bundles load"));
    let request = json!({"variant": "shakti", "top": 1});
    let (status, answer) = post(&service, "/api/analyse", request).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let visits = answer["root"]["visits"].as_u64().unwrap();
    assert!((50..200).contains(&visits), "{answer}");
    // A budget named over the cap is still refused.
    let (status, answer) = post(
        &service,
        "/api/analyse",
        json!({"variant": "shakti", "nodes": 51}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_games_do_not_interfere() {
    let service = service();
    let a = new_game(&service, "shakti", None).await;
    let b = new_game(&service, "shakti", None).await;
    let (ida, idb) = (
        a["id"].as_str().unwrap().to_string(),
        b["id"].as_str().unwrap().to_string(),
    );
    assert_ne!(ida, idb);
    let first_a = a["legal_moves"][0].as_str().unwrap().to_string();
    let last_b = b["legal_moves"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    post(
        &service,
        &format!("/api/games/{ida}/moves"),
        json!({"move": first_a}),
    )
    .await;
    post(
        &service,
        &format!("/api/games/{idb}/moves"),
        json!({"move": last_b}),
    )
    .await;
    // Bot moves in both at once.
    let (sa, sb) = (service.clone(), service.clone());
    let (pa, pb) = (
        format!("/api/games/{ida}/bot"),
        format!("/api/games/{idb}/bot"),
    );
    let ta = tokio::spawn(async move { post(&sa, &pa, json!({"nodes": 16})).await });
    let tb = tokio::spawn(async move { post(&sb, &pb, json!({"nodes": 16})).await });
    let (ra, rb) = (ta.await.unwrap(), tb.await.unwrap());
    assert_eq!((ra.0, rb.0), (StatusCode::OK, StatusCode::OK));
    assert_eq!(ra.1["moves"][0], json!(first_a));
    assert_eq!(rb.1["moves"][0], json!(last_b));
    assert_eq!(ra.1["moves"].as_array().unwrap().len(), 2);
    assert_eq!(rb.1["moves"].as_array().unwrap().len(), 2);
    // Each game reads back as its own answer said.
    for (id, answer) in [(&ida, &ra.1), (&idb, &rb.1)] {
        let (_, now) = get(&service, &format!("/api/games/{id}")).await;
        assert_eq!(
            (now["moves"].clone(), now["position"].clone()),
            (answer["moves"].clone(), answer["position"].clone())
        );
    }
}

#[tokio::test]
async fn games_are_capped_and_expire_after_idling() {
    let mut config = ServeConfig::new(models());
    config.max_games = 2;
    config.idle_timeout = Duration::from_millis(300);
    let service = Arc::new(Service::new(config).unwrap());
    let first = new_game(&service, "losers", None).await;
    new_game(&service, "losers", None).await;
    assert_error(
        &post(&service, "/api/games", json!({"variant": "losers"})).await,
        StatusCode::SERVICE_UNAVAILABLE,
        "too many games",
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Creating drops the idle games first.
    new_game(&service, "losers", None).await;
    let id = first["id"].as_str().unwrap();
    assert_error(
        &get(&service, &format!("/api/games/{id}")).await,
        StatusCode::NOT_FOUND,
        "expired",
    );
    assert_eq!(service.games.len(), 1);
}

#[tokio::test]
async fn the_page_and_the_openapi_file_are_served() {
    let service = service();
    let response = router(service.clone())
        .oneshot(Request::get("/").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let page = to_bytes(response.into_body(), 1 << 20).await.unwrap();
    assert!(String::from_utf8_lossy(&page).contains("/assets/app.js"));
    for asset in ["app.js", "board.js", "api.js", "style.css"] {
        let response = router(service.clone())
            .oneshot(
                Request::get(format!("/assets/{asset}"))
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
    }
    let (status, openapi) = get(&service, "/api/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(openapi["openapi"], json!("3.0.3"));
    for path in [
        "/api/variants",
        "/api/games",
        "/api/games/{id}",
        "/api/games/{id}/plies/{ply}",
        "/api/games/{id}/moves",
        "/api/games/{id}/bot",
        "/api/games/{id}/undo",
        "/api/analyse",
    ] {
        assert!(openapi["paths"].get(path).is_some(), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_busy_with_a_bot_search_refuses_other_requests_to_change_it() {
    let service = service();
    let game = new_game(&service, "hnefatafl", None).await;
    let id = game["id"].as_str().unwrap().to_string();
    let first = game["legal_moves"][0].as_str().unwrap().to_string();
    // A time-bounded search, long enough to be caught in flight.
    let (s, path) = (service.clone(), format!("/api/games/{id}/bot"));
    let search = tokio::spawn(async move { post(&s, &path, json!({"movetime_ms": 1500})).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let moves = format!("/api/games/{id}/moves");
    assert_error(
        &post(&service, &moves, json!({"move": first})).await,
        StatusCode::CONFLICT,
        "busy",
    );
    assert_error(
        &post(&service, &format!("/api/games/{id}/bot"), json!({})).await,
        StatusCode::CONFLICT,
        "busy",
    );
    // Reading it is fine, and shows no move yet.
    let (status, during) = get(&service, &format!("/api/games/{id}")).await;
    assert_eq!(
        (status, during["moves"].clone()),
        (StatusCode::OK, json!([]))
    );
    let (status, answer) = search.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["moves"].as_array().unwrap().len(), 1);
    // Free again once the bot's move is played.
    let reply = answer["legal_moves"][0].as_str().unwrap();
    let (status, after) = post(&service, &moves, json!({"move": reply})).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["moves"].as_array().unwrap().len(), 2);
}

#[test]
fn a_read_timeout_out_of_range_is_refused_before_serving() {
    // hyper adds the header timeout to an instant: near Duration::MAX that
    // panicked on every connection.
    let mut config = ServeConfig::new(models());
    config.header_read_timeout = Duration::from_secs(9_223_372_036_854_775_807);
    let err = Service::new(config).err().expect("refused");
    assert!(
        matches!(&err, serve::StartError::Config(e) if e.field == "header_read_timeout"),
        "{err}"
    );
    let mut config = ServeConfig::new(models());
    config.body_read_timeout = Duration::ZERO;
    let err = Service::new(config).err().expect("refused");
    assert!(err.to_string().contains("body_read_timeout"), "{err}");
}

/// Play `tokens` in game `id`; returns the last state.
async fn play_all(service: &Arc<Service>, id: &str, tokens: &[&str]) -> Value {
    let mut state = Value::Null;
    for token in tokens {
        let (status, body) = post(
            service,
            &format!("/api/games/{id}/moves"),
            json!({ "move": token }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{token}: {body}");
        state = body;
    }
    state
}

/// A SAN case: variant, start position, the moves as tokens, the same in
/// SAN, and the PGN movetext.
type SanCase = (
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
);

#[tokio::test]
async fn chess_games_carry_san_and_pgn_that_starts_the_same_game_again() {
    let service = service();
    let cases: [SanCase; 3] = [
        (
            "losers",
            None,
            &["e2e4", "b7b5", "f1b5", "c8a6"],
            &["e4", "b5", "Bxb5", "Ba6"],
            "1. e4 b5 2. Bxb5 Ba6 *",
        ),
        (
            "viking",
            None,
            &["b3b4", "h3h4", "f1g2"],
            &["b4", "h4", "fxg2"],
            "1. b4 h4 2. fxg2 *",
        ),
        (
            "losers",
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7"),
            &["e7e5", "g1f3"],
            &["e5", "Nf3"],
            "7... e5 8. Nf3 *",
        ),
    ];
    for (variant, position, tokens, san, movetext) in cases {
        let game = new_game(&service, variant, position).await;
        assert_eq!(game["san"], json!([]), "{variant}");
        let id = game["id"].as_str().unwrap();
        let state = play_all(&service, id, tokens).await;
        assert_eq!(state["moves"], json!(tokens), "{variant}");
        assert_eq!(state["san"], json!(san), "{variant}");
        let pgn = state["pgn"].as_str().unwrap();
        assert!(pgn.contains(&format!("[Variant \"{variant}\"]")), "{pgn}");
        assert!(pgn.contains(movetext), "{pgn}");
        assert_eq!(pgn.contains("[FEN "), position.is_some(), "{pgn}");
        // The PGN starts the same game: position, moves, SAN, PGN.
        let (status, copy) = post(
            &service,
            "/api/games",
            json!({ "variant": variant, "pgn": pgn }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{copy}");
        assert_ne!(copy["id"], state["id"]);
        for field in ["position", "moves", "san", "pgn", "start", "legal_moves"] {
            assert_eq!(copy[field], state[field], "{variant} {field}");
        }
        // The copy plays on.
        let legal = copy["legal_moves"][0].as_str().unwrap().to_string();
        play_all(&service, copy["id"].as_str().unwrap(), &[legal.as_str()]).await;
    }
}

#[tokio::test]
async fn pgn_import_names_the_bad_move_and_needs_chess_notation() {
    let service = service();
    let import = |variant: &str, pgn: &str| {
        let body = json!({ "variant": variant, "pgn": pgn });
        let service = service.clone();
        async move { post(&service, "/api/games", body).await }
    };
    assert_error(
        &import("losers", "1. e4 b5 2. Bc4 *").await,
        StatusCode::BAD_REQUEST,
        "move 2. Bc4",
    );
    assert_error(
        &import("losers", "1. e4 Zz5 *").await,
        StatusCode::BAD_REQUEST,
        "move 1... Zz5",
    );
    assert_error(
        &import("viking", "[Variant \"losers\"]\n1. e4 *").await,
        StatusCode::BAD_REQUEST,
        "Variant",
    );
    assert_error(
        &import("hnefatafl", "1. e4 *").await,
        StatusCode::BAD_REQUEST,
        "PGN",
    );
    let (status, body) = post(
        &service,
        "/api/games",
        json!({ "variant": "losers", "pgn": "*", "position": "startpos" }),
    )
    .await;
    assert_error(&(status, body), StatusCode::BAD_REQUEST, "not both");
    // UCI movetext (records written before SAN) reads too.
    let (status, game) = import("losers", "1. e2e4 b7b5 2. f1b5 *").await;
    assert_eq!(status, StatusCode::OK, "{game}");
    assert_eq!(game["san"], json!(["e4", "b5", "Bxb5"]));
    // A variant without SAN has neither field.
    let tafl = new_game(&service, "hnefatafl", None).await;
    assert_eq!((&tafl["san"], &tafl["pgn"]), (&Value::Null, &Value::Null));
}

#[tokio::test]
async fn variants_carry_their_rules_section_and_the_self_play_behind_the_bundle() {
    let service = service();
    let (status, body) = get(&service, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md"),
    )
    .unwrap();
    for v in body["variants"].as_array().unwrap() {
        let id = v["id"].as_str().unwrap();
        // The rules are the variant's own section of docs/rules.md, as it is.
        let rules = v["rules"]
            .as_str()
            .unwrap_or_else(|| panic!("{id}: no rules"));
        let heading = rules.lines().next().unwrap();
        assert!(
            heading.starts_with("## ") && heading.contains(&format!("`{id}`")),
            "{id}: {heading}"
        );
        assert!(doc.contains(rules), "{id}: the text is not docs/rules.md's");
        assert!(!rules.contains("\n## "), "{id}: more than one section");
        // The self-play behind the bundle, from its model.json.
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(models().join(id).join("model.json")).unwrap(),
        )
        .unwrap();
        let t = &meta["training"];
        let trained = &v["trained"];
        assert_eq!(trained["positions"], t["selfplay_positions_total"], "{id}");
        assert_eq!(
            trained["generations"], meta["lineage"]["generations"],
            "{id}"
        );
        let per_game = t["selfplay_positions"].as_f64().unwrap() / t["games"].as_f64().unwrap();
        assert!(
            (trained["positions_per_game"].as_f64().unwrap() - per_game).abs() < 1e-9,
            "{id}"
        );
        let games = (t["selfplay_positions_total"].as_f64().unwrap() / per_game).round();
        assert_eq!(trained["games"].as_f64(), Some(games), "{id}");
        assert!(games > 0.0, "{id}");
    }
    // The losers section is about losers chess.
    let losers = body["variants"].as_array().unwrap()[0]["rules"]
        .as_str()
        .unwrap();
    assert!(losers.contains("Capturing is compulsory"), "{losers}");
}

#[tokio::test]
async fn games_record_taken_pieces_and_the_bots_evaluations() {
    let service = service();
    let game = new_game(
        &service,
        "losers",
        Some("4k3/p7/8/3p4/4P3/8/8/4K3 w - - 0 1"),
    )
    .await;
    assert_eq!(game["taken"], json!([]));
    assert_eq!(game["evals"], json!([]));
    let id = game["id"].as_str().unwrap();
    let state = play_all(&service, id, &["e4d5"]).await;
    assert_eq!(
        state["taken"],
        json!([[{"square": "d5", "figure": {"side": "second", "name": "pawn", "symbol": state["taken"][0][0]["figure"]["symbol"], "shape": "glyph", "colour": "dark"}}]])
    );
    assert_eq!(
        state["evals"],
        json!([null]),
        "a human move has no evaluation"
    );
    // A new request (another tab) gets the same record.
    let (_, again) = get(&service, &format!("/api/games/{id}")).await;
    assert_eq!(again["taken"], state["taken"]);
    let (status, bot) = post(
        &service,
        &format!("/api/games/{id}/bot"),
        json!({ "nodes": 8 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{bot}");
    let evals = bot["evals"].as_array().unwrap();
    assert_eq!(evals.len(), 2);
    assert_eq!(
        evals[1], bot["bot"]["wdl_first"],
        "the bot's evaluation is kept"
    );
    assert_eq!(bot["taken"].as_array().unwrap().len(), 2);
    // Taking back drops the records with the moves.
    let (_, back) = post(
        &service,
        &format!("/api/games/{id}/undo"),
        json!({ "plies": 1 }),
    )
    .await;
    assert_eq!(back["evals"], json!([null]));
    assert_eq!(back["taken"], state["taken"]);
}

#[tokio::test]
async fn an_earlier_position_of_a_game_is_shown_without_changing_it() {
    let service = service();
    let game = new_game(&service, "losers", None).await;
    let id = game["id"].as_str().unwrap();
    let after_one = play_all(&service, id, &["e2e4"]).await;
    let now = play_all(&service, id, &["b7b5", "f1b5"]).await;
    let (status, at0) = get(&service, &format!("/api/games/{id}/plies/0")).await;
    assert_eq!(status, StatusCode::OK, "{at0}");
    assert_eq!(at0["position"], game["position"]);
    assert_eq!(at0["moves"], json!([]));
    assert_eq!(at0["id"], json!(id));
    let (_, at1) = get(&service, &format!("/api/games/{id}/plies/1")).await;
    assert_eq!(at1["position"], after_one["position"]);
    assert_eq!(at1["san"], json!(["e4"]));
    let (_, at3) = get(&service, &format!("/api/games/{id}/plies/3")).await;
    assert_eq!(at3["position"], now["position"]);
    assert_eq!(at3["taken"], now["taken"]);
    assert_eq!(now["taken"][2][0]["square"], json!("b5"));
    // The game itself stands where it stood.
    let (_, still) = get(&service, &format!("/api/games/{id}")).await;
    assert_eq!(still["moves"].as_array().unwrap().len(), 3);
    // Beyond the moves played, not a number, an unknown game.
    assert_error(
        &get(&service, &format!("/api/games/{id}/plies/4")).await,
        StatusCode::BAD_REQUEST,
        "ply must be in 0..=3",
    );
    let bad = get(&service, &format!("/api/games/{id}/plies/x")).await;
    assert_eq!(bad.0, StatusCode::BAD_REQUEST, "{}", bad.1);
    assert!(bad.1["error"].is_string(), "{}", bad.1);
    assert_error(
        &get(
            &service,
            "/api/games/0123456789abcdef0123456789abcdef/plies/0",
        )
        .await,
        StatusCode::NOT_FOUND,
        "0123456789abcdef0123456789abcdef",
    );
}

#[tokio::test]
async fn a_game_text_of_start_and_moves_sets_up_any_variant() {
    let service = service();
    for variant in ["losers", "viking", "hnefatafl", "loki", "shakti"] {
        // Six moves played one by one ...
        let mut game = new_game(&service, variant, None).await;
        let id = game["id"].as_str().unwrap().to_string();
        for i in 0..6 {
            let legal = game["legal_moves"].as_array().unwrap();
            let token = legal[(i * 5) % legal.len()].clone();
            let (status, next) = post(
                &service,
                &format!("/api/games/{id}/moves"),
                json!({ "move": token }),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{variant}: {next}");
            game = next;
        }
        // ... and the same moves sent at once stand in the same position.
        let (status, copy) = post(
            &service,
            "/api/games",
            json!({ "variant": variant, "position": game["start"], "moves": game["moves"] }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{variant}: {copy}");
        for field in ["position", "moves", "side_to_move", "legal_moves"] {
            assert_eq!(copy[field], game[field], "{variant}: {field}");
        }
    }
    assert_error(
        &post(
            &service,
            "/api/games",
            json!({ "variant": "losers", "moves": ["e2e4", "e2e4"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "move 2 (\"e2e4\")",
    );
    assert_error(
        &post(
            &service,
            "/api/games",
            json!({ "variant": "losers", "pgn": "1. e4 *", "moves": ["e7e6"] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "not both",
    );
}

#[tokio::test]
async fn a_followed_run_plays_its_newest_checkpoint_that_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("shakti-run");
    let checkpoint = |g: u32| run.join(format!("checkpoints/gen-{g:06}"));
    std::fs::create_dir_all(checkpoint(1)).unwrap();
    std::fs::write(run.join("config.toml"), "variant = \"shakti\"\n").unwrap();
    // Generation 1: the shipped weights, numbered 1 in its model.json.
    let shipped = models().join("shakti");
    std::fs::copy(
        shipped.join("model.safetensors"),
        checkpoint(1).join("model.safetensors"),
    )
    .unwrap();
    let mut meta: Value =
        serde_json::from_str(&std::fs::read_to_string(shipped.join("model.json")).unwrap())
            .unwrap();
    meta["generation"] = json!(1);
    std::fs::write(checkpoint(1).join("model.json"), meta.to_string()).unwrap();
    // Generation 2: a damaged checkpoint.
    std::fs::create_dir_all(checkpoint(2)).unwrap();
    std::fs::write(checkpoint(2).join("model.json"), "{ not json").unwrap();

    let mut config = ServeConfig::new(models());
    config.follow = Some(run.clone());
    let service = Arc::new(Service::new(config).unwrap());
    let (status, body) = get(&service, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["live"], true);
    let generation = |id: &str| {
        body["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == id)
            .unwrap()["generation"]
            .clone()
    };
    // The run's generation 1, not the shipped bundle nor the broken 2.
    assert_eq!(generation("shakti"), json!(1));
    // The other variants keep their shipped bots.
    let losers: Value =
        serde_json::from_str(&std::fs::read_to_string(models().join("losers/model.json")).unwrap())
            .unwrap();
    assert_eq!(generation("losers"), losers["generation"]);
}
