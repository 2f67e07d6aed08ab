package engine

import (
	"context"
	"encoding/json"
)

// GraphRecord says which graph wrote a thread, as a saver that records
// graphs (GraphRecorder) keeps it: the name that finds the graph again,
// the graph's own name, its Fingerprint, and the Topology lines the
// fingerprint hashes, so that a later run with a changed graph can be
// told what changed rather than only that something did.
type GraphRecord struct {
	// Graph is the name that finds the graph again: a program's name for
	// it, a scenario file's path.
	Graph string `json:"graph"`
	// Name is the graph's own name (Graph.Name).
	Name string `json:"name,omitempty"`
	// Fingerprint is Graph.Fingerprint.
	Fingerprint string `json:"fingerprint"`
	// Topology is Graph.Topology.
	Topology []string `json:"topology"`
}

// Record is g's GraphRecord, found again by the name findName.
func (g *Graph) Record(findName string) GraphRecord {
	return GraphRecord{Graph: findName, Name: g.name, Fingerprint: g.fingerprint, Topology: g.Topology()}
}

// Encode is r as a saver stores it: JSON.
func (r GraphRecord) Encode() string {
	b, _ := json.Marshal(r) // strings only: it cannot fail
	return string(b)
}

// DecodeGraphRecord reads a stored record. ok is false for none (""); a
// string that is no record (a bare hash another tool stored) comes back
// as a record of that fingerprint with no topology.
func DecodeGraphRecord(s string) (r GraphRecord, ok bool) {
	if s == "" {
		return GraphRecord{}, false
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil || r.Fingerprint == "" {
		return GraphRecord{Fingerprint: s}, true
	}
	return r, true
}

// GraphRecorder is the optional Saver capability of keeping which graph
// wrote each thread (persist's stores have it). A run, an update or a
// copy that writes a thread's first checkpoint (a root checkpoint with no
// parent) records its graph first, found again by its own name, so that a
// thread a service wrote names its graph to the command line and the
// debugger, which check a changed graph against it. A thread that has a
// record keeps it.
type GraphRecorder interface {
	// RecordGraph queues record (a GraphRecord, encoded) as the thread's
	// graph unless the thread has one. As DeferWrites, it need not
	// commit: the engine calls wait after the checkpoint's Put, which
	// may commit both together, and wait stores it if nothing has.
	RecordGraph(ctx context.Context, threadID, record string) (wait func() error, err error)
}

// putFirst is saver's Put of checkpoint cp with parent cfg, recording g
// with a GraphRecorder first when cp is its thread's first.
func (g *Graph) putFirst(ctx context.Context, saver Saver, cfg Config, cp *Checkpoint, md Metadata, newVersions map[string]Version) (Config, error) {
	rec, ok := saver.(GraphRecorder)
	if !ok || cfg.CheckpointNS != "" || cfg.CheckpointID != "" {
		return saver.Put(ctx, cfg, cp, md, newVersions)
	}
	wait, err := rec.RecordGraph(ctx, cfg.ThreadID, g.Record(g.name).Encode())
	if err != nil {
		return Config{}, err
	}
	out, err := saver.Put(ctx, cfg, cp, md, newVersions)
	if werr := wait(); err == nil && werr != nil {
		return Config{}, werr
	}
	return out, err
}
