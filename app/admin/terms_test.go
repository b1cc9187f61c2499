package admin_test

import (
	"fmt"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
)

func apiHeaders(key string) map[string]string {
	return map[string]string{"Authorization": "Api-Key " + key}
}

// TestTerms: the brand's regular expressions, at most 50 (regex_limit: 50).
func TestTerms(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	w := apiHeaders(env.Key("api", "", "write"))
	r := apiHeaders(env.Key("api", "", "read"))

	res := env.Do("POST", "/admin/v1/terms", map[string]any{"pattern": `rakip\s*marka`, "label": "competitor"}, w)
	if res.Status != 201 || res.JSON["limit"] != 50.0 {
		t.Fatalf("add: want 201, got %s", res)
	}
	items := res.JSON["items"].([]any)
	first := items[0].(map[string]any)
	if len(items) != 1 || first["pattern"] != `rakip\s*marka` || first["label"] != "competitor" {
		t.Fatalf("items %v", items)
	}
	for _, c := range []struct {
		body any
		want string
	}{
		{map[string]any{"pattern": "("}, "invalid / pattern_invalid"},
		{map[string]any{"pattern": " "}, "invalid / pattern_required"},
		{map[string]any{}, "invalid / pattern_required"},
		{map[string]any{"pattern": fmt.Sprintf("%0201d", 0)}, "invalid / pattern_too_long"},
	} {
		if res := env.Do("POST", "/admin/v1/terms", c.body, w); res.Status != 400 || res.Code() != c.want {
			t.Fatalf("%v: %d %s", c.body, res.Status, res.Code())
		}
	}
	if res := env.Do("POST", "/admin/v1/terms", map[string]any{"pattern": "x"}, r); res.Status != 403 {
		t.Fatalf("read key: want 403, got %s", res)
	}

	var fifty []any
	for i := 0; i < 50; i++ {
		fifty = append(fifty, fmt.Sprintf("word%d", i))
	}
	if res := env.Do("POST", "/admin/v1/terms", map[string]any{"terms": append(fifty, "one more")}, w); res.Status != 400 || res.Code() != "invalid / regex_limit: 50" {
		t.Fatalf("51: want 400, got %s", res)
	}
	res = env.Do("POST", "/admin/v1/terms", map[string]any{"terms": fifty}, w)
	if res.Status != 200 || len(res.JSON["items"].([]any)) != 50 {
		t.Fatalf("replace: want 200, got %s", res)
	}
	if res := env.Do("POST", "/admin/v1/terms", map[string]any{"pattern": "x"}, w); res.Code() != "invalid / regex_limit: 50" {
		t.Fatalf("51st add: want invalid / regex_limit: 50, got %s", res)
	}
	id := res.JSON["items"].([]any)[0].(map[string]any)["id"].(string)
	if res := env.Do("DELETE", "/admin/v1/terms/"+id, nil, w); res.Status != 204 {
		t.Fatalf("delete: want 204, got %s", res)
	}
	if res := env.Do("DELETE", "/admin/v1/terms/"+id, nil, w); res.Status != 404 {
		t.Fatalf("delete again: want 404, got %s", res)
	}
	if res := env.Do("GET", "/admin/v1/terms", nil, r); res.Status != 200 || len(res.JSON["items"].([]any)) != 49 {
		t.Fatalf("list: want 200, got %s", res)
	}
}

// TestAspectTemplates: presets can be used but not changed; own lists are made,
// assigned and retired; the spec's refusals.
func TestAspectTemplates(t *testing.T) {
	env := apptest.New(t, cli.TestSurfaces)
	w := apiHeaders(env.Key("api", "", "write"))

	res := env.Do("GET", "/admin/v1/aspect-templates", nil, w)
	items := res.JSON["items"].([]any)
	if res.Status != 200 || len(items) != 4 {
		t.Fatalf("list: want 200, got %s", res)
	}
	general := items[0].(map[string]any)
	if general["key"] != "general" || general["own"] != false || general["default"] != true {
		t.Fatalf("general: %v", general)
	}
	fit := map[string]any{"key": "fit", "kind": "scale", "required": true, "scale": 3,
		"label": map[string]any{"tr": "Kalıp", "en": "Fit"},
		"steps": map[string]any{"tr": []string{"Dar", "Tam", "Bol"}, "en": []string{"Small", "True", "Large"}}}
	res = env.Do("POST", "/admin/v1/aspect-templates", map[string]any{"name": "Shoes", "aspects": []any{fit},
		"products": []any{map[string]any{"scope": "group", "key": "SHOE"}}}, w)
	if res.Status != 201 || res.JSON["own"] != true || len(res.JSON["products"].([]any)) != 1 {
		t.Fatalf("create: want 201, got %s", res)
	}
	key := res.JSON["key"].(string)

	bad := map[string]any{"key": "x", "kind": "rating", "scale": 9, "label": map[string]any{"tr": "a", "en": "b"},
		"steps": map[string]any{"tr": []string{}, "en": []string{}}}
	for _, c := range []struct {
		body   map[string]any
		status int
		want   string
	}{
		{map[string]any{"key": "general", "name": "Mine"}, 409, "refused / template_preset"},
		{map[string]any{"key": "apparel", "aspects": []any{fit}}, 409, "refused / template_preset"},
		{map[string]any{"name": "No topics"}, 400, "invalid / aspects_required"},
		{map[string]any{"name": "Bad", "aspects": []any{bad}}, 400, "invalid / aspect_scale"},
		{map[string]any{"key": "tpl_missing", "name": "x"}, 404, "not_found / not_found"},
	} {
		if res := env.Do("POST", "/admin/v1/aspect-templates", c.body, w); res.Status != c.status || res.Code() != c.want {
			t.Fatalf("%v: %d %s", c.body, res.Status, res.Code())
		}
	}
	retire := func(k string) (int, string) {
		res := env.Do("POST", "/admin/v1/aspect-templates/retire", map[string]any{"key": k}, w)
		return res.Status, res.Code()
	}
	if st, code := retire("general"); st != 409 || code != "refused / template_preset" {
		t.Fatalf("retire preset: %d %s", st, code)
	}
	if st, code := retire(key); st != 409 || code != "refused / template_assigned" {
		t.Fatalf("retire assigned: %d %s", st, code)
	}
	// Made the default: cannot be retired; the preset may become the default again.
	if res := env.Do("POST", "/admin/v1/aspect-templates", map[string]any{"key": key, "products": []any{}, "default": true}, w); res.Status != 200 || res.JSON["default"] != true {
		t.Fatalf("default: want 200, got %s", res)
	}
	if st, code := retire(key); st != 409 || code != "refused / template_default" {
		t.Fatalf("retire default: %d %s", st, code)
	}
	if res := env.Do("POST", "/admin/v1/aspect-templates", map[string]any{"key": "general", "default": true}, w); res.Status != 200 || res.JSON["default"] != true {
		t.Fatalf("preset default: want 200, got %s", res)
	}
	if st, code := retire(key); st != 200 {
		t.Fatalf("retire: %d %s", st, code)
	}
	if st, code := retire(key); st != 409 || code != "refused / template_retired" {
		t.Fatalf("retire twice: %d %s", st, code)
	}
	if res := env.Do("POST", "/admin/v1/aspect-templates", map[string]any{"key": key, "name": "Again"}, w); res.Status != 409 || res.Code() != "refused / template_retired" {
		t.Fatalf("change retired: want 409, got %s", res)
	}
}
