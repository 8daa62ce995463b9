#!/usr/bin/env bash
# Installs headless Chromium and chromedriver (Debian's chromium and
# chromium-driver packages) for the browser test of report.html, if they are
# missing. Idempotent: does nothing when /usr/bin/chromium and
# /usr/bin/chromedriver are there; runs apt-get update only when the package
# lists do not know the packages yet.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show chromium chromium-driver >/dev/null 2>&1; then
	$sudo apt-get update -qq
fi
$sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver
/usr/bin/chromium --version
