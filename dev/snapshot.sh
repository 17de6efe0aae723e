#!/usr/bin/env bash
# Every command's output for every stack, one file each, in <out>: run it before and after a
# change meant to be behaviour-neutral (a move, a refactor) and compare: diff -r <before> <after>.
#
#   dev/snapshot.sh <out> [<ref for plan --diff>]
set -u
out="$(realpath -m "${1:?usage: dev/snapshot.sh <out> [<ref>]}")"; ref="${2:-HEAD}"
cd "$(dirname "$0")/.."; mkdir -p "$out"
stacks=$(ls Pulumi.*.yaml | sed -n 's/^Pulumi\.\(.*\)\.yaml$/\1/p')
for s in $stacks; do
  npm run -s plan -- $s > "$out/plan-$s.txt" 2>&1; echo "rc=$?" >> "$out/plan-$s.txt"
  npm run -s plan -- $s --format json > "$out/plan-$s.json" 2>/dev/null
  npm run -s plan -- $s --format markdown > "$out/plan-$s.md" 2>&1
  npm run -s drain -- $s examples/ > "$out/drain-$s.txt" 2>&1; echo "rc=$?" >> "$out/drain-$s.txt"
  npm run -s drain -- $s examples/ --format markdown > "$out/drain-$s.md" 2>&1
  npm run -s upgrade -- $s > "$out/upgrade-$s.txt" 2>&1
  for f in "" --boundary --drift --preview; do npm run -s deployer-policy -- $s $f > "$out/dp-$s$f.json" 2>&1; done
  npm run -s policy:check -- --env $s examples/ > "$out/gate-$s.txt" 2>&1; echo "rc=$?" >> "$out/gate-$s.txt"
  npm run -s bootstrap -- $s --state-bucket acme-state --repo acme/platform > "$out/boot-$s.sh" 2>&1
done
npm run -s policy:check -- --env prod --format sarif examples/ > "$out/gate.sarif" 2>&1
npm run -s plan -- dev --diff "$ref" > "$out/diff-dev.txt" 2>&1
npm run -s plan -- prod --diff "$ref" --format json > "$out/diff-prod.json" 2>&1
