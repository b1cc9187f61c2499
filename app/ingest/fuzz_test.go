package ingest_test

import (
	"encoding/json"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
)

// fuzzEnv is an installation for a fuzz target: a TR channel "web", a server key,
// budgets that never run out.
func fuzzEnv(f *testing.F) (*apptest.Env, map[string]string) {
	env := apptest.New(f, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	env.NoLimits()
	return env, map[string]string{"Authorization": "Bearer " + env.Key("server", "web"), "Content-Type": "application/json"}
}

func seedJSON(f *testing.F, vs ...any) {
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzIngestOrders: POST /v1/ingest/orders never answers 5xx, whatever the body.
func FuzzIngestOrders(f *testing.F) {
	env, h := fuzzEnv(f)
	delivered := line("2", map[string]any{"fulfilment_state": "delivered", "delivered_at": "2026-05-25T10:00:00Z", "quantity": 2.5})
	seedJSON(f, order("F-1"), map[string]any{"orders": []any{order("F-2"), order("F-3", map[string]any{"items": []any{line("1"), delivered}})}},
		order("F-4", map[string]any{"payment_state": "refunded", "customer_email": nil, "customer_key": "c-1"}),
		order("F-5", map[string]any{"placed_at": "yesterday", "items": []any{}}),
		map[string]any{"orders": []any{}}, []any{order("F-6")})
	f.Add([]byte(`{"orders": [{"channel": "web", "external_id": "\u0000"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		env.Fuzz(t, "POST", "/v1/ingest/orders", body, h)
		// The panel's dry run, with the body as text.
		check, _ := json.Marshal(map[string]any{"kind": "orders", "body": string(body)})
		env.Fuzz(t, "POST", "/admin/v1/ingest/check", check, map[string]string{"Content-Type": "application/json"})
	})
}

// FuzzIngestDeliveries: POST /v1/ingest/deliveries never answers 5xx.
func FuzzIngestDeliveries(f *testing.F) {
	env, h := fuzzEnv(f)
	if res := env.Do("POST", "/v1/ingest/orders", order("D-1", map[string]any{"items": []any{line("1"), line("2")}}), h); res.Status != 200 {
		f.Fatalf("seed order: %d %s", res.Status, res.Body)
	}
	seedJSON(f,
		map[string]any{"deliveries": []any{map[string]any{"channel": "web", "external_id": "D-1", "line_reference": "1",
			"state": "delivered", "observed_at": "2026-05-30T10:00:00Z"}}},
		map[string]any{"channel": "web", "external_id": "D-1", "line_reference": "2", "state": "shipped", "observed_at": "2026-05-29T10:00:00+03:00"},
		map[string]any{"deliveries": []any{map[string]any{"channel": "web", "external_id": "nope", "line_reference": "9", "state": "lost"}}})
	f.Fuzz(func(t *testing.T, body []byte) {
		env.Fuzz(t, "POST", "/v1/ingest/deliveries", body, h)
		check, _ := json.Marshal(map[string]any{"kind": "deliveries", "body": string(body)})
		env.Fuzz(t, "POST", "/admin/v1/ingest/check", check, map[string]string{"Content-Type": "application/json"})
	})
}
