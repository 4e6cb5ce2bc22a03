//! `loki` rules (`shared/RULES.md` §4).

mod tafl_support;
use rules::tafl::Loki;
use tafl_support::*;

const ORACLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/oracle/tafl/loki_cases.jsonl"
);

#[test]
fn oracle_cases() {
    assert_eq!(check_oracle::<Loki>(ORACLE), 17);
}
