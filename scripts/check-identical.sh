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
#   scripts/check-identical.sh --recompare /tmp/faultline-before /tmp/after # compare again only
#   REF=<commit> SEEDS=0,1 scripts/check-identical.sh ...
#
# A clean worktree keeps other people's uncommitted edits out of the figures. Fields that carry
# times (generatedAt, milliseconds, durations) are removed before comparing; nothing else is.
set -euo pipefail

usage="usage: check-identical.sh --capture OUT | --compare BEFORE OUT | --recompare BEFORE OUT"
mode=${1:?$usage}
case "$mode" in
  --capture) before=; out=${2:?OUT}; ;;
  --compare | --recompare) before=${2:?BEFORE}; out=${3:?OUT}; ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
ref=${REF:-HEAD}
seeds=${SEEDS:-0,1}
datasets=${DATASETS:-$repo/../shared/datasets}

if [ "$mode" != --recompare ]; then
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
fi

# Timestamps and durations go (generatedAt, milliseconds…, the report's "Generated" line and its
# "ms" columns), and the output folder's name; nothing else does.
normalise() {
node - "$1" <<'NODE'
const fs = require('node:fs');
const path = require('node:path');
const out = process.argv[2];
const timing = (key) => key === 'generatedAt' || key.startsWith('milliseconds') || key === 'durationMs';
const clean = (value) =>
  Array.isArray(value)
    ? value.map(clean)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).filter(([key]) => !timing(key)).map(([key, inner]) => [key, clean(inner)]))
      : value;
for (const name of fs.readdirSync(out)) {
  const file = path.join(out, name);
  if (name.endsWith('.clean') || !fs.statSync(file).isFile()) continue;
  let text = fs.readFileSync(file, 'utf8').split(out).join('<out>');
  if (name.endsWith('.jsonl'))
    text = text.split('\n').filter(Boolean).map((line) => JSON.stringify(clean(JSON.parse(line)))).join('\n') + '\n';
  else if (name.endsWith('.json')) text = JSON.stringify(clean(JSON.parse(text)), null, 1) + '\n';
  else if (name.endsWith('.md') || name.endsWith('.txt')) {
    let timed = false;
    text = text
      .split('\n')
      .filter((line) => !line.startsWith('Generated '))
      .map((line) => {
        if (!line.startsWith('|')) return (timed = false), line;
        const cells = line.split('|');
        if (/^ *(ms|ms per trace) *$/.test(cells.at(-2) ?? '')) timed = true;
        else if (timed && !/^[\s:-]*$/.test(cells.at(-2) ?? '')) cells[cells.length - 2] = ' <ms> ';
        return cells.join('|');
      })
      .join('\n');
  }
  fs.writeFileSync(file + '.clean', text);
}
NODE
}
normalise "$out"
[ "$mode" != --recompare ] || normalise "$before"

# Attribute outputs are compared trace by trace: a trace added to the fixtures since the saved set
# was captured is listed, not counted as a difference.
compare_lines() {
  node - "$1" "$2" <<'NODE'
const fs = require('node:fs');
const [before, after] = process.argv.slice(2).map((file) => {
  const lines = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const key = (() => { try { const v = JSON.parse(line); return `${v.trace}#${v.id}`; } catch { return line; } })();
    lines.set(key + '#' + [...lines.keys()].filter((k) => k.startsWith(key + '#')).length, line);
  }
  return lines;
});
let differs = 0;
for (const [key, line] of before)
  if (!after.has(key)) { console.error(`  missing after: ${key}`); differs += 1; }
  else if (after.get(key) !== line) { console.error(`  differs: ${key}`); differs += 1; }
for (const key of after.keys()) if (!before.has(key)) console.error(`  new input (not compared): ${key}`);
process.exit(differs > 0 ? 1 : 0);
NODE
}

if [ -n "$before" ]; then
  status=0
  for file in "$before"/*.clean; do
    name=$(basename "$file")
    case "$name" in
      attribute-*.jsonl.clean)
        compare_lines "$file" "$out/$name" || { echo "DIFFERS: $name" >&2; status=1; } ;;
      *)
        cmp -s "$file" "$out/$name" || { echo "DIFFERS: $name" >&2; status=1; } ;;
    esac
  done
  cmp -s "$before/offline-model.json" "$out/offline-model.json" || { echo "DIFFERS: offline-model.json" >&2; status=1; }
  [ ! -e "$out/train-differs" ] || status=1
  if [ $status -eq 0 ]; then echo "identical: every output matches $before" >&2; fi
  exit $status
fi
