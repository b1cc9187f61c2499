package storefront_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/store"
)

// The per-request cost of the storefront's read answers, measured over the whole
// handler stack serve uses (outer middleware, router, CORS, authentication,
// limiters, answer caches) without a network: deterministic enough to compare
// allocations per request, which the load measurement (TestListThroughput) cannot
// on a shared machine.
//
//	go test -run '^$' -bench BenchmarkReadAnswers -benchmem ./app/storefront/

// readPaths is a small installation serving the benchmark's requests: the floor
// (an unknown route's JSON 404) and the list and SSR of a product, full and 304.
type readPaths struct {
	h     http.Handler
	reqs  map[string]*http.Request
	order []string
}

// newReadPaths seeds n published reviews of SKU-HOT and prepares each request once
// (its answers are cached before the measurement starts).
func newReadPaths(tb testing.TB, n int) *readPaths {
	tb.Helper()
	env := apptest.New(tb, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	site, server := env.Key("site", "web"), env.Key("server", "web")
	ch, err := env.App.DB.Read().ChannelByCode(context.Background(), "web")
	if err != nil {
		tb.Fatal(err)
	}
	if err := env.App.DB.SeedReviews(context.Background(), ch.ID, n, "BH-", func(i int) store.SeedReview {
		return benchReview(i, n, 2, n)
	}); err != nil {
		tb.Fatal(err)
	}
	if _, err := env.App.Read.RebuildProductStats(context.Background()); err != nil {
		tb.Fatal(err)
	}
	env.NoLimits() // the same budget serves every iteration, as the load measurement's switch does
	p := &readPaths{h: env.Server.Handler(), reqs: map[string]*http.Request{}}
	mk := func(name, target string, hdr map[string]string) {
		r, _ := http.NewRequest("GET", "http://reviewd.test"+target, nil)
		r.RemoteAddr = "192.0.2.10:50000"
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		p.reqs[name] = r
		p.order = append(p.order, name)
	}
	site304 := map[string]string{"Origin": "https://shop.example"}
	server304 := map[string]string{"Authorization": "Bearer " + server}
	listURL := "/v1/reviews/list?key=" + url.QueryEscape(site) + "&product=SKU-HOT"
	ssrURL := "/v1/ssr?channel=web&product=SKU-HOT&name=Hot+mug"
	mk("floor", "/v1/no-such-route", nil)
	mk("list", listURL, site304)
	mk("ssr", ssrURL, server304)
	for _, name := range []string{"list", "ssr"} {
		w := p.serve(tb, name, 200)
		hdr := map[string]string{"If-None-Match": w.h.Get("ETag")}
		for k, v := range p.reqs[name].Header {
			hdr[k] = v[0]
		}
		target := listURL
		if name == "ssr" {
			target = ssrURL
		}
		mk(name+"-304", target, hdr)
	}
	for _, name := range p.order {
		want := 200
		switch name {
		case "floor":
			want = 404
		case "list-304", "ssr-304":
			want = 304
		}
		p.serve(tb, name, want)
	}
	return p
}

// sink is a ResponseWriter that keeps the status and headers and drops the body,
// as cheap as a writer can be, so what is counted is the server's own work.
type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header { return s.h }

// SetReadDeadline lets web.ReadDeadline set its deadline, as on a connection.
func (s *sink) SetReadDeadline(time.Time) error { return nil }
func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}
func (s *sink) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = 200
	}
	s.n += len(b)
	return len(b), nil
}

// serve sends the named request once and checks its status.
func (p *readPaths) serve(tb testing.TB, name string, want int) *sink {
	w := &sink{h: http.Header{}}
	p.h.ServeHTTP(w, p.reqs[name])
	if w.status != want {
		tb.Fatalf("%s: status %d, want %d", name, w.status, want)
	}
	return w
}

// BenchmarkReadAnswers reports the time and allocations per request of the floor
// and of the list and SSR answers, full and 304, of a product with 200 reviews.
func BenchmarkReadAnswers(b *testing.B) {
	p := newReadPaths(b, 200)
	for _, name := range p.order {
		b.Run(name, func(b *testing.B) {
			r := p.reqs[name]
			w := &sink{h: make(http.Header, 16)}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				w.status = 0
				p.h.ServeHTTP(w, r)
			}
		})
	}
}

// readAnswerAllocs is the most allocations one list or SSR request (full or 304)
// may make over the whole handler stack, the middleware's own included (the floor,
// an unknown route's JSON 404, made 35 when this was written; a remembered list or
// SSR answer 27 or 28, nearly all of them the middleware's and the router's).
const readAnswerAllocs = 30

// TestReadAnswerAllocations keeps the per-request cost of the storefront's read
// answers from growing unnoticed: allocations per request are deterministic where
// times on a shared machine are not. A request that parses its query, verifies its
// key or builds its ETag again shows here at once.
func TestReadAnswerAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	p := newReadPaths(t, 30)
	for _, name := range p.order {
		r := p.reqs[name]
		w := &sink{h: make(http.Header, 16)}
		n := testing.AllocsPerRun(200, func() {
			clear(w.h)
			w.status = 0
			p.h.ServeHTTP(w, r)
		})
		t.Logf("%-8s %3.0f allocations per request", name, n)
		if name != "floor" && n > readAnswerAllocs {
			t.Errorf("%s: %.0f allocations per request, at most %d expected", name, n, readAnswerAllocs)
		}
	}
}
