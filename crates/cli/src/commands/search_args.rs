//! Search settings of bundle players shared by `play`, `match` and `ladder`.

use anyhow::{anyhow, Result};
use clap::Args;
use search::{SearchConfig, PLAY_POLICY_TEMPERATURE};

/// Play-time search options of bundle players (root noise stays off).
#[derive(Args, Debug, Clone)]
pub struct PlaySearchArgs {
    /// Contempt of bundle players: a draw is worth -C to the player to move,
    /// in [0, 1) (0 = plain zero-sum search; see search::SearchConfig::contempt).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub contempt: f32,
    /// Policy softmax temperature of bundle players (> 0): priors become
    /// p^(1/T) renormalised, so T > 1 lets the search look past a sharp,
    /// under-trained policy (Leela Chess Zero's PolicySoftmaxTemp; 1 = the
    /// network's own priors).
    #[arg(long, default_value_t = PLAY_POLICY_TEMPERATURE, allow_hyphen_values = true)]
    pub policy_temperature: f32,
    /// Weight lambda in [0, 1] of one random playout per leaf in bundle
    /// players' leaf values: (1 - lambda) * network + lambda * playout
    /// (AlphaGo's mixed evaluation; 0 = the network alone). Playouts stop
    /// at --ply-cap plies.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub rollout_mix: f32,
}

impl PlaySearchArgs {
    /// [`SearchConfig::for_play`] with these options.
    ///
    /// # Errors
    /// An option outside its range, named as on the command line.
    pub fn search_config(&self) -> Result<SearchConfig> {
        let config = SearchConfig {
            contempt: self.contempt,
            policy_temperature: self.policy_temperature,
            ..SearchConfig::for_play()
        };
        config.validate().map_err(|e| {
            anyhow!("{e}").context("--contempt / --policy-temperature: bad play search option")
        })?;
        Ok(config)
    }

    /// The three options as JSON fields (`contempt`, `policy_temperature`,
    /// `rollout_mix`), each printed as typed (0.3, not f32's 0.30000001).
    pub fn json_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let short =
            |v: f32| serde_json::Value::from(format!("{v}").parse::<f64>().unwrap_or(f64::NAN));
        [
            ("contempt", self.contempt),
            ("policy_temperature", self.policy_temperature),
            ("rollout_mix", self.rollout_mix),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), short(v)))
        .collect()
    }

    /// `--rollout-mix`, checked.
    ///
    /// # Errors
    /// A value outside `[0, 1]`.
    pub fn rollout_mix(&self) -> Result<f32> {
        if (0.0..=1.0).contains(&self.rollout_mix) {
            Ok(self.rollout_mix)
        } else {
            Err(anyhow!(
                "--rollout-mix must be in [0, 1], got {}",
                self.rollout_mix
            ))
        }
    }
}
