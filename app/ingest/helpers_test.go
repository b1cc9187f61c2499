package ingest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/store"
)

// fixture is a running installation with a TR channel "web" and a server key.
type fixture struct {
	*apptest.Env
	key string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	return &fixture{Env: env, key: env.Key("server", "web")}
}

func bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

// orders posts an order body with the fixture's server key.
func (f *fixture) orders(body any) apptest.Response {
	f.T.Helper()
	return f.Do("POST", "/v1/ingest/orders", body, bearer(f.key))
}

// deliveries posts a delivery body with the fixture's server key.
func (f *fixture) deliveries(body any) apptest.Response {
	f.T.Helper()
	return f.Do("POST", "/v1/ingest/deliveries", body, bearer(f.key))
}

// signed returns the signature headers of body at the fixture's clock.
func (f *fixture) signed(id, secret string, body []byte) map[string]string {
	ts := f.Clock.T.Format(time.RFC3339)
	return map[string]string{"X-Service-Secret": id, "X-Service-Timestamp": ts, "X-Service-Signature": core.Sign([]byte(secret), ts, body)}
}

// order builds a valid order; mods change fields (nil deletes one).
func order(ext string, mods ...map[string]any) map[string]any {
	o := map[string]any{
		"channel": "web", "external_id": ext, "payment_state": "paid", "placed_at": "2026-05-20T09:00:00+03:00",
		"customer_email": "ayse@example.com",
		"items":          []any{map[string]any{"line_reference": "1", "variant_key": "SKU-1", "title": "Mug", "quantity": 1}},
	}
	for _, m := range mods {
		for k, v := range m {
			if v == nil {
				delete(o, k)
			} else {
				o[k] = v
			}
		}
	}
	return o
}

// line builds an order line.
func line(ref string, mods ...map[string]any) map[string]any {
	l := map[string]any{"line_reference": ref, "variant_key": "SKU-" + ref}
	for _, m := range mods {
		for k, v := range m {
			if v == nil {
				delete(l, k)
			} else {
				l[k] = v
			}
		}
	}
	return l
}

func (f *fixture) storedOrder(ext string) (store.Order, bool) {
	f.T.Helper()
	o, err := f.App.DB.Read().OrderByExternalID(context.Background(), ext)
	if err != nil {
		return o, false
	}
	return o, true
}

func (f *fixture) mustOrder(ext string) store.Order {
	f.T.Helper()
	o, ok := f.storedOrder(ext)
	if !ok {
		f.T.Fatalf("order %s not stored", ext)
	}
	return o
}

func (f *fixture) line(ext, ref string) store.OrderLine {
	f.T.Helper()
	o := f.mustOrder(ext)
	l, err := f.App.DB.Read().LineByReference(context.Background(), o.ID, ref)
	if err != nil {
		f.T.Fatalf("line %s/%s: %v", ext, ref, err)
	}
	return l
}

func (f *fixture) lineDeliveries(ext, ref string) []store.Delivery {
	f.T.Helper()
	ds, err := f.App.DB.Read().DeliveriesOfLine(context.Background(), f.line(ext, ref).ID)
	if err != nil {
		f.T.Fatal(err)
	}
	return ds
}

// exec runs SQL on the database file directly (to set up states no endpoint makes).
func (f *fixture) exec(query string, args ...any) {
	f.T.Helper()
	db, err := sql.Open("sqlite", "file:"+f.App.DB.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		f.T.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		f.T.Fatalf("exec %s: %v", query, err)
	}
}

func (f *fixture) count(query string, args ...any) int {
	f.T.Helper()
	db, err := sql.Open("sqlite", "file:"+f.App.DB.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		f.T.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		f.T.Fatalf("count %s: %v", query, err)
	}
	return n
}

func expect(t *testing.T, r apptest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || (code != "" && r.Code() != code) {
		t.Fatalf("want %d %s, got %d %s for\n  %s", status, code, r.Status, r.Code(), r)
	}
}

func jsonBytes(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return b
}
