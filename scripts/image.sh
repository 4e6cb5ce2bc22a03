#!/usr/bin/env bash
# Build the lokizero container image without pulling any base image: the
# Dockerfile's runtime layout (a Debian bookworm root file system, the
# binary in /usr/local/bin, the shipped bundles in
# /usr/local/share/lokizero/models, user lokizero) made from Debian's
# packages with debootstrap and committed with buildah; then run
# `lokizero --version`, a perft and a UCI search inside it.
#
#   scripts/image.sh [TAG]            # default lokizero:cpu; needs root,
#                                     # buildah, debootstrap and a built
#                                     # target/release/lokizero
#   buildah push lokizero:cpu docker://REGISTRY/lokizero:cpu
#
# With Docker or Podman and access to a registry, `docker build .` (the
# Dockerfile) gives the same layout. Environment: MIRROR (Debian mirror),
# WORK (scratch folder, default a temporary one), KEEP_ROOTFS=1 to keep it.
set -euo pipefail
cd "$(dirname "$0")/.."

tag=${1:-lokizero:cpu}
bin=target/release/lokizero
mirror=${MIRROR:-http://deb.debian.org/debian}
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot

for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed (apt-get install buildah debootstrap)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "error: $bin is missing; build it first (cargo build --release)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "error: debootstrap and buildah's chroot need root" >&2; exit 1; }

work=${WORK:-$(mktemp -d /var/tmp/lokizero-image.XXXXXX)}
rootfs=$work/rootfs
cleanup() {
  [ -n "${ctr:-}" ] && buildah rm "$ctr" >/dev/null 2>&1 || true
  [ "${KEEP_ROOTFS:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

start=$SECONDS
if [ ! -x "$rootfs/bin/sh" ]; then
  echo "==> debootstrap bookworm into $rootfs"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
fi
echo "==> root file system ready ($((SECONDS - start)) s, $(du -sh "$rootfs" | cut -f1))"

ctr=$(buildah from scratch)
buildah copy --quiet "$ctr" "$rootfs" /
buildah copy --quiet --chmod 0755 "$ctr" "$bin" /usr/local/bin/lokizero
buildah copy --quiet "$ctr" models /usr/local/share/lokizero/models
buildah run "$ctr" -- useradd --create-home --uid 10001 lokizero
buildah config --user lokizero --workingdir /home/lokizero \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --entrypoint '["lokizero"]' --cmd '--help' \
  --label org.opencontainers.image.title=lokizero \
  --label org.opencontainers.image.version="$("$bin" --version | awk '{print $2}')" "$ctr"
buildah commit --quiet "$ctr" "$tag" >/dev/null
echo "==> committed $tag ($((SECONDS - start)) s)"

echo "==> inside $tag:"
check=$(buildah from "$tag")
trap 'buildah rm "$check" >/dev/null 2>&1 || true; cleanup' EXIT
buildah run "$check" -- lokizero --version
buildah run "$check" -- lokizero perft --variant losers --depth 3
buildah run "$check" -- lokizero models | tail -n 6
# The shipped losers bot answers a UCI search, as user lokizero.
buildah run "$check" -- sh -c 'printf "uci\nsetoption name UCI_Variant value losers\nposition startpos\ngo nodes 100\n" | lokizero uci | grep "^bestmove [a-h][1-8]"'
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' | grep -F "${tag%%:*}" || true
