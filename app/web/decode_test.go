package web

import (
	"errors"
	"strings"
	"testing"

	"reviewd/app/core"
)

func TestCheckJSON(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	okDeep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	cases := []struct {
		name, body string
		err        error
		field      string
	}{
		{"plain", `{"a": "b", "c": [1, {"d": "é"}]}`, nil, ""},
		{"pair", `{"a": "\ud83d\ude00"}`, nil, ""},
		{"max depth", okDeep, nil, ""},
		{"too deep", deep, errDepth, ""},
		{"syntax", `{"a": }`, errSyntax, ""},
		{"nul escape", `{"x": 1, "customer_email": "a\u0000b"}`, errUnstorable, "customer_email"},
		{"lone high", `{"title": "x\ud800y"}`, errUnstorable, "title"},
		{"lone high at end", `{"title": "x\ud800"}`, errUnstorable, "title"},
		{"lone low", `{"items": [{"title": "\udc00"}]}`, errUnstorable, "title"},
		{"high then non-low", `{"title": "\ud800\u0041"}`, errUnstorable, "title"},
		{"invalid utf8", "{\"title\": \"a\xffb\"}", errUnstorable, "title"},
		{"nul in key", `{"a\u0000": 1}`, errUnstorable, ""},
		{"escaped quote", `{"a": "x\"\\", "b": "\u0000"}`, errUnstorable, "b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			field, err := CheckJSON([]byte(c.body))
			if !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if field != c.field {
				t.Fatalf("field = %q, want %q", field, c.field)
			}
		})
	}
}

func TestParseJSONCodes(t *testing.T) {
	var v struct {
		Title string `json:"title"`
		N     int    `json:"n"`
	}
	cases := []struct {
		name, body string
		mode       int
		want       string
	}{
		{"ingest syntax", `{`, ModeIngest, "invalid / body_invalid"},
		{"api syntax", `{`, ModeAPI, "invalid_json / invalid_json"},
		{"ingest deep", strings.Repeat("[", 40) + strings.Repeat("]", 40), ModeIngest, "invalid / body_invalid"},
		{"api deep", strings.Repeat("[", 40) + strings.Repeat("]", 40), ModeAPI, "invalid_json / invalid_json"},
		{"ingest nul", `{"title": "\u0000"}`, ModeIngest, "invalid / field_invalid: title"},
		{"api nul", `{"title": "\u0000"}`, ModeAPI, "invalid_json / invalid_json"},
		{"ingest wrong type", `{"n": "x"}`, ModeIngest, "invalid / field_invalid: n"},
		{"api wrong type", `{"n": "x"}`, ModeAPI, "invalid / n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ParseJSON([]byte(c.body), c.mode, &v)
			var ce *core.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a core error", err)
			}
			if got := ce.Code + " / " + ce.Detail; got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	if err := ParseJSON([]byte(`{"title": "ok", "n": 3, "extra": true}`), ModeAPI, &v); err != nil || v.Title != "ok" || v.N != 3 {
		t.Fatalf("valid body: %v %+v", err, v)
	}
}

func TestStorable(t *testing.T) {
	for s, want := range map[string]bool{"abc": true, "kırmızı": true, "a\x00b": false, "a\xffb": false, "": true} {
		if Storable(s) != want {
			t.Errorf("Storable(%q) = %v", s, !want)
		}
	}
}
