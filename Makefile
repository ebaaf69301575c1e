SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# ChatBotKit: `make run` starts the embedded dev server and the example bots from bots.yaml;
# `make test` runs every test. Both install missing system packages first.

SWIFT ?= swift
VENV ?= .venv
CONFIG ?= bots.yaml
# The package's own tools, tests and examples need its Tools trait (Package.swift says why: a bot
# that adds ChatBotKit resolves none of the server side's packages). Tools enables the other two
# traits, so every trait is on; --enable-all-traits says so in the one form the docc plugin's
# builds also use (it always enables every trait). SwiftPM writes the trait flags (-DTools
# -DWebhooks -DConfiguration) in the order of a Set, new in each process unless hashing is
# deterministic, and a new order is a new command line for every module of the package: with
# `--traits Tools` and no SWIFTPM_ENV, `make docs` rebuilt what `make build` had built (8 minutes),
# and one `swift build` after another could too. SWIFTPM_ENV goes on the commands that build,
# not on the tests.
TRAITS ?= --enable-all-traits
SWIFTPM_ENV ?= SWIFT_DETERMINISTIC_HASHING=1

.PHONY: run test deps python-env build docs test-docs test-swift test-python test-written-package test-sanitizers bench clean

run: deps
	$(SWIFTPM_ENV) $(SWIFT) build $(TRAITS) --product bots
	$$($(SWIFT) build $(TRAITS) --show-bin-path)/bots run --config $(CONFIG) --watch

# The Python tests and the sanitizer runs go beside the build of the package `bots init` writes
# (test-written-package, below): see there why. The documentation is built before the sanitizer
# runs, while the build folder holds the plain build it reuses.
test: deps python-env build test-docs test-swift
	@set -m; $(PYTEST) -m builds_in_background Tests/python > .build/written-package.log 2>&1 & written=$$!; set +m; \
	trap 'kill -INT -- -$$written 2>/dev/null || true' EXIT; \
	$(PYTEST) -n $(PYTHON_WORKERS) -m "not builds_in_background" Tests/python; \
	$(MAKE) --no-print-directory test-sanitizers; \
	echo "The package bots init writes, built meanwhile (Tests/python/test_bots_init.py):"; \
	wait $$written || { tail -n 80 .build/written-package.log; exit 1; }; trap - EXIT; \
	tail -n 1 .build/written-package.log

deps:
	@./scripts/ensure-system-packages.sh

python-env:
	@./scripts/ensure-python-env.sh $(VENV)

build:
	$(SWIFTPM_ENV) $(SWIFT) build $(TRAITS) --build-tests

# The DocC documentation of the public modules that have a catalog (Sources/<Module>/<Module>.docc),
# one archive per module in $(DOCS_OUTPUT). docc runs with --warnings-as-errors, so an unresolved
# ``Symbol`` or <doc:Article> link, in an article or in a `///` comment, fails `make docs` and so
# `make test`. It builds on the debug build `make build` made (see TRAITS): what is new is the
# docc plugin's own tool, the symbol graphs and docc's conversion.
DOCS_TARGETS ?= ChatBotKit ChatClient ChatBotKitWebhooks ChatBotKitConfiguration ChatBotKitAI ChatBotKitMCP BotsCLI ChatBotKitTesting
DOCS_OUTPUT ?= .build/docs
DOCS_COMMAND = $(SWIFTPM_ENV) $(SWIFT) package $(TRAITS) --allow-writing-to-directory $(DOCS_OUTPUT) generate-documentation \
	$(addprefix --target ,$(DOCS_TARGETS)) --output-path $(DOCS_OUTPUT) --warnings-as-errors

docs: deps
	$(DOCS_COMMAND)

# `make test`'s step: the same, printing DocC's diagnostics only when it fails (the full log is
# in .build/docs.log).
test-docs:
	@mkdir -p .build
	@$(DOCS_COMMAND) > .build/docs.log 2>&1 || { grep -E 'error|warning' .build/docs.log | grep -v 'unhandled; explicitly declare' | head -n 60; exit 1; }
	@echo "Documentation of $(DOCS_TARGETS): no DocC warnings"

# Six tests at a time: all 447 at once on two cores (swift-testing's default) starve the tests
# that race a clock (a 3-second live location, a reminder due 1.5 s after the bot stops, a
# schedule made up within 1.5 s of a restart), and 7 of them failed in each of two quiet runs;
# six at a time, none did, in 58 s instead of 50.
TEST_WIDTH ?= 6

# Prints failures and the runner's summary line; the full log is in .build/swift-test.log.
test-swift: build
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test $(TRAITS) --skip-build > .build/swift-test.log 2>&1 || { grep -E '✘|↳|error:|Fatal' .build/swift-test.log | grep -vE 'Testing Library Version|Target Platform' | head -n 100; tail -n 5 .build/swift-test.log; exit 1; }
	@grep -E '✘|Test run with' .build/swift-test.log

PYTEST = CHATBOTKIT_BOTS_BINARY=$$($(SWIFT) build $(TRAITS) --show-bin-path)/bots $(VENV)/bin/python -m pytest -q
# pytest-xdist workers. Each test starts its own `bots serve` on port 0 with its own data folder
# and temporary folder (Tests/python/conftest.py), and mostly waits on it and its sockets: the 299
# tests used under 1 minute of CPU in 4.6 minutes one at a time. Beside three other builds (load
# 11), the same tests took 277 s serially, 155 s with two workers and 103 s with four.
PYTHON_WORKERS ?= 4

test-python: build
	$(PYTEST) -n $(PYTHON_WORKERS) Tests/python

# The package `bots init` writes, built as its user would (`swift build --build-tests`, every
# dependency from scratch): about 12 minutes of CPU, at the lowest priority (SCHED_IDLE), so it
# takes only the CPU the tests beside it leave idle (Tests/python/background_build.py). In a
# pytest session of its own, `make test` runs it beside the other Python tests and both sanitizer
# runs (together about 12 minutes, their tests using under half a core: one at a time, or waiting
# on servers) instead of in the Python session, which had then to wait for it: 509 s in CI, of
# which about 4.5 minutes were the other tests.
test-written-package: build
	$(PYTEST) -m builds_in_background Tests/python

# The C glue (libcurl, libwebsockets), the client that drives it and the bot runtime
# (mailboxes, slots, shutdown) under both sanitizers; the JSON index and readers (pointer code,
# fed randomly mutated events) and the example bots (libmagic, SQLite, files) under
# AddressSanitizer. The examples use Synchronization.Mutex, as a bot author would, which
# ThreadSanitizer cannot follow (below), so they stay out of the ThreadSanitizer run. Scale-out
# (several nodes of one bot handing channels over through a real PostgreSQL) is in the
# ThreadSanitizer run: its races would be between nodes' handlers and lease rounds.
# The package's own shared state is guarded by pthread locks (ThreadSanitizer does not see a contended
# Synchronization.Mutex hand-off on Linux; see Sources/ChatLocking/Locked.swift). Leak
# reports from Foundation's Process, OpenSSL, NIO's thread pool and XCTest are suppressed
# (scripts/lsan-suppressions.txt): they are process-lifetime allocations.
# ThreadSanitizer ignores one race in SwiftNIO's receive-buffer pool that is ordered by a check
# it cannot see (scripts/tsan-suppressions.txt says why).
TSAN_TESTS ?= ChatTransportTests|ChatClientTests|ChatBotKitTests|ScaleOutTests|ChatTelemetryTests
ASAN_TESTS ?= ChatTransportTests|ChatClientTests|ChatModelsTests|ChatBotKitTests|ExamplesTests|CoachBotTests
# The link-preview tests, the webhook bots' (WebhookBotTests) and the custom commands' that go
# through the service (ticketFlow, reconfiguredCommands, restartedCommands, logAWorkout, refusedThroughTheService) and the
# moderator's before-send tests make the in-process dev server fetch pages, post events or call a
# command handler or a Before Message Send hook with URLSession (the intake's overHTTP test posts
# with URLSession itself), and this
# toolchain's FoundationNetworking loses about 40 bytes of libcurl state per request (a bare
# `data(for:)` loop of 10 requests leaks 420 bytes). LeakSanitizer's stack stops inside libcurl,
# so no suppression can tell that leak from one in our ChatTransport: those tests skip the
# AddressSanitizer run instead (they run in the plain and ThreadSanitizer runs).
ASAN_SKIP ?= LinkPreviewTests|linkPreviews|WebhookBotTests|ticketFlow|reconfiguredCommands|restartedCommands|logAWorkout|refusedThroughTheService|ModerationBeforeSendTests|BeforeSendIntakeTests/overHTTP
# One test at a time under the sanitizers: run all at once on two cores, the instrumented
# process starves its own event loops, and a connection that gets no health check for three
# seconds (the tests' setting) is given up, and a notification sent meanwhile is lost (two CI
# runs failed so). Serial costs about a minute per sanitizer; the plain run stays parallel.
SANITIZER_TEST_WIDTH ?= 1
# Our own targets only are instrumented (CHATBOTKIT_SANITIZE, at the end of Package.swift), in
# the plain build's scratch path: the dependencies, about 80% of a build, stay built once and
# uninstrumented, and only our code is compiled again for each sanitizer, and once more by the
# next plain build. Instrumenting everything (`swift build --sanitize`, in .build-thread and
# .build-address) took two full builds of about 15 minutes each on two cores; our code alone took
# 277 s of CPU for ThreadSanitizer and 307 s for AddressSanitizer (4 minutes each beside two other
# builds), and no dependency was compiled again. The tests ran faster too (305 in 273 s instead of
# 328, 384 in 259 s instead of 276): NIO and Hummingbird run uninstrumented. A deliberate race, heap
# overflow and leak in a scratch test were each still reported. The reports cover what our code
# does, as the suppressions above already meant; a race or an overflow wholly inside a dependency
# is no longer looked for. The next plain build compiles our code once more (`build`, which
# test-swift and test-python depend on, so that they never run the instrumented binaries).
test-sanitizers:
	@set -e; mkdir -p .build; \
	for pair in "thread:$(TSAN_TESTS)" "address:$(ASAN_TESTS)"; do \
	    sanitizer=$${pair%%:*}; filter=$${pair#*:}; skip=(); \
	    if [ $$sanitizer = address ]; then skip=(--skip "$(ASAN_SKIP)"); fi; \
	    echo "$$filter under the $$sanitizer sanitizer"; \
	    log=.build/sanitize-$$sanitizer.log; \
	    CHATBOTKIT_SANITIZE=$$sanitizer $(SWIFTPM_ENV) $(SWIFT) build $(TRAITS) --build-tests > .build/sanitize-$$sanitizer-build.log 2>&1 \
	        || { grep -E 'error:' .build/sanitize-$$sanitizer-build.log | head -n 40; exit 1; }; \
	    CHATBOTKIT_SANITIZE=$$sanitizer SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(SANITIZER_TEST_WIDTH) \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/scripts/tsan-suppressions.txt" \
	        $(SWIFT) test $(TRAITS) --skip-build --filter "$$filter" "$${skip[@]}" > $$log 2>&1 \
	        || { grep -E '✘|↳|error:|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY' $$log | grep -vE 'Testing Library Version|Target Platform' | head -n 60; exit 1; }; \
	    grep -E 'Test run with' $$log; \
	    if grep -qE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' $$log; then \
	        grep -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY' $$log | head -n 20; exit 1; \
	    fi; \
	done

bench: deps python-env
	./Benchmarks/run.sh

clean:
	rm -rf .build .build-thread .build-address $(VENV)
