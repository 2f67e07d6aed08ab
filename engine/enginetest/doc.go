// Package enginetest is the shared test kit of the engine's interfaces.
//
// SaverSuite is the conformance suite every engine.Saver must pass: the
// in-memory reference saver and persist's bbolt store both run it, so a
// behaviour the engine relies on is written down once, here, and checked
// against every implementation.
//
// PerfGraph builds the perf workloads of testdata/perf with Go node
// functions, for the engine's benchmarks and for bench/peers, which runs
// the same workloads on other Go runtimes.
//
// OutlinerSuite checks a saver that reads checkpoints without their values
// (engine.Outliner, engine.HeadLister, IDLister) against its own List: both
// stores run it. OutlineSaver is a MemorySaver that does all three, from
// List.
//
// AppendLoop is the growing-list workload (one element appended per
// superstep) of the stores' append tests and benchmarks.
//
// SideLog, FanGraph and Helper are the kit of crash tests that run a graph
// in a helper process (the test binary again), SIGKILL it mid-superstep
// and resume the thread in the parent (unix only). Damage is the kit of
// the damage tests: one random kind of damage to a database file.
//
// The package is meant for _test files only; it imports testing.
package enginetest
