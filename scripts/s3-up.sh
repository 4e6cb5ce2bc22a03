#!/usr/bin/env bash
# Start a throw-away, single-node S3 server on this machine: Debian's Ceph
# RADOS Gateway over one monitor and one OSD that keeps its data in memory
# (memstore, 1 GiB). For trying the distributed mode on one machine and
# for the S3 tests; nothing it stores survives s3-down.sh.
#
#   scripts/s3-up.sh DIR      # ~15 s; writes DIR/env, DIR/pids, DIR/logs
#   . DIR/env                 # AWS_ENDPOINT, AWS_BUCKET, credentials ...
#   scripts/s3-down.sh DIR    # stops it and deletes DIR
#   scripts/s3-up.sh DIR --restart-gateway   # restart only the gateway
#
# Needs the packages `radosgw ceph-mon ceph-osd ceph-common` and `curl`
# (this script installs nothing; `.ci/run` installs them). Ports:
# S3_PORT (default 7480) for S3, S3_MON_PORT (6789) for the monitor, both
# on 127.0.0.1 only. The bucket is S3_BUCKET (default lokizero); the access
# key and secret are local test values, printed only into DIR/env.
set -euo pipefail

dir=${1:?usage: s3-up.sh DIR [--restart-gateway]}
port=${S3_PORT:-7480}
mon_port=${S3_MON_PORT:-6789}
bucket=${S3_BUCKET:-lokizero}
key=lokizero-local
secret=lokizero-local-secret

for tool in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl; do
  command -v "$tool" >/dev/null || {
    echo "s3-up.sh: $tool not found; install: apt-get install radosgw ceph-mon ceph-osd ceph-common curl" >&2
    exit 1
  }
done

# Poll `$@` once a second for up to $1 seconds.
wait_for() {
  local limit=$1; shift
  for _ in $(seq "$limit"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  "$@" >/dev/null 2>&1
}

gateway_up() { curl -sf -o /dev/null "http://127.0.0.1:$port/"; }

start_gateway() {
  radosgw -c "$dir/ceph.conf" -n client.rgw.gw -f >"$dir/logs/radosgw.out" 2>&1 &
  echo $! >"$dir/gateway.pid"
  echo $! >>"$dir/pids"
  wait_for 120 gateway_up || {
    echo "s3-up.sh: the gateway did not answer on port $port; see $dir/logs" >&2
    exit 1
  }
}

if [[ ${2:-} == --restart-gateway ]]; then
  old=$(cat "$dir/gateway.pid")
  kill "$old" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
  start_gateway
  echo "gateway restarted on 127.0.0.1:$port"
  exit 0
fi

if [[ -e $dir/pids ]]; then
  echo "s3-up.sh: $dir already holds a server (scripts/s3-down.sh $dir first)" >&2
  exit 1
fi
mkdir -p "$dir"/{mon,osd,run,logs}
dir=$(cd "$dir" && pwd)
fsid=$(cat /proc/sys/kernel/random/uuid)

# One monitor, no cephx (everything listens on 127.0.0.1 only), pools of
# one replica, and an OSD whose object store is RAM.
cat >"$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$mon_port
mon initial members = m
public network = 127.0.0.0/8
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
keyring = $dir/keyring
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/logs/\$name.log
mon data = $dir/mon/\$cluster-\$id
mon allow pool size one = true
mon warn on pool no redundancy = false
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd crush update on start = false
osd class update on start = false
[client.rgw.gw]
rgw frontends = beast endpoint=127.0.0.1:$port
CONF
ceph_cli=(ceph -c "$dir/ceph.conf" --connect-timeout 20)

ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
monmaptool --create --addv m "v1:127.0.0.1:$mon_port" --fsid "$fsid" "$dir/monmap" >/dev/null
ceph-mon -c "$dir/ceph.conf" -i m --mkfs --monmap "$dir/monmap" --keyring "$dir/keyring"
ceph-mon -c "$dir/ceph.conf" -i m -f >"$dir/logs/mon.out" 2>&1 &
echo $! >"$dir/pids"

osd_uuid=$(cat /proc/sys/kernel/random/uuid)
"${ceph_cli[@]}" osd new "$osd_uuid" >/dev/null
"${ceph_cli[@]}" osd crush add osd.0 1.0 root=default host=localhost >/dev/null 2>&1
ceph-osd -c "$dir/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
ceph-osd -c "$dir/ceph.conf" -i 0 -f >"$dir/logs/osd.out" 2>&1 &
echo $! >>"$dir/pids"
osd_up() { "${ceph_cli[@]}" osd stat | grep -q '1 up'; }
wait_for 60 osd_up || { echo "s3-up.sh: the OSD did not come up; see $dir/logs" >&2; exit 1; }

start_gateway
radosgw-admin -c "$dir/ceph.conf" user create --uid=lokizero --display-name=lokizero \
  --access-key="$key" --secret-key="$secret" >/dev/null
# The bucket, with a signed PUT (curl's own SigV4 signer).
curl -sf -o /dev/null -X PUT --user "$key:$secret" --aws-sigv4 "aws:amz:us-east-1:s3" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://127.0.0.1:$port/$bucket"

umask 077
cat >"$dir/env" <<ENV
export AWS_ENDPOINT=http://127.0.0.1:$port
export AWS_ALLOW_HTTP=true
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=$key
export AWS_SECRET_ACCESS_KEY=$secret
export AWS_BUCKET=$bucket
export LOKIZERO_S3_DIR=$dir
ENV
echo "S3 server ready: http://127.0.0.1:$port, bucket $bucket (. $dir/env)"
