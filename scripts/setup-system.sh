#!/usr/bin/env bash
# System packages the project needs: AVR toolchain and simulator (LED board firmware and its tests),
# GNU Backgammon (round-trip tests of exported matches), Chromium and its driver (dashboard browser tests).
set -euo pipefail
packages=(make gcc-avr avr-libc binutils-avr libsimavr-dev simavr gcc libc6-dev gnubg chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
