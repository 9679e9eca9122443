#!/usr/bin/env bash
# Builds the real Dockerfile with podman and checks the container the way a
# deployment uses it, without any registry:
#   1. a Debian bookworm root from debootstrap (--variant=minbase) is
#      imported as the runtime base image;
#   2. the same root plus build packages and the Swift toolchain installed
#      on this machine stands in for the Swift build image;
#   3. `podman build` of the Dockerfile with those two as build arguments;
#   4. the container runs with a loopback-published port and a named volume:
#      start-to-ready time, a registration and sign-in, the image's
#      HEALTHCHECK, a restart that keeps the data, and SIGTERM (podman stop)
#      ending it with exit status 0 within the shutdown deadline.
# The roots and the stand-in images are cached between runs.
#
# usage: scripts/container-test.sh          (run as root; installs podman, buildah, runc, debootstrap)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/axiom-container
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE_IMAGE=localhost/axiom-base:bookworm
SWIFT_IMAGE=localhost/axiom-swift-build:local
IMAGE=localhost/axiom-server:test
NAME=axiom-container-test
VOLUME=axiom-container-test-data
SWIFT_ROOT=${SWIFT_ROOT:-$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")}
step() { printf '\n== %s\n' "$*"; }
# Any failed check ends the run non-zero; say where, with the server's last words.
trap 'status=$?; echo "FAILED (exit $status) at line $LINENO: $BASH_COMMAND" >&2; podman logs --tail 20 "$NAME" >&2 2>/dev/null || true; exit $status' ERR

missing=()
for tool in podman buildah runc debootstrap; do command -v $tool >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah runc debootstrap uidmap fuse-overlayfs >/dev/null
fi

# No systemd or journald in this sandbox, and runc rather than crun. The
# sandbox refuses the rlimits podman sets by default (nofile and nproc
# above the host's); smaller ones are allowed.
mkdir -p "$CACHE"
cat >"$CACHE/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
export CONTAINERS_CONF=$CACHE/containers.conf

cleanup() {
  podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
  podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup

if ! podman image exists "$BASE_IMAGE"; then
  step "debootstrap --variant=minbase bookworm (once; cached as $BASE_IMAGE)"
  ROOT=$CACHE/rootfs
  rm -rf "$ROOT"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log"; exit 1; }
  # Slim like debian:bookworm-slim: no documentation, manuals or
  # translations, now or from packages installed later.
  cat >"$ROOT/etc/dpkg/dpkg.cfg.d/slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
SLIM
  chroot "$ROOT" apt-get clean
  find "$ROOT/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/usr/share/locale/* \
         "$ROOT"/usr/share/lintian/* "$ROOT"/var/cache/debconf/*-old "$ROOT"/var/log/*
  tar -C "$ROOT" -c . | podman import --quiet --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$ROOT"
fi

if ! podman image exists "$SWIFT_IMAGE"; then
  step "stand-in Swift build image from $SWIFT_ROOT (once; cached as $SWIFT_IMAGE)"
  container=$(buildah from "$BASE_IMAGE")
  buildah run "$container" -- sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends binutils gcc libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libedit2 \
      libncurses6 libpython3.11 libz3-4 zlib1g-dev tzdata ca-certificates >/dev/null && rm -rf /var/lib/apt/lists/*'
  buildah copy "$container" "$SWIFT_ROOT" /opt/swift >/dev/null
  buildah config --env PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$container"
  buildah commit --quiet "$container" "$SWIFT_IMAGE" >/dev/null
  buildah rm "$container" >/dev/null
fi

step "podman build (the repository's Dockerfile)"
started=$(date +%s)
# Docker format: the OCI format has no HEALTHCHECK.
podman build --format docker --build-arg SWIFT_IMAGE=$SWIFT_IMAGE --build-arg RUNTIME_IMAGE=$BASE_IMAGE -t "$IMAGE" . \
  >"$CACHE/build.log" 2>&1 || { tail -40 "$CACHE/build.log"; exit 1; }
echo "built $IMAGE in $(( $(date +%s) - started )) s"
size=$(podman image inspect -f '{{.Size}}' "$IMAGE")
echo "image size: $(( size / 1000000 )) MB ($size bytes; goal: under 120 MB)"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
# Podman schedules health checks with systemd timers and logs an error when
# there is no systemd, as here (`--health-interval=disable` does not override
# the image's interval in podman 4.3); the check itself runs below with
# `podman healthcheck run`, so those lines are left out, and only those.
pod() {
  podman "$@" 2> >(grep -v -e 'unable to get systemd connection' >&2)
}
run_container() {
  pod run -d --name "$NAME" -p "127.0.0.1:$PORT:8080" -v "$VOLUME:/data" \
    -e AXIOM_ADMIN_EMAIL=admin@example.com -e AXIOM_ADMIN_PASSWORD='container admin secret' "$IMAGE" >/dev/null
}
wait_ready() {
  local t0 t1
  t0=$(date +%s.%N)
  for _ in $(seq 1 600); do
    if curl -sf "$URL/ready" >/dev/null; then
      t1=$(date +%s.%N)
      python3 -c "print(f'{$t1 - $t0:.2f}')"
      return 0
    fi
    sleep 0.05
  done
  podman logs "$NAME" | tail -20
  return 1
}
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }

step "run: published on 127.0.0.1:$PORT, volume $VOLUME"
t0=$(date +%s.%N)
run_container
wait_ready >/dev/null
echo "start to ready: $(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')") s (podman run to GET /ready 200)"
echo "GET / names the service: $(curl -sf "$URL/" | json '["service"]')"
[ "$(curl -sf -X POST "$URL/users" -H 'Content-Type: application/json' -d '{"name":"Dana","email":"dana@example.com","password":"container secret 1"}' | json '["status"]')" = accepted ]
token=$(curl -sf -X POST "$URL/sessions" -H 'Content-Type: application/json' -d '{"email":"dana@example.com","password":"container secret 1"}' | json '["token"]')
user=$(curl -sf "$URL/users/me" -H "Authorization: Bearer $token" | json '["id"]')
echo "registered, signed in and read /users/me: user $user"
podman healthcheck run "$NAME"
health=$(podman inspect -f '{{.State.Health.Status}}' "$NAME")
echo "HEALTHCHECK: $health ($(podman inspect -f '{{(index .State.Health.Log 0).Output}}' "$NAME"))"
[ "$health" = "healthy" ]
[ "$(podman exec "$NAME" id -u):$(podman exec "$NAME" id -g)" = "10001:10001" ]
echo "runs as $(podman exec "$NAME" id -un) (uid and gid 10001), not root"

step "restart: the data is still there"
t0=$(date +%s.%N)
pod restart -t 15 "$NAME" >/dev/null
wait_ready >/dev/null
echo "restart to ready: $(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')") s (podman restart to GET /ready 200)"
[ "$(curl -sf "$URL/users/me" -H "Authorization: Bearer $token" | json '["id"]')" = "$user" ]
token=$(curl -sf -X POST "$URL/sessions" -H 'Content-Type: application/json' -d '{"email":"dana@example.com","password":"container secret 1"}' | json '["token"]')
[ "$(curl -sf "$URL/users/me" -H "Authorization: Bearer $token" | json '["id"]')" = "$user" ]
echo "after restart: the old session still works, and user $user signs in again"

step "SIGTERM (podman stop): clean exit within the deadline"
t0=$(date +%s.%N)
pod stop -t 15 "$NAME" >/dev/null
elapsed=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')")
status=$(podman inspect -f '{{.State.ExitCode}}' "$NAME")
echo "stopped in $elapsed s with exit status $status"
podman logs "$NAME" 2>&1 | grep -E '"event":"(shutdown_started|shutdown_complete|stopped)"' | tail -3
[ "$status" -eq 0 ]
python3 -c "import sys; sys.exit(0 if $elapsed < 10 else 1)" || { echo "stop took longer than the 10 s deadline"; exit 1; }
echo
echo "container test passed: image $(( size / 1000000 )) MB"
