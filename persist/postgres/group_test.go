package postgres

import "testing"

// TestGroupable: which threads' ops a group's one statement can hold.
func TestGroupable(t *testing.T) {
	writes := func(task string, slots ...int64) *op {
		return &op{cp: "c1", task: task, slots: slots}
	}
	put := func(mayExist bool) *op { return &op{put: &putOp{id: "c2", mayExist: mayExist}} }
	for _, c := range []struct {
		name string
		ops  []*op
		want bool
	}{
		{"a superstep", []*op{writes("t", 0), put(false)}, true},
		{"two tasks", []*op{writes("t", 0), writes("u", 0, 1), put(false)}, true},
		{"a task's special and regular writes", []*op{writes("t", -1), writes("t", 0)}, true},
		{"a task's writes saved twice", []*op{writes("t", 0), writes("t", 0)}, false},
		{"a task's special writes saved twice", []*op{writes("t", -3), writes("t", -1)}, false},
		{"a checkpoint that may replace one", []*op{put(true)}, true},
		{"null-task writes", []*op{{cp: "c1", slots: []int64{0}, nullRun: true}}, false},
	} {
		if got := groupable(c.ops); got != c.want {
			t.Errorf("%s: groupable = %v, want %v", c.name, got, c.want)
		}
	}
}
