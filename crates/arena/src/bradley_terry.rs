//! Ratings of many players from all their games: Bradley–Terry by maximum
//! likelihood, draws counted as half a win for each side.
//!
//! Model (Bradley & Terry 1952): `P(i beats j) = γ_i / (γ_i + γ_j)`, Elo
//! `r_i = 400 log10 γ_i` (so two players `d` Elo apart score as in
//! [`crate::elo::score_from_elo`]). Fitted with the MM algorithm of
//! D. R. Hunter, "MM algorithms for generalized Bradley–Terry models",
//! Annals of Statistics 32(1):384–406, 2004, eq. (3):
//! `γ_i ← W_i / Σ_{j≠i} n_ij / (γ_i + γ_j)` (`W_i` wins of `i`, draws half,
//! `n_ij` games between `i` and `j`).
//!
//! 95 % intervals come from the observed Fisher information of
//! `θ = ln γ`: `I_ii = Σ_j n_ij p_ij p_ji`, `I_ij = −n_ij p_ij p_ji`; with
//! one player anchored at 0 the covariance is the inverse of `I` without
//! the anchor's row and column, with the mean anchored at 0 it is the
//! Moore–Penrose inverse `(I + 11ᵀ/n)⁻¹ − 11ᵀ/n`.
//!
//! A player who won (or lost) every game has no finite maximum; a prior of
//! `prior_draws` virtual draws per pair that met (as BayesElo's prior)
//! keeps every rating finite. Use 0 for the plain MLE.

use serde::Serialize;

/// `400 / ln 10`: Elo per unit of `θ = ln γ`.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// One game between players `a` and `b` (indices into the player list).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    /// First player.
    pub a: usize,
    /// Second player.
    pub b: usize,
    /// Score of `a`: 1 win, 0.5 draw, 0 loss.
    pub score_a: f64,
}

/// Which rating is fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Anchor {
    /// This player is rated 0 (its interval is 0 wide).
    Player(usize),
    /// The mean rating is 0.
    Mean,
}

/// A fitted rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Standard error of `elo` (Elo); NaN when not identifiable.
    pub stderr: f64,
    /// Lower end of the 95 % interval (`elo − 1.96 stderr`).
    pub lower: f64,
    /// Upper end of the 95 % interval.
    pub upper: f64,
    /// Games played.
    pub games: u32,
    /// Points scored (draws half).
    pub points: f64,
}

/// Bad input to [`fit`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RatingError {
    /// A game names a player index out of range or plays a player against itself.
    #[error("game {index}: players {a} and {b} are not two distinct players of {n}")]
    BadGame {
        /// Game index.
        index: usize,
        /// First player.
        a: usize,
        /// Second player.
        b: usize,
        /// Number of players.
        n: usize,
    },
    /// A score other than 0, 0.5 or 1.
    #[error("game {index}: score {score} is not 0, 0.5 or 1")]
    BadScore {
        /// Game index.
        index: usize,
        /// The score.
        score: f64,
    },
    /// The anchor is not a player.
    #[error("anchor {0} is not a player")]
    BadAnchor(usize),
    /// The prior is negative or not finite.
    #[error("prior_draws = {0} must be finite and >= 0")]
    BadPrior(f64),
}

/// Fit Bradley–Terry ratings of `n` players from `games` (module docs).
///
/// # Errors
/// [`RatingError`] for malformed games, anchor or prior.
pub fn fit(
    n: usize,
    games: &[PairResult],
    prior_draws: f64,
    anchor: Anchor,
) -> Result<Vec<Rating>, RatingError> {
    if !(prior_draws.is_finite() && prior_draws >= 0.0) {
        return Err(RatingError::BadPrior(prior_draws));
    }
    if let Anchor::Player(a) = anchor {
        if a >= n {
            return Err(RatingError::BadAnchor(a));
        }
    }
    // Games and (fractional) wins per pair; prior draws on pairs that met.
    let mut count = vec![vec![0.0f64; n]; n];
    let mut wins = vec![vec![0.0f64; n]; n];
    let mut games_of = vec![0u32; n];
    let mut points = vec![0.0f64; n];
    for (index, g) in games.iter().enumerate() {
        if g.a >= n || g.b >= n || g.a == g.b {
            return Err(RatingError::BadGame {
                index,
                a: g.a,
                b: g.b,
                n,
            });
        }
        if ![0.0, 0.5, 1.0].contains(&g.score_a) {
            return Err(RatingError::BadScore {
                index,
                score: g.score_a,
            });
        }
        count[g.a][g.b] += 1.0;
        count[g.b][g.a] += 1.0;
        wins[g.a][g.b] += g.score_a;
        wins[g.b][g.a] += 1.0 - g.score_a;
        games_of[g.a] += 1;
        games_of[g.b] += 1;
        points[g.a] += g.score_a;
        points[g.b] += 1.0 - g.score_a;
    }
    for i in 0..n {
        for j in 0..n {
            if i != j && count[i][j] > 0.0 {
                count[i][j] += prior_draws;
                wins[i][j] += prior_draws / 2.0;
            }
        }
    }
    let total_wins: Vec<f64> = wins.iter().map(|row| row.iter().sum()).collect();

    // Hunter's MM iteration, normalised to geometric mean 1 each step.
    let mut gamma = vec![1.0f64; n];
    for _ in 0..100_000 {
        let mut next = gamma.clone();
        for i in 0..n {
            let denom: f64 = (0..n)
                .filter(|&j| j != i && count[i][j] > 0.0)
                .map(|j| count[i][j] / (gamma[i] + gamma[j]))
                .sum();
            if denom > 0.0 {
                next[i] = total_wins[i] / denom;
            }
        }
        let positive: Vec<f64> = next.iter().copied().filter(|&g| g > 0.0).collect();
        if !positive.is_empty() {
            let mean_log = positive.iter().map(|g| g.ln()).sum::<f64>() / positive.len() as f64;
            let scale = (-mean_log).exp();
            next.iter_mut().for_each(|g| *g *= scale);
        }
        let change = gamma
            .iter()
            .zip(&next)
            .map(|(a, b)| (a.ln() - b.ln()).abs())
            .filter(|d| d.is_finite())
            .fold(0.0f64, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    let theta: Vec<f64> = gamma.iter().map(|g| g.ln()).collect();

    // Observed Fisher information of θ.
    let mut info = vec![vec![0.0f64; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && count[i][j] > 0.0 {
                let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                let v = count[i][j] * p * (1.0 - p);
                info[i][i] += v;
                info[i][j] -= v;
            }
        }
    }
    let (offset, cov_diag) = match anchor {
        Anchor::Player(a) => {
            let keep: Vec<usize> = (0..n).filter(|&i| i != a).collect();
            let sub: Vec<Vec<f64>> = keep
                .iter()
                .map(|&i| keep.iter().map(|&j| info[i][j]).collect())
                .collect();
            let inv = invert(sub);
            let mut diag = vec![0.0; n];
            for (k, &i) in keep.iter().enumerate() {
                diag[i] = inv.as_ref().map_or(f64::NAN, |m| m[k][k]);
            }
            (theta[a], diag)
        }
        Anchor::Mean => {
            let finite: Vec<f64> = theta.iter().copied().filter(|t| t.is_finite()).collect();
            let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
            let nf = n as f64;
            let shifted: Vec<Vec<f64>> = (0..n)
                .map(|i| (0..n).map(|j| info[i][j] + 1.0 / nf).collect())
                .collect();
            let diag = match invert(shifted) {
                Some(m) => (0..n).map(|i| m[i][i] - 1.0 / nf).collect(),
                None => vec![f64::NAN; n],
            };
            (mean, diag)
        }
    };
    Ok((0..n)
        .map(|i| {
            let elo = ELO_PER_NAT * (theta[i] - offset);
            let var = cov_diag[i];
            let stderr = if var >= 0.0 {
                ELO_PER_NAT * var.sqrt()
            } else {
                f64::NAN
            };
            Rating {
                elo,
                stderr,
                lower: elo - crate::elo::Z95 * stderr,
                upper: elo + crate::elo::Z95 * stderr,
                games: games_of[i],
                points: points[i],
            }
        })
        .collect())
}

/// Inverse of a small square matrix by Gauss–Jordan elimination with
/// partial pivoting; `None` if singular (pivot below 1e-12).
fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 || !m[pivot][col].is_finite() {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let p = m[col][col];
        for j in 0..n {
            m[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = m[row][col];
                if f != 0.0 {
                    for j in 0..n {
                        m[row][j] -= f * m[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(a: usize, b: usize, wins_a: usize, draws: usize, wins_b: usize) -> Vec<PairResult> {
        let mut v = Vec::new();
        v.extend((0..wins_a).map(|_| PairResult { a, b, score_a: 1.0 }));
        v.extend((0..draws).map(|_| PairResult { a, b, score_a: 0.5 }));
        v.extend((0..wins_b).map(|_| PairResult { a, b, score_a: 0.0 }));
        v
    }

    #[test]
    fn two_players_match_the_elo_formula() {
        // A scores 3 of 4 (2 wins, 2 draws): γ_A/γ_B = 3, Elo +190.85;
        // var(θ_A) = 1/(n p (1−p)) = 1/(4 · 0.75 · 0.25) = 4/3.
        let g = games(0, 1, 2, 2, 0);
        let r = fit(2, &g, 0.0, Anchor::Player(1)).unwrap();
        assert!((r[0].elo - 400.0 * 3f64.log10()).abs() < 1e-6, "{:?}", r);
        assert_eq!(r[1].elo, 0.0);
        assert_eq!(r[1].stderr, 0.0);
        let se = ELO_PER_NAT * (4.0f64 / 3.0).sqrt();
        assert!((r[0].stderr - se).abs() < 1e-6);
        assert!((r[0].stderr - 200.592_03).abs() < 1e-3, "{}", r[0].stderr);
        assert_eq!((r[0].games, r[0].points), (4, 3.0));
    }

    #[test]
    fn three_consistent_players() {
        // A–B 3:1, B–C 3:1, A–C 9:1: the proportions are exactly those of
        // γ = (9, 3, 1), so that is the MLE: Elo A−C = 400 log10 9 = 381.70,
        // B−C = 190.85; with the mean anchored: ±190.85 and 0.
        let mut g = games(0, 1, 3, 0, 1);
        g.extend(games(1, 2, 3, 0, 1));
        g.extend(games(0, 2, 9, 0, 1));
        let r = fit(3, &g, 0.0, Anchor::Player(2)).unwrap();
        assert!((r[0].elo - 400.0 * 9f64.log10()).abs() < 1e-6);
        assert!((r[1].elo - 400.0 * 3f64.log10()).abs() < 1e-6);
        let m = fit(3, &g, 0.0, Anchor::Mean).unwrap();
        assert!((m[0].elo - 190.848_501_887_865).abs() < 1e-6);
        assert!(m[1].elo.abs() < 1e-6);
        assert!((m[2].elo + 190.848_501_887_865).abs() < 1e-6);
        assert!(m.iter().all(|x| x.stderr > 0.0 && x.stderr.is_finite()));
    }

    #[test]
    fn prior_keeps_a_perfect_score_finite() {
        let g = games(0, 1, 10, 0, 0);
        let r = fit(2, &g, 1.0, Anchor::Player(1)).unwrap();
        // 10.5 of 11 points: γ ratio 21, Elo 400 log10 21.
        assert!((r[0].elo - 400.0 * 21f64.log10()).abs() < 1e-6);
        assert!(r[0].stderr.is_finite());
    }

    #[test]
    fn bad_input_is_an_error() {
        let bad = [PairResult {
            a: 0,
            b: 0,
            score_a: 1.0,
        }];
        assert!(fit(2, &bad, 0.0, Anchor::Mean).is_err());
        let bad = [PairResult {
            a: 0,
            b: 1,
            score_a: 0.3,
        }];
        assert!(fit(2, &bad, 0.0, Anchor::Mean).is_err());
        assert!(fit(2, &[], 0.0, Anchor::Player(5)).is_err());
    }
}
