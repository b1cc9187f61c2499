package ai

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchDocs builds n reviews in Turkish and English from a vocabulary of product
// phrases, praise and complaints, with a realistic rating spread.
func benchDocs(n int) []Doc {
	rng := rand.New(rand.NewSource(1))
	en := []string{"The battery lasts two days and charging is fast.", "The screen is bright and sharp even outdoors.",
		"The strap broke after a month of daily use.", "Delivery was quick and the box was well packed.",
		"The sound is not bad for the price.", "The camera struggles in low light and the photos are noisy.",
		"Setup was easy with the app.", "The case feels cheap and scratched within a week."}
	tr := []string{"Pil ömrü çok iyi, iki gün gidiyor.", "Ekranı parlak ve net, dışarıda bile rahat okunuyor.",
		"Kayışı bir ay sonra koptu, hiç memnun kalmadım.", "Kargo hızlıydı, paketleme özenliydi.",
		"Ses kalitesi fiyatına göre hiç kötü değil.", "Kamera karanlıkta zorlanıyor, fotoğraflar kumlu.",
		"Kurulumu uygulama ile çok kolay oldu.", "Kasası ucuz hissettiriyor, bir haftada çizildi."}
	docs := make([]Doc, n)
	for i := range docs {
		lang, pool := "en", en
		if i%2 == 0 {
			lang, pool = "tr", tr
		}
		var b strings.Builder
		for k := 0; k < 3+rng.Intn(4); k++ {
			b.WriteString(pool[rng.Intn(len(pool))])
			fmt.Fprintf(&b, " (%d) ", rng.Intn(1000))
		}
		rating := []int{5, 5, 5, 4, 4, 3, 2, 1}[rng.Intn(8)]
		docs[i] = Doc{ID: fmt.Sprintf("r_%d", i), Rating: rating, Title: "Review", Body: b.String(), Language: lang}
	}
	return docs
}

// TestSummaryScale is the builtin figure of docs/decisions.md: summary and topics
// of a product with 20,000 reviews within 2 s of CPU and 100 MB of extra memory.
// Run it with:
//
//	REVIEWD_AI_BENCH=1 go test -count=1 -run TestSummaryScale -v ./app/core/ai/
func TestSummaryScale(t *testing.T) {
	if os.Getenv("REVIEWD_AI_BENCH") == "" {
		t.Skip("set REVIEWD_AI_BENCH=1 (a measurement, not run in CI)")
	}
	docs := benchDocs(20000)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// The peak is sampled every 5 ms while the summary is built.
	done := make(chan struct{})
	peakc := make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				peakc <- peak
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	cpu0 := cpuTime()
	sm := Summarize(docs, 10, time.Now())
	cpu := cpuTime() - cpu0
	wall := time.Since(start)
	close(done)
	peak := <-peakc
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if sm == nil || len(sm.Topics) == 0 {
		t.Fatal("no summary")
	}
	t.Logf("20,000 reviews: wall %v, CPU %v, allocated %.1f MB, peak heap in use %.1f MB (before %.1f MB); %d sentences, %d topics",
		wall, cpu, float64(alloc)/1e6, float64(peak)/1e6, float64(before.HeapInuse)/1e6, len(sm.Sentences), len(sm.Topics))
	if cpu > 2*time.Second {
		t.Errorf("CPU %v over 2 s", cpu)
	}
	if extra := int64(peak) - int64(before.HeapInuse); extra > 100<<20 {
		t.Errorf("extra heap %d MB over 100 MB", extra>>20)
	}
}
