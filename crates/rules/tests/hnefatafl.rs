//! `hnefatafl` rules (`shared/RULES.md` §3).

mod tafl_support;
use rules::tafl::Hnefatafl;
use tafl_support::*;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/oracle/tafl/hnefatafl_cases.jsonl"
);

#[test]
fn oracle_cases() {
    assert_eq!(check_oracle::<Hnefatafl>(ORACLE), 17);
}
