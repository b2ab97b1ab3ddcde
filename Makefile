# Two commands do all set-up on a fresh Debian 12 machine (as root):
#   make run   - install missing packages, build, open the studio on a bundled example
#   make test  - install missing packages, build, run every test (ctest); with KILN_FORMAT_CHECK=1
#                (the default in CI) first tools/check_format.sh. In CI (CI=true) warnings are
#                errors (KILN_WERROR) and the sanitizer build's CI cut runs after (KILN_SANITIZE_CI).
#   make sanitize - the engine, CLI and their tests built with ASan + UBSan in build-sanitize/,
#                   then those tests run. Never -Werror: the main
#                   build is the warning check; gcc's sanitizer instrumentation adds its own.
#   make ci       - make test as CI runs it (CI=true): -Werror, the format check, every test, then
#                   make sanitize cut to CI's time limit (README.md, "CI").
BUILD ?= build
JOBS ?= 2
SANITIZE_BUILD ?= build-sanitize
# Leaks are not checked: LLVM and the kernel registry keep process-lifetime objects on purpose.
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
EXAMPLE ?= examples/mul_add_relu.py
# What `make sanitize` builds (all by default) and which ctest names it leaves out (the libFuzzer
# targets: they are a clang build of their own, tests/fuzz/README.md).
SANITIZE_TARGETS ?=
SANITIZE_EXCLUDE ?= ^fuzz\.[a-z_]+_short$$
SANITIZE_CI_TARGETS = --target kiln kiln_store_writer kiln_ir_tests kiln_kernel_ir_tests kiln_llvm_codegen_tests \
  kiln_python_tests kiln_runtime_tests kiln_ops_shape_tests kiln_ops_linalg_tests kiln_nn_tests kiln_pass_tests \
  kiln_storage_tests kiln_store_cli_tests kiln_import_tests kiln_cli_tests kiln_error_tests kiln_corpus_tests
# Plugins.OutOfTreeExample installs the in-tree plugins, which the cut does not build (it runs in `make test`).
SANITIZE_CI_EXCLUDE = ^(fuzz\.|seeds\.|Conformance\.|VerifyPrograms\.|Fidelity\.|Cuda|Plugins\.OutOfTreeExample)|_NOT_BUILT$$
# With KILN_SANITIZE_CI=1 (the default in CI) `make test` ends with `make sanitize` cut to what fits
# CI's hour on 2 cores (README.md, "CI"; figures in docs/perf.md, "The sanitizer build"): the CLI and
# the unit-test programs of every layer built with ASan + UBSan, and their tests run. The program
# suites (conformance, verify, seed examples, fidelity, CUDA) and the fuzzers run once, unsanitized.
KILN_SANITIZE_CI ?= $(if $(filter true,$(CI)),1,0)
# -Werror (cmake/warnings.cmake): on in CI (the environment has CI=true), off by default elsewhere.
WERROR ?= $(if $(filter true,$(CI)),ON,OFF)
# tools/check_format.sh over every tracked C++ file before `make test` runs the tests: on in CI
# (CI=true), off by default elsewhere so that a local edit is tested before it is formatted.
KILN_FORMAT_CHECK ?= $(if $(filter true,$(CI)),1,0)

.PHONY: all deps configure build run test sanitize ci clean

all: build

deps:
	bash tools/bootstrap.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_WERROR=$(WERROR)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	bash tools/run_studio.sh $(BUILD) $(EXAMPLE)

test: build
	if [ "$(KILN_FORMAT_CHECK)" = 1 ]; then bash tools/check_format.sh; fi
	cd $(BUILD) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) -LE fuzz_long
	if [ "$(KILN_SANITIZE_CI)" = 1 ]; then \
	  $(MAKE) sanitize SANITIZE_TARGETS='$(SANITIZE_CI_TARGETS)' SANITIZE_EXCLUDE='$(SANITIZE_CI_EXCLUDE)'; fi

sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON -DKILN_BUILD_STUDIO=OFF -DKILN_WERROR=OFF
	cmake --build $(SANITIZE_BUILD) -j$(JOBS) $(SANITIZE_TARGETS)
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) -E '$(SANITIZE_EXCLUDE)'

# CI (.ci/run is `make test` with CI=true): `make test` as CI runs it, here: -Werror, the
# format check, every test, then the sanitizer build's CI cut.
ci:
	$(MAKE) test CI=true

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
