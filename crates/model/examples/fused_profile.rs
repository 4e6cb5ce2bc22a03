//! Profile helper: runs only the fused forward pass of a fresh network on
//! random inputs. `cargo run --release -p model --example fused_profile -- C P H W F BLOCKS BATCH SECONDS TARGET_ROWS [direct|int8|int8:KERNEL]`
//! (`direct`: the trunk on the direct `f32` kernel instead of Winograd;
//! `int8`: the trunk on int8, `model::Precision::Int8`; `int8:avx2`: on
//! that int8 kernel, one of `model::quant::int8_kernels()`).
use burn::tensor::Device;
use model::{FusedNet, Net, NetShape};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let direct = args.get(9).is_some_and(|x| x == "direct");
    let int8 = args.get(9).and_then(|x| x.strip_prefix("int8"));
    let a: Vec<usize> = args
        .iter()
        .take(9)
        .map(|x| x.parse().expect("number"))
        .collect();
    let shape = NetShape {
        input_planes: a[0],
        policy_planes: a[1],
        height: a[2],
        width: a[3],
        filters: a[4],
        blocks: a[5],
        value_hidden: 64,
        moves_left: false,
    };
    let (batch, seconds) = (a[6], a[7] as f64);
    let net = Net::new(&shape, &Device::flex());
    let fused = FusedNet::from_net(&net, [a[0], a[1], a[2], a[3]])
        .expect("fused")
        .with_target_rows(a[8]);
    let fused = if direct {
        fused.without_winograd()
    } else if let Some(kernel) = int8 {
        match kernel.strip_prefix(':') {
            Some(k) => fused
                .with_int8_kernel(k)
                .expect("this CPU runs that int8 kernel"),
            None => fused.with_precision(model::Precision::Int8),
        }
    } else {
        fused
    };
    let input: Vec<f32> = (0..batch * shape.input_len())
        .map(|i| (i % 7) as f32 * 0.1)
        .collect();
    let t = Instant::now();
    let (mut n, mut out) = (0, model::fused::FusedOutput::default());
    while t.elapsed().as_secs_f64() < seconds {
        fused.forward_into(&input, &mut out);
        std::hint::black_box(&out);
        n += batch;
    }
    println!("{:.0} positions/s", n as f64 / t.elapsed().as_secs_f64());
}
