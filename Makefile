# Two commands do all set-up on a fresh Debian 12 machine (as root):
#   make run   - install missing packages, build, open the studio on a bundled example
#   make test  - install missing packages, build, run every test (ctest); with KILN_FORMAT_CHECK=1
#                first tools/check_format.sh. In CI (CI=true) warnings are errors (KILN_WERROR).
#   make sanitize - the engine, CLI and their tests built with ASan + UBSan in build-sanitize/,
#                   then those tests run (CI runs it after make test)
BUILD ?= build
JOBS ?= 2
SANITIZE_BUILD ?= build-sanitize
# Leaks are not checked: LLVM and the kernel registry keep process-lifetime objects on purpose.
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
EXAMPLE ?= examples/mul_add_relu.py
# -Werror (cmake/warnings.cmake): on in CI (the environment has CI=true), off by default elsewhere.
WERROR ?= $(if $(filter true,$(CI)),ON,OFF)
# tools/check_format.sh over every tracked C++ file as part of `make test`; CI turns it on
# (KILN_FORMAT_CHECK=1) once the tree is formatted (tools/check_format.sh --fix).
KILN_FORMAT_CHECK ?= 0

.PHONY: all deps configure build run test sanitize clean

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

sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON -DKILN_BUILD_STUDIO=OFF -DKILN_WERROR=OFF
	cmake --build $(SANITIZE_BUILD) -j$(JOBS)
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) -E '^fuzz\.[a-z_]+_short$$'

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
