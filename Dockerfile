# The lokizero image: the binary in /usr/local/bin and the shipped bundles
# in /usr/local/share/lokizero/models (on the binary's bundle search path,
# docs/usage.md "Where bundles are found").
#
#   CPU:  docker build -t lokizero:cpu .
#   CUDA: docker build -t lokizero:cuda --build-arg FEATURES=cuda \
#           --build-arg RUNTIME=nvidia/cuda:12.6.3-runtime-ubuntu24.04 .
#
# The CUDA build downloads an LLVM bundle for cubecl's PTX compiler
# (docs/usage.md, GPUs). scripts/image.sh builds the same runtime layout
# without pulling any image (debootstrap + buildah), as CI does.
ARG RUNTIME=debian:bookworm-slim

FROM rust:1.95-bookworm AS build
ARG FEATURES=""
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p lokizero --features "${FEATURES}" \
 && cp target/release/lokizero /usr/local/bin/lokizero

FROM ${RUNTIME}
# CA certificates for S3 over HTTPS (distributed runs).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/lokizero /usr/local/bin/lokizero
COPY models /usr/local/share/lokizero/models
RUN useradd --create-home --uid 10001 lokizero
USER lokizero
WORKDIR /home/lokizero
ENTRYPOINT ["lokizero"]
CMD ["--help"]
