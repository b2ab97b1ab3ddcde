# Two commands do all set-up on a fresh Debian 12 machine (as root):
#   make run   - install missing packages, build, open the studio on a bundled example
#   make test  - install missing packages, build, run every test (ctest)
BUILD ?= build
JOBS ?= 2
EXAMPLE ?= examples/mul_add_relu.py

.PHONY: all deps configure build run test clean

all: build

deps:
	bash tools/bootstrap.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	bash tools/run_studio.sh $(BUILD) $(EXAMPLE)

test: build
	cd $(BUILD) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j$(JOBS) -LE fuzz_long

clean:
	rm -rf $(BUILD)
