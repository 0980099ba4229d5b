# mcp-servers: every target loops over the workspace's modules and servers.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/jck411/mcp-servers/shared/buildinfo.Version=$(VERSION)
ALL_SERVERS := $(patsubst servers/%/main.go,%,$(wildcard servers/*/main.go))
SERVERS := $(ALL_SERVERS)
ifneq ($(filter-out $(ALL_SERVERS),$(SERVERS)),)
$(error there is no server named $(filter-out $(ALL_SERVERS),$(SERVERS)); the servers are: $(ALL_SERVERS))
endif
# The authorization server (servers/auth) is built, tested, linted and released with the
# fleet but speaks OAuth, not MCP: it has no tools, snapshots, conformance run or benchmark.
MCP_SERVERS := $(filter-out auth,$(SERVERS))
MODULES = $(shell go list -m -f '{{.Dir}}')
# Every module's packages as patterns the workspace resolves from its root (./shared/... ./servers/x/...).
PACKAGES = $(patsubst $(CURDIR)/%,./%/...,$(MODULES))
GOLANGCI_VERSION := v2.15.0
GOLANGCI := $(CURDIR)/.tools/golangci-lint-$(GOLANGCI_VERSION)

test-deps: ## install the Debian packages the tests need (as root), or say which
	@scripts/test-deps.sh

.PHONY: help build test test-deps test-go lint lint-tools ts-client-test run conformance conformance-run memcheck memcheck-run bench bench-browser toolsnaps docs docs-check deploy-test agent-tasks e2e-systemd release images images-load containers-test kustomize clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

build: ## build every server into bin/ as the release does (static, stripped), stamped with the version
	@mkdir -p bin
	@for s in $(SERVERS); do \
		echo "build $$s $(VERSION)"; \
		CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o bin/$$s ./servers/$$s; \
	done

# As root, make test also runs the fleet under a real systemd (make e2e-systemd).
E2E := $(if $(filter 0,$(shell id -u)),e2e-systemd)

test: ## everything CI runs, independent steps side by side, with a table of each step's seconds: Go tests (race), lint, docs, deploy scripts, conformance, memory, e2e-systemd (root)
	@MAKE="$(MAKE)" scripts/test-all.sh

test-go: ## Go tests of every module with the race detector (one go test over the workspace, so packages of all modules share the cores)
	@go test -race -count=1 $(PACKAGES)

lint: $(GOLANGCI) ## one go directive and aligned dependencies (go work sync, go mod tidy), gofmt, go vet and golangci-lint on every module
	@go run ./scripts/cmd/modcheck
	@bad=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
		if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	@echo "lint: go vet and golangci-lint over the workspace's modules in one pass (each package type-checked once)"
	@go vet $(PACKAGES)
	@$(GOLANGCI) run --allow-parallel-runners --config $(CURDIR)/.golangci.yml $(PACKAGES)

lint-tools: $(GOLANGCI) ## install the pinned golangci-lint into .tools/ (make lint does it when missing)

$(GOLANGCI):
	@mkdir -p .tools
	@echo "installing golangci-lint $(GOLANGCI_VERSION) into .tools/"
	@GOBIN=$(CURDIR)/.tools GOWORK=off go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	@mv .tools/golangci-lint $(GOLANGCI)

run: build ## run the MCP servers (or SERVERS=...) on loopback, each on its fixed port, state in a throwaway folder; NAME_FLAGS gives one its flags (scripts/run-fleet.sh --help); Ctrl-C stops all
	@scripts/run-fleet.sh $(if $(filter command line,$(origin SERVERS)),$(SERVERS))

conformance: build conformance-run ## the official MCP conformance suite against every server

conformance-run: # the conformance suite against the binaries already in bin/ (make test builds them once)
	@scripts/conformance.sh $(MCP_SERVERS)

memcheck: build memcheck-run ## start every server at once; fail when one holds more anonymous memory (Pss_Anon) than 6 MiB idle, 24 MiB right after a burst, 10 MiB after two minutes of quiet (docs/performance.md)

memcheck-run: # memcheck against the binaries already in bin/
	@go run ./scripts/cmd/memcheck -bin bin $(MCP_SERVERS)

bench: build ## Go benchmarks, then throughput, latency, CPU per call and anon memory against a bare go-sdk server, mark3labs/mcp-go and the floor, and start time, over real HTTP
	@go test -run '^$$' -bench . -benchmem ./servers/calculator/ ./servers/calculator/expression/ ./servers/shell/
	@go test -run '^$$' -bench SearchNotes10k -benchtime 500x ./servers/notes/
	@go test -run '^$$' -bench 'Rebuild10k|SyncFirst1k|SyncIdle10k' -benchtime 3x ./servers/notes/
	@go run ./scripts/cmd/bench -bin bin

bench-browser: ## the browser server against Playwright MCP and chrome-devtools-mcp on the same Chromium: wall time, bytes and calls per action (BEFORE=rev also times an earlier build)
	@scripts/bench-browser.sh $(if $(BEFORE),--before $(BEFORE))

toolsnaps: ## rewrite every server's tool snapshots (servers/*/testdata/toolsnaps) from its tools; review and commit the diff
	@for s in $(MCP_SERVERS); do \
		echo "toolsnaps $$s"; \
		(cd servers/$$s && UPDATE_TOOLSNAPS=1 go test -count=1 -run '^TestToolSnaps$$' .); \
	done

docs: toolsnaps ## rewrite the tool snapshots, then docs/tools.md from them
	@go run ./scripts/cmd/toolsdoc -servers servers -out docs/tools.md

docs-check: ## fail when a tool snapshot, docs/tools.md or docs/agent-tasks.md is stale, tool names repeat across the fleet, or a document names a tool no server has
	@go test -count=1 -run '^TestToolSnaps$$' $(addprefix ./servers/,$(MCP_SERVERS))
	@go run ./scripts/cmd/toolsdoc -servers servers -out docs/tools.md -check
	@go test -count=1 -run '^TestAgentTasksDoc$$' ./shared/agenttask

agent-tasks: ## the agent task suite: everyday requests played over MCP against every server, facts read from the text only, each task held to its budget of calls and text bytes (docs/agent-tasks.md); UPDATE=1 rewrites the budgets and the table
	@AGENT_TASKS_UPDATE=$(if $(UPDATE),1,0) go test -count=1 -run '^TestAgentTasks$$' $(addprefix ./servers/,$(MCP_SERVERS))
	@AGENT_TASKS_UPDATE=$(if $(UPDATE),1,0) go test -count=1 -run '^TestAgentTasksDoc$$' ./shared/agenttask

ts-client-test: ## the official TypeScript MCP SDK client, mcp-remote and the MCP Inspector CLI (pinned, npm) through DCR, passkey sign-in, consent, a tool call and a refresh against auth and a protected server
	@PATH="$(CURDIR)/.conformance/node_modules/.bin:$$PATH" scripts/ts-client-test.sh

deploy-test: ## shellcheck, systemd-analyze and the deploy scripts against a temporary root
	@deploy/test/run.sh

e2e-systemd: test-deps ## the released fleet under a real systemd in booted Debian 12 and 13 containers (root)
	@ARCHES=amd64 $(MAKE) --no-print-directory release
	@deploy/test/e2e-systemd/run.sh --release "$$(ls -t dist/mcp-servers-*-linux-amd64.tar.gz | head -n 1)"

images: release ## one OCI image per server (amd64, arm64) from the release tarballs, into the layout dist/images/oci (docs/containers.md)
	@args=(); for k in browser shell; do for a in amd64 arm64; do args+=(--rootfs "$$k/$$a=$$(deploy/containers/rootfs.sh $$k $$a)"); done; done; \
		v=$$(ls -t dist/mcp-servers-*-linux-amd64.tar.gz | head -n 1 | sed 's/.*mcp-servers-\(.*\)-linux-amd64.tar.gz/\1/'); \
		go run ./scripts/cmd/images "$${args[@]}" --release dist/mcp-servers-$$v-linux-amd64.tar.gz --release dist/mcp-servers-$$v-linux-arm64.tar.gz \
			--revision "$$(git rev-parse HEAD)" --created "$$(git log -1 --format=%ct)" --out dist/images/oci --cache "$${MCP_CACHE:-/var/cache/mcp-servers}/images"

images-load: ## load dist/images/oci into Podman as localhost/mcp-NAME:VERSION and :latest
	@deploy/containers/load.sh dist/images/oci

containers-test: ## the images, compose.yaml and the Kubernetes manifests, run with Podman (root): deploy/test/containers/run.sh
	@deploy/test/containers/run.sh

KUSTOMIZE_VERSION := v5.8.2
kustomize: .tools/kustomize-$(KUSTOMIZE_VERSION) # kustomize from the Go module proxy, pinned, into .tools/; prints its path
	@echo $(CURDIR)/.tools/kustomize-$(KUSTOMIZE_VERSION)

.tools/kustomize-$(KUSTOMIZE_VERSION):
	@mkdir -p .tools
	@GOBIN=$(CURDIR)/.tools GOWORK=off go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION) >&2
	@mv .tools/kustomize $@

release: ## static linux/amd64 and arm64 tarballs with checksums in dist/
	@VERSION=$(VERSION) scripts/release.sh

clean: ## remove build output
	rm -rf bin dist results .conformance/results
