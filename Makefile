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

.PHONY: run test deps python-env build docs test-docs test-swift test-python test-sanitizers bench clean

run: deps
	$(SWIFTPM_ENV) $(SWIFT) build $(TRAITS) --product bots
	$$($(SWIFT) build $(TRAITS) --show-bin-path)/bots run --config $(CONFIG) --watch

test: deps python-env build test-docs test-swift test-python test-sanitizers

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
DOCS_TARGETS ?= ChatBotKit ChatClient ChatBotKitWebhooks ChatBotKitConfiguration BotsCLI ChatBotKitTesting
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
test-swift:
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test $(TRAITS) --skip-build > .build/swift-test.log 2>&1 || { grep -E '✘|↳|error:|Fatal' .build/swift-test.log | grep -vE 'Testing Library Version|Target Platform' | head -n 100; tail -n 5 .build/swift-test.log; exit 1; }
	@grep -E '✘|Test run with' .build/swift-test.log

test-python:
	@if [ -n "$$(ls Tests/python/test_*.py 2>/dev/null)" ]; then \
	    CHATBOTKIT_BOTS_BINARY=$$($(SWIFT) build $(TRAITS) --show-bin-path)/bots $(VENV)/bin/python -m pytest -q Tests/python; \
	fi

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
# through the service (ticketFlow, reconfiguredCommands, restartedCommands, logAWorkout, refusedThroughTheService) make the in-process
# dev server fetch pages, post events or call a command handler with URLSession, and this
# toolchain's FoundationNetworking loses about 40 bytes of libcurl state per request (a bare
# `data(for:)` loop of 10 requests leaks 420 bytes). LeakSanitizer's stack stops inside libcurl,
# so no suppression can tell that leak from one in our ChatTransport: those tests skip the
# AddressSanitizer run instead (they run in the plain and ThreadSanitizer runs).
ASAN_SKIP ?= LinkPreviewTests|linkPreviews|WebhookBotTests|ticketFlow|reconfiguredCommands|restartedCommands|logAWorkout|refusedThroughTheService
# One test at a time under the sanitizers: run all at once on two cores, the instrumented
# process starves its own event loops, and a connection that gets no health check for three
# seconds (the tests' setting) is given up, and a notification sent meanwhile is lost (two CI
# runs failed so). Serial costs about a minute per sanitizer; the plain run stays parallel.
SANITIZER_TEST_WIDTH ?= 1
# Line tables only (no variable or type records): what a sanitizer report needs for its
# file:line frames. Full debug info made each instrumented build (the package, its dependencies
# and their C, about 17 minutes each on two cores) slower to compile and to link; measured on an
# AddressSanitizer build of ChatClient and its dependencies, 242 s with full debug info, 223 s with
# line tables only (one build each).
SANITIZER_BUILD_FLAGS ?= -Xswiftc -gline-tables-only -Xcc -gline-tables-only

# The AddressSanitizer build starts first, in the background at idle CPU priority (SCHED_IDLE:
# it runs only on a core nothing else wants), so that it takes the CPU the ThreadSanitizer run
# leaves idle: beside the ThreadSanitizer build only the gaps between its jobs (0.01-0.04 of a
# core while Swift compiled, more among BoringSSL's small C files), beside its one-at-a-time
# tests (0.6 of a core) 1.3 cores. CI went from 77.6 to 71.4 minutes with this and the Python
# tests' background build. Its `swift test` then finds nothing left to build (14 s); if the
# early build failed, it builds again and shows why.
# The early build runs in a process group of its own (`set -m`), stopped if the recipe ends before
# it does, but in this session: Linux shares the CPU fairly between sessions (autogroups) before
# priorities count, so a build in a session of its own (`setsid`) took a whole core while idle.
test-sanitizers:
	@set -e; mkdir -p .build; \
	set -m; chrt --idle 0 $(SWIFT) build $(TRAITS) --build-tests --scratch-path .build-address --sanitize=address $(SANITIZER_BUILD_FLAGS) \
	    > .build/sanitize-address-early-build.log 2>&1 & early=$$!; set +m; \
	trap 'kill -- -$$early 2>/dev/null || true' EXIT; \
	for pair in "thread:$(TSAN_TESTS)" "address:$(ASAN_TESTS)"; do \
	    sanitizer=$${pair%%:*}; filter=$${pair#*:}; skip=(); \
	    if [ $$sanitizer = address ]; then skip=(--skip "$(ASAN_SKIP)"); wait $$early || true; trap - EXIT; fi; \
	    echo "$$filter under the $$sanitizer sanitizer"; \
	    log=.build/sanitize-$$sanitizer.log; \
	    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(SANITIZER_TEST_WIDTH) \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/scripts/tsan-suppressions.txt" \
	        $(SWIFT) test $(TRAITS) --scratch-path .build-$$sanitizer --sanitize=$$sanitizer $(SANITIZER_BUILD_FLAGS) --filter "$$filter" "$${skip[@]}" > $$log 2>&1 \
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
