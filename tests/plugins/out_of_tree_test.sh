#!/bin/bash
# Plugins.OutOfTreeExample: a plugin built the way a user builds one. Installs this build into a
# temporary prefix (cmake --install), builds plugins/examples/idempotent_ops against it with
# find_package(Kiln), then runs the installed kiln with --plugin on a corpus program and on a
# script where its rule fires. Usage: out_of_tree_test.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
build=$1 src=$2 shared=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
test -f "$tmp/prefix/lib/cmake/Kiln/KilnConfig.cmake" || fail "no KilnConfig.cmake installed"
test -f "$tmp/prefix/include/kiln/plugin_host/kiln_plugin.h" || fail "no plugin API header installed"
kiln="$tmp/prefix/bin/kiln"

cmake -S "$src/plugins/examples/idempotent_ops" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "configure"; }
cmake --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build"; }
plugin="$tmp/build/idempotent_ops.so"
test -f "$plugin" || fail "no idempotent_ops.so built"
# The plugin links no Kiln library: the engine's symbols come from kiln.
if ldd "$plugin" | grep -qi kiln; then fail "the plugin links a Kiln library"; fi

export KILN_PLUGIN_PATH=
"$kiln" plugins --plugin "$plugin" | grep -qx "  pass idempotent_ops (after simplify)" || fail "kiln plugins does not list the pass"

# A corpus program runs with it and computes what it computes without it (its outputs as the
# corpus oracle writes them).
prog="$shared/corpus/public/seed_mul_add_relu.py"
mkdir -p "$tmp/without" "$tmp/with"
"$kiln" run "$prog" --db "$tmp/s.db" --dump-outputs "$tmp/without" > /dev/null
"$kiln" run "$prog" --db "$tmp/s.db" --dump-outputs "$tmp/with" --plugin "$plugin" > /dev/null
cmp -s "$tmp/without/outs.json" "$tmp/with/outs.json" || fail "the corpus program computes differently with the plugin"
"$kiln" show 2 --stage idempotent_ops --db "$tmp/s.db" | grep -q "^# \[0/0\] pass:idempotent_ops" || fail "no pass:idempotent_ops stage"

# Where its rule applies, the stage records it.
cat > "$tmp/relu.py" <<'PY'
import torch
@torch.compile
def f(x):
    return torch.relu(torch.relu(x)) * 2
print(f(torch.linspace(-1.0, 1.0, 5)))
PY
"$kiln" run "$tmp/relu.py" --db "$tmp/s.db" --plugin "$plugin" > /dev/null
"$kiln" show 3 --stage idempotent_ops --db "$tmp/s.db" | grep -q "rules: relu(relu(x)) -> relu(x) (x1)" || fail "the rule did not fire"
echo "ok: installed, built against find_package(Kiln), ran with --plugin"
