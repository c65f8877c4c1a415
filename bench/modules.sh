#!/usr/bin/env bash
# Benchmark: the modules watch (docs/scenario.md, "The modules") on react-ssr's tree: the time to arm it, to
# take the record, to close it, and node24's load of react-dom/server and one render with the watches armed and
# without, alternated. Needs react-ssr's dependencies in the image cache (one run of react-ssr installs them).
#   bench/modules.sh TOOL [ROUNDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tool=$1 rounds=${2:-60}
node=$("$top/bin/harness" images path node24) || { echo "bench-modules: harness images pull node24" >&2; exit 3; }
cache=${node%%/trees/*}
lock=$(sha256sum "$top/scenarios/react-ssr/package-lock.json" | cut -d' ' -f1)
nm=$cache/npm/sha256-$lock/node_modules
[ -d "$nm" ] || { echo "bench-modules: no $nm: run react-ssr once (harness run react-ssr --runtimes node24)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp -r "$top/scenarios/react-ssr/." "$out/app"
mkdir -p "$out/app/node_modules"
cat >"$out/load.js" <<JS
process.env.NODE_ENV = 'production';
const server = require('$nm/react-dom/server'), React = require('$nm/react');
server.renderToString(React.createElement('div', null, 'x'));
JS
"$tool" "$out/app" "$nm" "$rounds" "$node" "$out/load.js"
