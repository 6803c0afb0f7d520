# The two commands in the README are `make run` and `make test`; each sets up
# whatever is missing first.
GO ?= go
BIN := bin/hopbench
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/hopbench/hopbench/internal/environment.Version=$(VERSION)
TOOLS := $(CURDIR)/.tools/bin

# Generator versions are pinned so that `make generate` is reproducible; keep
# protoc-gen-go at the google.golang.org/protobuf version in go.mod.
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
# Keep at the github.com/99designs/gqlgen version in go.mod.
GQLGEN_VERSION := v0.17.98

.PHONY: all setup build run test test-short fuzz generate clean experiments experiments-doc

all: build

setup:
	scripts/setup.sh

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hopbench

# The default comparison: presets/quick.yaml, every stack, a few minutes.
run: setup build
	$(BIN) run

# The four published studies, the network, runtimes and evolution presets at their
# quick scale (runtimes needs the JVM node, built here),
# into experiments/ (see
# EXPERIMENTS.md): each run into a new directory that replaces the old one
# only when the run ends well; its report is then written where it lies.
# An entry PRESET@SCALE runs that scale into experiments/PRESET-SCALE
# (five-tech@ramp: the throughput part on every payload, about 40 min).
STUDIES ?= thesis rest-grpc five-tech five-tech@ramp ensor network runtimes evolution transports messaging
experiments: setup build
	scripts/setup.sh jvm
	@for e in $(STUDIES); do \
		p=$${e%@*}; scale=quick; d=$$p; \
		case $$e in *@*) scale=$${e#*@}; d=$$p-$$scale;; esac; \
		rm -rf experiments/$$d.new && \
		$(BIN) run $$p --scale $$scale --out experiments/$$d.new && \
		rm -rf experiments/$$d && mv experiments/$$d.new experiments/$$d && \
		{ [ $$d != five-tech ] || scripts/binsize.sh experiments/$$d/binaries.json; } && \
		$(BIN) report experiments/$$d || exit 1; \
	done
	$(MAKE) experiments-doc

# EXPERIMENTS.md from its template (experiments/EXPERIMENTS.md.tmpl) and
# the records: every figure it quotes from a measurement is computed; the
# test suite fails when the page and its records disagree.
experiments-doc:
	go test ./internal/expdoc -run MadeFromItsRecords -update

# The end-to-end package (cmd/hopbench) runs every preset, every help
# example and the node contract against real brokers: past go test's
# default 10 minutes a package on a busy 2-core runner, hence -timeout.
# After the suite under -race, scripts/unraced.sh runs what is skipped
# under it (internal/racetest) without: one goroutine's work that the
# detector slows several times and checks nothing in (the codecs'
# size-bound property, the committed reports and EXPERIMENTS.md made
# again from their records) and MQTT at QoS 2 (paho.golang's own race,
# see internal/transport/mqtt/mqtt_test.go).
test: setup
	scripts/setup.sh chromium jvm prometheus xmllint
	$(GO) vet ./...
	HOPBENCH_REQUIRE_JVM=1 HOPBENCH_REQUIRE_XMLLINT=1 $(GO) test -race -count=1 -timeout 30m ./...
	GO=$(GO) scripts/unraced.sh

test-short:
	$(GO) test -short ./...

# Each fuzz target for a short while; `go test` alone runs only their seeds.
FUZZTIME ?= 10s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

generate:
	scripts/setup.sh protoc
	GOBIN=$(TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	PATH=$(TOOLS):$$PATH protoc -I schema --go_out=schema --go_opt=paths=source_relative \
		--go-grpc_out=schema --go-grpc_opt=paths=source_relative schema/hopbench/v1/*.proto \
		--java_out=jvm/node/src/main/java
	PATH=$(TOOLS):$$PATH protoc -I schema --go_out=schema --go_opt=paths=source_relative schema/hopbench/v2/*.proto
	PATH=$(TOOLS):$$PATH protoc -I schema --go_out=schema --go_opt=paths=source_relative \
		--go-grpc_out=schema --go-grpc_opt=paths=source_relative schema/hopbench/agent/v1/*.proto
	cd internal/transport/graphql && $(GO) run github.com/99designs/gqlgen@$(GQLGEN_VERSION) generate

clean:
	rm -rf bin .tools
