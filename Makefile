# The two commands a newcomer needs:
#   make run    serve the demo on $ADDR (default 127.0.0.1:8080); needs only Go
#   make test   everything CI checks; installs what it needs (npm ci, Chromium)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

GO       ?= go
ADDR     ?= 127.0.0.1:8080
CHROMIUM ?= /usr/bin/chromium
BIN      := bin/reconcile-demo

.PHONY: run build test vet gotest generate check-generated vendor check-vendor e2e e2e-deps web-deps chromium lint screenshots loadgen barehub capacity bench-page bench-raster fuzz

run:
	ADDR=$(ADDR) $(GO) run ./cmd/reconcile-demo

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/reconcile-demo
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/roomlab ./cmd/roomlab

# The Go tests run beside the browser suite's set-up (npm ci, Debian's
# Chromium, the binaries), which waits on the network and the disk more than
# on the two cores; the browser suite runs alone, after both.
test: lint check-generated
	$(MAKE) -j2 --output-sync=target gotest e2e-deps check-vendor
	$(MAKE) e2e

vet:
	$(GO) vet ./...

lint: vet
	@out=$$(git ls-files '*.go' | grep -v '_templ.go$$' | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# go vet ran in lint: go test's own subset of it would run again. The long
# single-goroutine tests (random programs, replays of random sessions, link
# lengths) run a fifth of their seeds under the race detector
# (racetest.Runs), which finds nothing in them, and in full without it.
LONG_TESTS := ^(TestRandomPrograms|TestFuzzPrograms|TestTimelineReplays|TestLinkLength|TestFramesKeepThePage)$$
gotest:
	$(GO) test -race -count=1 -vet=off ./...
	$(GO) test -count=1 -vet=off -run '$(LONG_TESTS)' ./demos/... ./engine/...

# templ output is committed; regenerate and fail if anything differs.
generate:
	$(GO) tool templ generate

check-generated: generate
	@if [ -n "$$(git status --porcelain -- templates demos)" ]; then \
	  echo "generated templ files are stale: run 'make generate' and commit"; \
	  git status --porcelain -- templates demos; git diff --stat -- templates demos; exit 1; fi

# htmx and htmx-ext-ws are vendored into static/ from the npm pins.
web-deps: web/node_modules/.package-lock.json

web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund

vendor: web-deps
	cp web/node_modules/htmx.org/dist/htmx.min.js static/htmx.min.js
	cp web/node_modules/htmx-ext-ws/dist/ws.min.js static/ws.min.js

check-vendor: web-deps
	@cmp web/node_modules/htmx.org/dist/htmx.min.js static/htmx.min.js || \
	  { echo "static/htmx.min.js differs from the pinned htmx.org: run 'make vendor'"; exit 1; }
	@cmp web/node_modules/htmx-ext-ws/dist/ws.min.js static/ws.min.js || \
	  { echo "static/ws.min.js differs from the pinned htmx-ext-ws: run 'make vendor'"; exit 1; }

# Debian's Chromium: Playwright cannot download its own browser here. It
# brings no CJK font: without fonts-noto-cjk the Japanese pages (and their
# screenshots) show empty boxes.
chromium:
	@if [ ! -x "$(CHROMIUM)" ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; \
	fi

e2e-deps: web-deps chromium build

e2e: e2e-deps
	cd web && CHROMIUM=$(CHROMIUM) npx playwright test

# Screenshots to look at (desktop, projector, phone, iframe) in web/screenshots.
screenshots: e2e-deps
	cd web && SCREENSHOTS=1 CHROMIUM=$(CHROMIUM) npx playwright test --grep @screenshot

# Every fuzz target, FUZZTIME each (one target per run: go test -fuzz takes one).
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./demos/reconcile:FuzzDemo ./demos/reconcile:FuzzRestoreSnapshot \
	./demos/operator:FuzzDemo ./demos/operator:FuzzRestoreSnapshot \
	./demos/triggers:FuzzDemo ./demos/pipeline:FuzzDemo ./demos/controlplane:FuzzDemo \
	./demos/demo:FuzzDecodeCommand ./templates:FuzzText ./templates:FuzzSnapshotAttr \
	./engine/triggers:FuzzWorld ./engine/triggers:FuzzRestore ./engine/workqueue:FuzzQueue \
	./engine/workqueue:FuzzPriorityQueue ./engine/workqueue:FuzzRestore \
	./engine/pipeline:FuzzPipeline ./engine/pipeline/apiserver:FuzzStore ./engine/controlplane:FuzzCluster
fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; echo "== $$pkg $$name"; \
	  $(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done

loadgen:
	$(GO) build -o bin/loadgen ./cmd/loadgen

# Measured capacity (README, "Performance"), for every demo kind: a fresh
# server and, beside it, a bare gorilla hub (cmd/barehub, the yardstick)
# in this process tree. (a) 10,000 idle watched sessions: memory per
# session against the hub's per socket, and CPU over 20 s against the
# hub's; (b) 2,000 sessions acting once a second: action-to-frame latency.
CAPACITY_ADDR ?= 127.0.0.1:8099
BARE_ADDR     ?= 127.0.0.1:8098
CAPACITY_SESSIONS ?= 10000
CAPACITY_ACTING   ?= 2000
CAPACITY_KINDS    ?= $(shell $(GO) run ./cmd/loadgen -kinds 2>/dev/null)
capacity: build loadgen barehub
	@fail=0; for kind in $(CAPACITY_KINDS); do \
	  ADDR=$(CAPACITY_ADDR) SESSION_TTL=5s MAX_SESSIONS=25000 MAX_SESSIONS_PER_ADDR=25000 $(BIN) 2>/dev/null & pid=$$!; \
	  ADDR=$(BARE_ADDR) bin/barehub 2>/dev/null & bare=$$!; \
	  trap "kill $$pid $$bare 2>/dev/null || true" EXIT; \
	  for i in $$(seq 50); do curl -sf http://$(CAPACITY_ADDR)/readyz >/dev/null && curl -sf http://$(BARE_ADDR)/readyz >/dev/null && break; sleep 0.1; done; \
	  bin/loadgen -url http://$(CAPACITY_ADDR) -bare http://$(BARE_ADDR) -demo $$kind -quiet -sessions $(CAPACITY_SESSIONS) -rate 0 -duration 20s -ramp 1000/s || { echo "capacity: $$kind (a) failed" >&2; fail=1; }; \
	  bin/loadgen -url http://$(CAPACITY_ADDR) -demo $$kind -quiet -sessions $(CAPACITY_ACTING) -rate 1 -duration 30s -ramp 500/s || { echo "capacity: $$kind (b) failed" >&2; fail=1; }; \
	  kill $$pid $$bare; wait $$pid $$bare 2>/dev/null || true; \
	done; exit $$fail

barehub:
	$(GO) build -o bin/barehub ./cmd/barehub

# Click → DOM in Chromium for every demo, beside a bare WebSocket echo in the
# same browser (web/bench/click.mjs; README, "Performance"). BENCH_BIN=path
# runs another build's server instead, for a side-by-side (BIN=path would
# build this tree into path first).
BENCH_BIN ?= $(BIN)
bench-page: e2e-deps barehub
	@ADDR=$(CAPACITY_ADDR) $(BENCH_BIN) 2>/dev/null & pid=$$!; \
	ADDR=$(BARE_ADDR) bin/barehub 2>/dev/null & bare=$$!; \
	trap "kill $$pid $$bare 2>/dev/null || true" EXIT; \
	for i in $$(seq 50); do curl -sf http://$(CAPACITY_ADDR)/readyz >/dev/null && curl -sf http://$(BARE_ADDR)/readyz >/dev/null && break; sleep 0.1; done; \
	cd web && BASE=http://$(CAPACITY_ADDR) BARE=http://$(BARE_ADDR) CHROMIUM=$(CHROMIUM) node bench/click.mjs

# What a quiet page of every demo costs Chromium (main thread and raster)
# over two seconds, at a desktop's and a projector's size
# (web/bench/raster.mjs; README, "Performance").
bench-raster: e2e-deps
	@ADDR=$(CAPACITY_ADDR) $(BENCH_BIN) 2>/dev/null & pid=$$!; \
	trap "kill $$pid 2>/dev/null || true" EXIT; \
	for i in $$(seq 50); do curl -sf http://$(CAPACITY_ADDR)/readyz >/dev/null && break; sleep 0.1; done; \
	cd web && BASE=http://$(CAPACITY_ADDR) CHROMIUM=$(CHROMIUM) node bench/raster.mjs
