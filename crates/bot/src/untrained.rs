//! An untrained bundle of any variant, for tests and smoke checks until a
//! trained one ships in `models/<variant>/`.

use std::path::Path;

use burn::tensor::Device;
use encoding::Encode;
use model::bundle::{meta_for, save_bundle};
use model::{Net, NetShape};
use rules::VariantId;

use crate::error::BotError;

/// Write a freshly initialised (generation 0) network of `variant` with
/// `blocks` residual blocks, `filters` channels and `value_hidden` value
/// units as a bundle at `dir` (atomically, replacing what is there).
///
/// # Errors
/// [`BotError::Bundle`] on a file-system error.
pub fn write_untrained_bundle(
    dir: &Path,
    variant: VariantId,
    blocks: usize,
    filters: usize,
    value_hidden: usize,
    device: &Device,
) -> Result<(), BotError> {
    fn write<G: Encode>(
        dir: &Path,
        blocks: usize,
        filters: usize,
        value_hidden: usize,
        device: &Device,
    ) -> Result<(), BotError> {
        let shape = NetShape {
            input_planes: G::INPUT_PLANES,
            policy_planes: G::POLICY_PLANES,
            height: G::HEIGHT,
            width: G::WIDTH,
            blocks,
            filters,
            value_hidden,
            moves_left: false,
        };
        let net = Net::new(&shape, device);
        save_bundle(dir, &net, &meta_for::<G>(&shape, 0, &[]))?;
        Ok(())
    }
    rules::with_variant!(variant, G => write::<G>(dir, blocks, filters, value_hidden, device))
}
