#!/bin/bash
# Regenerates the plots the README's "How close is the simulation to the
# real machine?" section shows: for each log of ../shared/traces that
# records waits, the fidelity of the scenario `schedsim infer` writes
# (the per-job wait density as PNG, the weekly means as SVG).
# Run from the repository's root:  bash docs/fidelity/generate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
traces=../shared/traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/schedsim" ./cmd/schedsim
for pair in ctc:CTC-SP2-1996-3.1-cln hpc2n:HPC2N-2002-2.2-cln lanl:LANL-CM5-1994-4.1-cln; do
	name=${pair%%:*} log=${pair#*:}
	"$tmp/schedsim" infer "$traces/$log.swf.gz" --out "$tmp/$name.toml" 2>/dev/null
	"$tmp/schedsim" fidelity "$tmp/$name.toml" --out "$tmp/$name" >/dev/null
	cp "$tmp/$name/fidelity_waits.png" "docs/fidelity/$name-inferred-waits.png"
	cp "$tmp/$name/fidelity_weekly.svg" "docs/fidelity/$name-inferred-weekly.svg"
	echo "docs/fidelity/$name-inferred-{waits.png,weekly.svg}"
done
