#!/usr/bin/env bash
# Build the lab / Molecule base image (Debian bookworm, systemd as PID 1, python3 with
# python3-apt, which Ansible's apt module needs and would otherwise install on first use,
# Java 17) from Debian packages with debootstrap, then `docker import` it.
# There is no container registry to pull from, so the image is made here once.
set -euo pipefail
image=${KAFKA_DR_BASE_IMAGE:-kafka-dr/bookworm-systemd:3}
cache=${KAFKA_DR_CACHE:-$HOME/.cache/kafka-dr}

mkdir -p "$cache"
if docker image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi
scripts/apt_install.sh debootstrap
packages=python3,python3-apt,python3-requests,systemd,systemd-sysv,sudo,procps,iproute2,ca-certificates,openjdk-17-jre-headless,netcat-openbsd
rootfs=$(mktemp -d "${TMPDIR:-/tmp}/kafka-dr-rootfs.XXXXXX")
trap 'rm -rf "$rootfs"' EXIT
echo "setup: debootstrap bookworm into $rootfs (a few minutes, once)"
debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" >"$cache/debootstrap.log" 2>&1 || {
  tail -n 30 "$cache/debootstrap.log" >&2; exit 1; }
# Units that make no sense inside a container only slow boot or fail.
for unit in systemd-udevd.service systemd-udev-trigger.service getty@tty1.service \
            systemd-logind.service systemd-remount-fs.service; do
  ln -sf /dev/null "$rootfs/etc/systemd/system/$unit"
done
rm -f "$rootfs"/var/cache/apt/archives/*.deb
tar -C "$rootfs" -c . | docker import \
  --change 'CMD ["/lib/systemd/systemd"]' \
  --change 'ENV container=docker' - "$image" >/dev/null
echo "setup: built base image $image"
