package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"reviewd/app/core"
)

// FuzzDecodeJSON: the body reader and JSON checks never panic, agree with
// encoding/json on what is JSON, and refuse only with a 4xx *core.Error.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a": "b", "c": [1, {"d": "é"}]}`, `{"a": "\ud83d\ude00"}`, `{"a": "\u0000"}`,
		`{"a": "\ud800"}`, `{"\udc00": 1}`, "{\"a\": \"\xff\"}", `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"orders": [{"items": [{"quantity": "1"}]}]}`, ``, ` `, `{`, `"\u`} {
		f.Add([]byte(s))
	}
	type body struct {
		Orders []struct {
			ExternalID string `json:"external_id"`
			Items      []struct {
				Quantity *float64 `json:"quantity"`
			} `json:"items"`
		} `json:"orders"`
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		field, err := CheckJSON(raw)
		if json.Valid(raw) != (err == nil || !errors.Is(err, errSyntax)) {
			t.Fatalf("CheckJSON(%q) = %q, %v; json.Valid = %v", raw, field, err, json.Valid(raw))
		}
		for _, mode := range []int{ModeAPI, ModeIngest} {
			var m any
			var b body
			for _, v := range []any{&m, &b} {
				r := httptest.NewRequest("POST", "/", bytes.NewReader(raw))
				err := DecodeJSON(r, 1<<20, mode, v)
				if err == nil {
					continue
				}
				var ce *core.Error
				if !errors.As(err, &ce) || ce.Status < 400 || ce.Status > 499 {
					t.Fatalf("DecodeJSON(%q, mode %d) = %v, want a 4xx *core.Error", raw, mode, err)
				}
			}
		}
	})
}
