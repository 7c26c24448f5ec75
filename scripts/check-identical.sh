#!/usr/bin/env bash
# Checks that a restructuring changed no output: builds a commit (default HEAD) in a clean
# worktree of its own, then writes
#   - `attribute --json` over every shared run and the fixtures, one file per source,
#   - `faultline train` with the flags that reproduce models/offline-model.json (and a diff
#     against the committed model file),
#   - `faultline eval` reports (markdown and JSON) on Who&When and MAD,
# into OUT, and compares OUT with a saved set when --compare names one.
#
#   scripts/check-identical.sh --capture /tmp/faultline-before            # capture HEAD
#   scripts/check-identical.sh --compare /tmp/faultline-before /tmp/after # HEAD against it
#   REF=<commit> SEEDS=0,1 scripts/check-identical.sh ...
#
# A clean worktree keeps other people's uncommitted edits out of the figures. Fields that carry
# times (generatedAt, milliseconds, durations) are removed before comparing; nothing else is.
set -euo pipefail

mode=${1:?usage: check-identical.sh --capture OUT | --compare BEFORE OUT}
case "$mode" in
  --capture) before=; out=${2:?OUT}; ;;
  --compare) before=${2:?BEFORE}; out=${3:?OUT}; ;;
  *) echo "usage: check-identical.sh --capture OUT | --compare BEFORE OUT" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
ref=${REF:-HEAD}
seeds=${SEEDS:-0,1}
datasets=${DATASETS:-$repo/../shared/datasets}

# The tree sits beside a link named shared/, so the datasets are ../shared/datasets from it, as
# the shipped model records them.
scratch=$(mktemp -d /tmp/faultline-check.XXXXXX)
tree=$scratch/main
home=$scratch/home
mkdir -p "$home"
ln -s "$(realpath "$datasets/..")" "$scratch/shared"
cleanup() {
  git -C "$repo" worktree remove --force "$tree" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
git -C "$repo" worktree add --detach "$tree" "$ref" >/dev/null 2>&1
ln -s "$repo/node_modules" "$tree/node_modules"
echo "building $(git -C "$tree" rev-parse --short HEAD) in $tree" >&2
(cd "$tree" && npx tsc -p tsconfig.build.json)

mkdir -p "$out"
export FAULTLINE_HOME=$home NO_COLOR=1
shared=../shared/datasets
cli() { (cd "$tree" && node dist/cli/index.js "$@"); }

for source in who-and-when aegis mad-mast; do
  echo "attribute $source" >&2
  cli attribute "$shared/$source" --json >"$out/attribute-$source.jsonl" 2>"$out/attribute-$source.stderr" || echo "exit $?" >>"$out/attribute-$source.stderr"
done
for source in src/trace/__fixtures__/formats examples/formats examples/who-and-when-ag-58.json examples/who-and-when-hc-6.json; do
  name=$(echo "$source" | tr '/' '_')
  echo "attribute $source" >&2
  cli attribute "$source" --json >"$out/attribute-$name.jsonl" 2>"$out/attribute-$name.stderr" || echo "exit $?" >>"$out/attribute-$name.stderr"
done

echo "train" >&2
cli train --data "$shared/who-and-when" "$shared/aegis" --modes-data "$shared/mad-mast" "$shared/aegis" \
  --out "$out/offline-model.json" 2>"$out/train.stderr"
if cmp -s "$out/offline-model.json" "$tree/models/offline-model.json"; then
  echo "train reproduces models/offline-model.json" >&2
else
  echo "train DIFFERS from models/offline-model.json" | tee "$out/train-differs" >&2
fi

echo "eval who-and-when (seeds $seeds)" >&2
cli eval "$shared/who-and-when" --method offline,offline-cv,offline-loso,first-agent --seeds "$seeds" \
  --fresh -o "$out/eval-who-and-when.md" "$out/eval-who-and-when.json" >"$out/eval-who-and-when.txt" 2>/dev/null
echo "eval mad-mast" >&2
cli eval "$shared/mad-mast" --method offline,offline-cv --seeds "$seeds" \
  --fresh -o "$out/eval-mad-mast.md" "$out/eval-mad-mast.json" >"$out/eval-mad-mast.txt" 2>/dev/null

# Timestamps and durations go; the `results stored in` line names a temporary home.
for file in "$out"/*.json "$out"/*.jsonl; do
  node -e '
    const fs = require("node:fs");
    const drop = new Set(["generatedAt", "milliseconds", "durationMs", "elapsedMs", "createdAt"]);
    const clean = (value) => Array.isArray(value) ? value.map(clean)
      : value && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).filter(([key]) => !drop.has(key)).map(([key, inner]) => [key, clean(inner)]))
        : value;
    const file = process.argv[1];
    const text = fs.readFileSync(file, "utf8");
    const lines = file.endsWith(".jsonl") ? text.split("\n").filter(Boolean) : [text];
    const out = lines.map((line) => { try { return JSON.stringify(clean(JSON.parse(line))); } catch { return line; } });
    fs.writeFileSync(file + ".clean", out.join("\n") + "\n");
  ' "$file"
done
for file in "$out"/*.md "$out"/*.txt "$out"/*.stderr; do
  sed -E 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/<time>/g; s#/tmp/faultline-check\.[^ ]*#<tmp>#g' "$file" >"$file.clean"
done

if [ -n "$before" ]; then
  status=0
  for file in "$before"/*.clean; do
    name=$(basename "$file")
    if ! cmp -s "$file" "$out/$name"; then
      echo "DIFFERS: $name" >&2
      status=1
    fi
  done
  cmp -s "$before/offline-model.json" "$out/offline-model.json" || { echo "DIFFERS: offline-model.json" >&2; status=1; }
  [ ! -e "$out/train-differs" ] || status=1
  if [ $status -eq 0 ]; then echo "identical: every output matches $before" >&2; fi
  exit $status
fi
