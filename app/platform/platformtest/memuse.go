package platformtest

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// MemUse measures run: the highest live heap seen above the heap before it
// (sampled every millisecond) and the bytes allocated while it ran.
func MemUse(t testing.TB, run func()) (peak, alloc uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, total := ms.HeapAlloc, ms.TotalAlloc
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var s runtime.MemStats
		for {
			runtime.ReadMemStats(&s)
			if s.HeapAlloc > base && s.HeapAlloc-base > peak {
				peak = s.HeapAlloc - base
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	run()
	close(done)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	return peak, ms.TotalAlloc - total
}

// WriteRepeated writes head, then item repeated (comma-separated when sep) until
// about size bytes are written, then item and tail; it stops when the reader hangs
// up. The answer is never held whole by the server.
func WriteRepeated(w interface{ Write([]byte) (int, error) }, head, item string, sep bool, size int, tail string) {
	if _, err := w.Write([]byte(head)); err != nil {
		return
	}
	one := item
	if sep {
		one += ","
	}
	chunk := []byte(strings.Repeat(one, (64<<10)/len(one)))
	for n := 0; n < size; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(item + tail))
}
