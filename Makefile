# appell — top-level driver.  `make demo` and `make test` install what is missing
# (Debian packages, when run as root), configure a Release build and run.

JOBS      ?= $(shell nproc)
BUILD     ?= build
ASAN_BUILD ?= build-asan
DEMO_SCENE ?= scenes/examples/double_pendulum.json
PACKAGES  := cmake g++ make libeigen3-dev libboost-dev nlohmann-json3-dev libgtest-dev \
             libbenchmark-dev libcli11-dev \
             pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib \
             python3-distributed
HEADERS   := /usr/include/eigen3/Eigen/Core /usr/include/boost/numeric/odeint.hpp \
             /usr/include/nlohmann/json.hpp /usr/include/gtest/gtest.h \
             /usr/include/benchmark/benchmark.h /usr/include/CLI/CLI.hpp \
             /usr/include/pybind11/pybind11.h /usr/lib/python3/dist-packages/numpy \
             /usr/lib/python3/dist-packages/pytest /usr/lib/python3/dist-packages/matplotlib \
             /usr/lib/python3/dist-packages/distributed /usr/include/python3*/Python.h

.PHONY: deps build demo test test-asan bench format clean

deps:
	@missing=0; for h in $(HEADERS); do [ -e $$h ] || missing=1; done; \
	command -v cmake >/dev/null || missing=1; \
	if [ $$missing = 1 ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PACKAGES) >/dev/null; \
	  else \
	    echo "error: missing packages; run as root or: sudo apt-get install $(PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/appell check $(DEMO_SCENE)
	./$(BUILD)/appell eval $(DEMO_SCENE)
	./$(BUILD)/appell simulate $(DEMO_SCENE) --out $(BUILD)/demo_traj.csv --duration 2

test: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure

# the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs both)
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAPPELL_SANITIZE=ON \
	      -DAPPELL_BUILD_BENCH=OFF >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest -j $(JOBS) --output-on-failure

# the other engines are needed only here (never by the main build)
BENCH_PACKAGES := libbullet-dev libmujoco-dev
bench: deps
	@if [ ! -e /usr/include/bullet/BulletDynamics/Featherstone/btMultiBody.h ] || \
	    [ ! -e /usr/include/mujoco/mujoco.h ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(BENCH_PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PACKAGES) >/dev/null; \
	  else \
	    echo "note: $(BENCH_PACKAGES) missing (run as root to install); engines_bench is skipped" >&2; \
	  fi; \
	fi
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	./$(BUILD)/formulations_bench --benchmark_format=json --benchmark_out=$(BUILD)/bench.json
	if [ -x ./$(BUILD)/engines_bench ]; then \
	  ./$(BUILD)/engines_bench --benchmark_format=json --benchmark_out=$(BUILD)/engines_bench.json; \
	fi

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
