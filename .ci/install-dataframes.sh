#!/usr/bin/env bash
# Installs what the dataframe tests (cmd/schedsim TestPandas*, TestDuckDB*)
# read schedsim's outputs with, if it is missing: Debian's python3-pandas
# (for /usr/bin/python3) and the npm package @duckdb/node-api, the latter
# into a cache directory outside the repository ($SCHEDSIM_DUCKDB_DIR, by
# default ~/.cache/schedsim/duckdb), which the tests find the same way.
# Idempotent: does nothing when both are there; runs apt-get update only
# when the package lists do not know python3-pandas yet.
set -euo pipefail

duckdb_version="1.5.6-r.1"
duckdb_dir="${SCHEDSIM_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/schedsim/duckdb}"

if ! /usr/bin/python3 -c 'import pandas' >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-cache show python3-pandas >/dev/null 2>&1; then
		$sudo apt-get update -qq
	fi
	$sudo apt-get install -y -qq --no-install-recommends python3-pandas
fi
/usr/bin/python3 -c 'import pandas; print("pandas", pandas.__version__)'

if ! (cd "$duckdb_dir" 2>/dev/null && node -e "require('@duckdb/node-api')" >/dev/null 2>&1); then
	mkdir -p "$duckdb_dir"
	cd "$duckdb_dir"
	[ -f package.json ] || echo '{"private": true}' >package.json
	npm install --no-audit --no-fund --silent "@duckdb/node-api@$duckdb_version"
fi
(cd "$duckdb_dir" && node -e "const d = require('@duckdb/node-api'); console.log('@duckdb/node-api', require('@duckdb/node-api/package.json').version)")
