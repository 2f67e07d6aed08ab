package engine

import (
	"sync"
	"testing"
)

// The handoff gives the loop every task pushed, each once, in the order
// pushed, whether the loop takes them as they come or waits for them,
// and a superstep's reset leaves nothing of the last one (its fail's nil,
// a pending wake-up).
func TestTaskHandoff_GivesEveryTaskOnceInOrderWithoutLostWakeUps(t *testing.T) {
	q := &taskHandoff{wake: make(chan struct{}, 1)}
	for round := 0; round < 50; round++ {
		const producers, each = 4, 50
		q.reset(producers*each + 1)
		tasks := make([]task, producers*each)
		index := map[*task]int{}
		for i := range tasks {
			index[&tasks[i]] = i
		}
		var wg sync.WaitGroup
		for p := 0; p < producers; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					q.push(&tasks[p*each+i])
				}
			}(p)
		}
		seen := map[*task]int{}
		var order []*task
		for len(order) < len(tasks) {
			ended, wait := q.take()
			if wait {
				<-q.wake
				continue
			}
			for _, tk := range ended {
				seen[tk]++
				order = append(order, tk)
			}
		}
		wg.Wait()
		if ended, _ := q.take(); len(ended) != 0 {
			t.Fatalf("round %d: %d tasks more than pushed", round, len(ended))
		}
		last := make([]int, producers) // each producer's tasks in its order
		for i := range last {
			last[i] = -1
		}
		for _, tk := range order {
			k := index[tk]
			if seen[tk] != 1 || k/each >= producers || k <= last[k/each] {
				t.Fatalf("round %d: task %d taken %d times, or out of its producer's order", round, k, seen[tk])
			}
			last[k/each] = k
		}
		q.push(nil) // a failure's wake-up left over
		q.asleep = true
		q.push(nil)
	}
	q.reset(1)
	select {
	case <-q.wake:
		t.Fatal("reset left a wake-up")
	default:
	}
	if ended, wait := q.take(); len(ended) != 0 || !wait {
		t.Fatalf("reset left %d entries", len(ended))
	}
}
