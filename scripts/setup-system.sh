#!/usr/bin/env bash
# Installs the Debian packages gclab needs on a fresh machine, only those missing (idempotent, quiet when all are
# there). `run` = what the app's window needs (X11/Wayland client libraries, Mesa's Vulkan and GL drivers);
# `test` = that plus Xvfb, so the tests can open the real window headless and take its screenshot;
# `slurm` = a single-node Slurm (controller, node daemon, client tools, munge) for tests/slurm/run.sh.
# Building needs no system package: every graphics library is loaded at run time (reference/toolchain.md §3).
set -euo pipefail

what="${1:-test}"
run_pkgs=(mesa-vulkan-drivers libvulkan1 libgl1-mesa-dri libegl1 libegl-mesa0 libgl1 libglx-mesa0
  libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon0 libxkbcommon-x11-0 libwayland-client0 libdbus-1-3)
test_pkgs=(xvfb xauth)
slurm_pkgs=(slurmctld slurmd slurm-client munge)
case "$what" in
  run) pkgs=("${run_pkgs[@]}") ;;
  test) pkgs=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
  slurm) pkgs=("${slurm_pkgs[@]}") ;;
  *) echo "gclab: setup-system.sh: unknown group '$what' (expected run, test or slurm)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "gclab: installing system packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "gclab: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
