//! Dirichlet noise on the root priors, the exploration of a PUCT root.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

use crate::node::Node;

/// Mix Dirichlet noise into the priors of the root's children (Silver et
/// al. 2018: `P(s,a) = (1 - epsilon) p_a + epsilon * eta_a`,
/// `eta ~ Dir(alpha)`), sampled as normalised `Gamma(alpha, 1)` draws.
/// Leaves the priors as they are when `alpha` is not a valid shape or the
/// draws do not sum to a positive finite number.
pub(super) fn mix_into_root<R: Rng + ?Sized>(
    nodes: &mut [Node],
    alpha: f32,
    epsilon: f32,
    rng: &mut R,
) {
    let children = nodes[0].children();
    if children.is_empty() {
        return;
    }
    let Ok(gamma) = Gamma::new(alpha, 1.0) else {
        return;
    };
    let eta: Vec<f32> = children.clone().map(|_| gamma.sample(rng)).collect();
    let sum: f32 = eta.iter().sum();
    if !(sum.is_finite() && sum > 0.0) {
        return;
    }
    for (c, e) in children.zip(eta) {
        let node = &mut nodes[c];
        node.prior = (1.0 - epsilon) * node.prior + epsilon * e / sum;
    }
}
