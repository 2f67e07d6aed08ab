# superstep — build, test and benchmark.
GO ?= go
PKGS := ./...

.PHONY: all build test run bench bench-peers bench-scale fuzz conformance fmt vet damage killtest

all: build

build:
	$(GO) build -o bin/superstep .

## test: formatting, vet (here, and for Windows and macOS, so that the
## code and its tests build where Go developers work), and the whole
## suite with the race detector.
test:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	GOOS=windows GOARCH=amd64 $(GO) vet $(PKGS)
	GOOS=darwin GOARCH=arm64 $(GO) vet $(PKGS)
	$(GO) test -race -count=1 $(PKGS)

## test-postgres: the PostgreSQL store's, the command line's and the
## examples/pgservice service's tests against a throwaway PostgreSQL 15 cluster (.ci/pg.sh starts and stops
## it), the concurrency test at the issue's 4×50 threads. make test runs
## them too (4×12 under the race detector) when SUPERSTEP_TEST_POSTGRES is
## set, as .ci/run does.
test-postgres:
	@set -e; eval "$$(.ci/pg.sh start)"; trap '.ci/pg.sh stop' EXIT; \
	  $(GO) test -race -count=1 ./persist/postgres/ -args -pg.threads=50; \
	  $(GO) test -race -count=1 -run Postgres ./cli/; \
	  $(GO) test -race -count=1 ./examples/pgservice/

## bench-postgres: the PostgreSQL store's benchmarks on a throwaway
## cluster: a superstep's sync cost beside one committed INSERT, 1/8/32
## threads at once, each with client and server CPU per op and commits per
## WAL flush; the same again with a 1 ms slower WAL flush (SlowFsync).
bench-postgres:
	@set -e; eval "$$(.ci/pg.sh start)"; trap '.ci/pg.sh stop' EXIT; \
	  $(GO) test -count=1 -run '^$$' -bench . -benchtime 3s ./persist/postgres/; \
	  $(GO) test -count=1 -v -run 'GrowingMessages' ./persist/postgres/ | grep checkpoints

## run: the debugger on the default built-in graph and database.
run:
	$(GO) run .

## bench: engine, store and workload benchmarks with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## bench-scale: issue 17's read side at 1k, 10k and 100k checkpoints
## (history, show, diff, export, the debugger's tree), the export size of a
## thread whose 10 MB value changes each step, and import of 40k roots; time
## and peak memory per command (/usr/bin/time). SCALE_SIZES; OLD=path to
## another superstep binary adds its numbers side by side.
SCALE_SIZES ?= 1000 10000 100000
bench-scale:
	bench/scale.sh $(SCALE_SIZES)

## bench-peers: the perf workloads on superstep and its Go peers (eino,
## trpc-agent-go, smallnest/langgraphgo, a plain-Go floor), side by side in
## one process. The peers live in the nested module bench/peers, so the main
## module never depends on them; never part of make test.
## PEERSFLAGS e.g. "--json" or "-rounds 21 -workloads loop_5000".
PEERSFLAGS ?=
bench-peers:
	cd bench/peers && $(GO) run . $(PEERSFLAGS)

## fuzz: longer fuzzing of the decoders and loaders (not part of make test;
## make test runs every fuzz target's seeds). FUZZTIME per target.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./graphs/scenario/
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./persist/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeValue$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./persist/
	$(GO) test -run '^$$' -fuzz '^FuzzEncodeString$$' -fuzztime $(FUZZTIME) ./engine/

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet $(PKGS)

## damage: the damage tests at length (make test runs 12 and 3 trials):
## random byte flips, page-header damage and truncations of a real
## database; every store operation, then every command in its own process,
## on each: no crash, no hang, and whenever check says the file is sound,
## it reads back unchanged. DAMAGE_TRIALS, DAMAGE_SEED.
DAMAGE_TRIALS ?= 300
DAMAGE_SEED ?= 0
damage:
	$(GO) test -count=1 -run '^TestStore_Damage$$' -timeout 60m ./persist/ -damage.trials=$(DAMAGE_TRIALS) -damage.seed=$(DAMAGE_SEED) -v
	DAMAGE_TRIALS=$(DAMAGE_TRIALS) DAMAGE_SEED=$(DAMAGE_SEED) $(GO) test -count=1 -run '^TestCommands_Damage$$' -timeout 60m ./cli/ -v

## killtest: SIGKILL real `superstep run` processes on a real bbolt file
## (sync durability) at random moments, KILLS times (make test kills 3):
## after each, check passes, no reported checkpoint is lost, a resume runs
## no reported task again and ends in the state of a run never killed.
KILLS ?= 60
KILL_SEED ?= 0
killtest:
	$(GO) test -count=1 -run '^TestRun_RandomKills$$' -timeout 60m ./cli/ -kills=$(KILLS) -kill.seed=$(KILL_SEED) -v
