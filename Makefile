# appell — top-level driver.  `make demo` and `make test` install what is missing
# (Debian packages, when run as root), configure a Release build and run.

JOBS      ?= $(shell nproc)
BUILD     ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 30
DEMO_SCENE ?= scenes/examples/double_pendulum.json
# the sanitizer builds' optimisation and debug info (RelWithDebInfo's flags): line tables
# (-g1) are all a sanitizer report needs, and -O1 halves their compile time
SANITIZE_FLAGS ?= -O1 -g1 -DNDEBUG
PACKAGES  := cmake g++ make libeigen3-dev libboost-dev nlohmann-json3-dev libgtest-dev \
             libbenchmark-dev libcli11-dev liburdfdom-dev libtinyxml2-dev pkg-config libbullet-dev libassimp-dev \
             pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib \
             python3-distributed python3-venv python3-pip python3-setuptools python3-wheel
HEADERS   := /usr/include/eigen3/Eigen/Core /usr/include/boost/numeric/odeint.hpp \
             /usr/include/nlohmann/json.hpp /usr/include/gtest/gtest.h \
             /usr/include/benchmark/benchmark.h /usr/include/CLI/CLI.hpp \
             /usr/include/urdf_parser/urdf_parser.h /usr/include/tinyxml2.h \
             /usr/include/bullet/btBulletCollisionCommon.h /usr/include/assimp/Importer.hpp \
             /usr/include/pybind11/pybind11.h /usr/lib/python3/dist-packages/numpy \
             /usr/lib/python3/dist-packages/pytest /usr/lib/python3/dist-packages/matplotlib \
             /usr/lib/python3/dist-packages/distributed /usr/include/python3*/Python.h \
             /usr/lib/python3/dist-packages/pip /usr/lib/python3/dist-packages/setuptools \
             /usr/lib/python3/dist-packages/wheel

# the HTML report needs node and npm at configure time (three.js, uPlot); its tests need
# Chromium, the scene-schema test Debian's python3-jsonschema, and the Lagrangian systems'
# test (tests/lagrangian/sympy_check.py) python3-sympy
REPORT_PACKAGES := nodejs npm
REPORT_PROBES   := /usr/bin/node /usr/bin/npm
BROWSER_PACKAGES := chromium python3-jsonschema python3-sympy
BROWSER_PROBES  := /usr/bin/chromium /usr/lib/python3/dist-packages/jsonschema \
                   /usr/lib/python3/dist-packages/sympy

.PHONY: deps deps-report deps-browser deps-clang deps-ci build demo test test-asan test-tsan fuzz bench \
        format clean

deps:
	@missing=0; for h in $(HEADERS); do [ -e $$h ] || missing=1; done; \
	command -v cmake >/dev/null || missing=1; \
	command -v pkg-config >/dev/null || missing=1; \
	if [ $$missing = 1 ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PACKAGES) >/dev/null; \
	  else \
	    echo "error: missing packages; run as root or: sudo apt-get install $(PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

# installs $(1) when one of the files $(2) is missing (as root; else says what to install)
define install_missing
	@missing=0; for f in $(2); do [ -e $$f ] || missing=1; done; \
	if [ $$missing = 1 ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(1)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; \
	  else \
	    echo "note: $(1) missing (run as root or: sudo apt-get install $(1))" >&2; \
	  fi; \
	fi
endef

deps-report: deps
	$(call install_missing,$(REPORT_PACKAGES),$(REPORT_PROBES))

deps-browser: deps-report
	$(call install_missing,$(BROWSER_PACKAGES),$(BROWSER_PROBES))

build: deps-browser
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DAPPELL_BUILD_BENCH=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# the program only (not the tests or the benchmarks), one scene, a report to open
demo: deps-report
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@echo "building $(BUILD)/appell (log: $(BUILD)/demo_build.log)"; \
	  cmake --build $(BUILD) -j $(JOBS) --target appell_cli >$(BUILD)/demo_build.log 2>&1 || \
	  { tail -40 $(BUILD)/demo_build.log; exit 1; }
	@echo; ./$(BUILD)/appell check --table $(DEMO_SCENE)
	@echo; ./$(BUILD)/appell eval --table $(DEMO_SCENE)
	@./$(BUILD)/appell simulate $(DEMO_SCENE) --duration 5 --quiet --out $(BUILD)/demo_traj.csv \
	  --forces $(BUILD)/demo_forces.csv --summary $(BUILD)/demo_summary.json \
	  --report $(BUILD)/demo_report.html
	@echo; echo "simulated 5 s:"; grep -E '"(steps|wall_seconds|max_rel_drift|position_max|velocity_max)"' \
	  $(BUILD)/demo_summary.json | tr -d ' ,"' | sed 's/^/  /; s/:/: /'
	@echo; echo "trajectory: $(BUILD)/demo_traj.csv, forces: $(BUILD)/demo_forces.csv"
	@if [ -x /usr/bin/chromium ] && [ -e $(BUILD)/js/node_modules/playwright-core ]; then \
	  node tests/browser/check_report.cjs $(BUILD)/demo_report.html $(BUILD)/browser demo $(BUILD)/js \
	    >/dev/null && echo "checked in headless Chromium: animation moves, every chart drawn," \
	    "screenshot $(BUILD)/browser/demo.png"; fi
	@echo "report (open it in a browser): $(abspath $(BUILD))/demo_report.html"

# everything a test uses (library, program, test binary, Python module, report assets);
# the benchmarks are not tests and are left to `make build` and `make bench`
test: deps-browser
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DAPPELL_BUILD_BENCH=OFF >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure

# the GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs both),
# in JOBS processes (GoogleTest's shards; one process per test would spend a second of
# sanitizer start-up and leak scan on each).  Left out here, run by `make test` only:
# the long simulations repeated in every formulation (one formulation kept, the others
# take the same code paths for minutes: the dense ones are 200 times slower at -O1 under
# the sanitizers), the browser and schema tests (Chromium, Node: no code of ours), and the
# tests that run the program once per shipped scene or bad shape (one sanitized process
# each, 1–2 minutes a test): `make fuzz` loads every shipped scene, evaluates it in every
# formulation and writes its report under the same sanitizers (the seeds of its scene and
# report targets), and mutates them into bad ones.
ASAN_SKIP := Scene.EveryExampleChecks Report.EveryShippedSceneGetsOne \
  Geometry.BadShapesAreLocatedErrors NumericsHardening.RankChangeWithoutProjection* \
  EveryFormulation/FourBarChain.*/gibbs_appell EveryFormulation/FourBarChain.*/pinv \
  EveryFormulation/FourBarChain.*/sparse EveryFormulation/Bricard.*/gibbs_appell_* \
  EveryFormulation/Bricard.*/pinv_* EveryFormulation/Bricard.*/sparse_* \
  EveryFormulation/FlyballGovernor.*/gibbs_appell EveryFormulation/FlyballGovernor.*/pinv \
  EveryFormulation/FlyballGovernor.*/sparse EveryFormulation/AndrewsSqueezer.*/gibbs_appell \
  EveryFormulation/AndrewsSqueezer.*/pinv Rolling.DiskNearlyFlat* Simulation.DoublePendulumDrift*
empty :=
space := $(empty) $(empty)
# The sanitized tests and the fuzzers share one clang build, $(ASAN_BUILD): the library is
# compiled once, under ASan + UBSan and with libFuzzer's coverage (which the tests link
# too: the sanitizer runtime has its callbacks), where a build each compiled it twice.
# clang compiles the tests' templates in two thirds of g++'s time at -O1.
SAN_CONFIG = cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_FLAGS)" \
  -DAPPELL_UNITY=ON -DAPPELL_SANITIZE=ON -DAPPELL_FUZZ=ON -DAPPELL_BUILD_BENCH=OFF >/dev/null
test-asan: deps-clang
	$(SAN_CONFIG)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target appell_tests
	@cd $(ASAN_BUILD) && pids=""; for i in $$(seq 0 $$(($(JOBS) - 1))); do \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  GTEST_TOTAL_SHARDS=$(JOBS) GTEST_SHARD_INDEX=$$i ./appell_tests --gtest_brief=1 \
	    --gtest_filter='-$(subst $(space),:,$(strip $(ASAN_SKIP)))' >asan-shard-$$i.log 2>&1 & pids="$$pids $$!"; \
	done; i=0; failed=0; for p in $$pids; do \
	  if wait $$p; then tail -2 asan-shard-$$i.log; \
	  else failed=1; tail -150 asan-shard-$$i.log; echo "error: shard $$i failed" >&2; fi; \
	  i=$$((i + 1)); done; exit $$failed

# the threaded tests alone (tests/threads_test.cpp: one Model, 4 threads, bit for bit with
# serial runs; tests/sample_writer_test.cpp: the program's writer thread) with the library
# under ThreadSanitizer; nothing else is built (nor the report's JavaScript fetched)
test-tsan: deps-clang
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAPPELL_TSAN=ON \
	      -DCMAKE_CXX_COMPILER=clang++ \
	      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_FLAGS)" -DAPPELL_UNITY=ON \
	      -DAPPELL_BUILD_TESTS=OFF -DAPPELL_BUILD_BENCH=OFF -DAPPELL_REPORT=OFF >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target threads_tsan_test
	TSAN_OPTIONS=halt_on_error=1 ./$(TSAN_BUILD)/threads_tsan_test

# clang and its runtime (libFuzzer, sanitizers): the sanitizer builds and `make fuzz`
CLANG_PACKAGES := clang libclang-rt-14-dev
deps-clang: deps
	@if ! command -v clang++ >/dev/null || \
	    ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $(CLANG_PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CLANG_PACKAGES) >/dev/null; \
	  else \
	    echo "error: missing packages; run as root or: sudo apt-get install $(CLANG_PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

# libFuzzer targets of tests/fuzz/ under ASan + UBSan, FUZZ_SECONDS each, seeded with the
# shipped scenes; a crash leaves its input as $(FUZZ_BUILD)/crash-* and fails.  The fuzzers
# are single-threaded and run JOBS at a time (each still gets FUZZ_SECONDS of its own core),
# each into its log $(FUZZ_BUILD)/NAME_fuzz.log, whose end is printed when it fails.  The
# report fuzzer writes reports without their JavaScript.  Built in the sanitized tests'
# build ($(ASAN_BUILD)): after `make test-asan` only the fuzzers' own files are compiled.
FUZZERS := scene expression urdf report mesh mjcf
FUZZ_BUILD = $(ASAN_BUILD)
fuzz: deps-clang
	$(SAN_CONFIG)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZERS:%=%_fuzz)
	mkdir -p $(FUZZERS:%=$(FUZZ_BUILD)/corpus/%)
	@# seeds are copied: libFuzzer writes new inputs into its corpus directories
	cp scenes/examples/*.json scenes/benchmarks/*.json $(FUZZ_BUILD)/corpus/scene/
	cp tests/fuzz/expressions/* $(FUZZ_BUILD)/corpus/expression/
	cp scenes/examples/robots/* $(FUZZ_BUILD)/corpus/urdf/
	cp scenes/examples/*.json tests/fuzz/reports/* $(FUZZ_BUILD)/corpus/report/
	cp scenes/examples/meshes/* tests/fuzz/meshes/* $(FUZZ_BUILD)/corpus/mesh/
	cp scenes/examples/robots/*.xml tests/fuzz/mjcf/* $(FUZZ_BUILD)/corpus/mjcf/
	@$(MAKE) --no-print-directory -j $(JOBS) $(FUZZERS:%=fuzz-run-%)

# $(1) the fuzzer, $(2) its options, $(3) its environment
define run_fuzzer
	@echo "fuzzing $(1) for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/$(1)_fuzz.log)"
	@$(3) ./$(FUZZ_BUILD)/$(1)_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  $(2) -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 $(FUZZ_BUILD)/corpus/$(1) \
	  >$(FUZZ_BUILD)/$(1)_fuzz.log 2>&1 || \
	  { tail -80 $(FUZZ_BUILD)/$(1)_fuzz.log; echo "error: $(1)_fuzz failed" >&2; exit 1; }
	@echo "$(1)_fuzz: no finding ($$(grep -h -m1 stat::number_of_executed_units \
	  $(FUZZ_BUILD)/$(1)_fuzz.log | sed 's/.*: *//') inputs)"
endef

.PHONY: $(FUZZERS:%=fuzz-run-%)
fuzz-run-scene:
	$(call run_fuzzer,scene,-max_len=65536 -dict=tests/fuzz/scene.dict)
fuzz-run-expression:
	$(call run_fuzzer,expression,-max_len=4096)
fuzz-run-urdf:
	$(call run_fuzzer,urdf,-max_len=65536,LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp)
fuzz-run-report:
	$(call run_fuzzer,report,-max_len=65536 -dict=tests/fuzz/scene.dict,LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp)
fuzz-run-mesh:
	$(call run_fuzzer,mesh,-max_len=65536,LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp)
fuzz-run-mjcf:
	$(call run_fuzzer,mjcf,-max_len=65536,LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp)

# CI (.ci/run): every package the rules above install, in one apt-get run after the one
# `apt-get update` that .ci/run makes; the rules then find them all installed. Only what is
# missing is asked for: a machine may carry its own Node.js (e.g. NodeSource's, which brings
# npm and conflicts with Debian's npm), so the report's packages are asked for only when
# node or npm is missing. Should the one run fail, each rule installs its own group.
# libmujoco-dev: the reference of tests/mjcf_mujoco_test.cpp (skipped where it is missing)
CI_PACKAGES = $(PACKAGES) $(BROWSER_PACKAGES) $(CLANG_PACKAGES) libmujoco-dev
deps-ci:
	@want=""; for p in $(CI_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || want="$$want $$p"; \
	done; \
	for f in $(REPORT_PROBES); do [ -e $$f ] || { want="$$want $(REPORT_PACKAGES)"; break; }; done; \
	if [ -n "$$want" ]; then \
	  echo "installing:$$want"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$want >/dev/null || \
	  { echo "note: one install of every package failed; installing group by group" >&2; \
	    $(MAKE) --no-print-directory deps deps-report deps-browser deps-clang; }; \
	else echo "every package CI needs is installed"; fi

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
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DAPPELL_BUILD_BENCH=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	./$(BUILD)/formulations_bench --benchmark_format=json \
	  --benchmark_out=$(BUILD)/formulations_bench.json
	@# the ratio table (appell against Bullet and MuJoCo, a simulate step) in build/bench.json
	if [ -x ./$(BUILD)/engines_bench ]; then \
	  ./$(BUILD)/engines_bench --benchmark_out_format=json \
	    --benchmark_out=$(BUILD)/engines_bench.json --ratios_out=$(BUILD)/bench.json; \
	fi
	@# contact: a time step against MuJoCo's mj_step (sliding, rolling, bouncing, stacks, a pile,
	@# boxes apart, two quadrupeds standing), one row per scene in build/contact_ratios.json
	if [ -x ./$(BUILD)/contact_bench ]; then \
	  ./$(BUILD)/contact_bench --benchmark_out_format=json \
	    --benchmark_out=$(BUILD)/contact_bench.json --ratios_out=$(BUILD)/contact_ratios.json; \
	fi

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
