package docs_test

import (
	"bytes"
	stdjson "encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/ai"
	"reviewd/docs"
)

var update = flag.Bool("update", false, "write docs/openapi.json from the route descriptions")

// muxParam is one path variable of a mux template.
type muxParam struct{ name, pattern string }

// splitTemplate turns a mux path template into the OpenAPI path and its variables
// with their patterns ("" when the variable has none).
func splitTemplate(tpl string) (string, []muxParam) {
	var out strings.Builder
	var params []muxParam
	for i := 0; i < len(tpl); i++ {
		if tpl[i] != '{' {
			out.WriteByte(tpl[i])
			continue
		}
		depth, j := 0, i
		for ; j < len(tpl); j++ {
			if tpl[j] == '{' {
				depth++
			} else if tpl[j] == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		name, pattern, _ := strings.Cut(tpl[i+1:j], ":")
		params = append(params, muxParam{name, pattern})
		out.WriteString("{" + name + "}")
		i = j
	}
	return out.String(), params
}

// build is the whole document.
func build(t *testing.T) map[string]any {
	paths := map[string]any{}
	seen := map[string]bool{}
	for _, o := range ops() {
		key := o.method + " " + o.path
		if seen[key] {
			t.Fatalf("route described twice: %s", key)
		}
		seen[key] = true
		path, vars := splitTemplate(o.path)
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(o.method)] = operation(o, path, vars)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "reviewd API",
			"version": "v1",
			"description": "Every HTTP route of reviewd: ingest (/v1/ingest, signed or Bearer server key), storefront (/v1, site or server key), " +
				"management (/admin/v1, Api-Key or panel session with X-Service-CSRF) and mail events and stop links. " +
				"Error answers are {\"error\",\"detail\"} codes; each answer status lists its codes in x-error-codes. " +
				"Answers may gain fields within v1; callers ignore unknown fields.",
			"license": map[string]any{"name": "MIT", "identifier": "MIT"},
		},
		"servers": []any{map[string]any{"url": "/", "description": "The installation's public_url."}},
		"tags": []any{
			map[string]any{"name": "service", "description": "Health, this document and metrics."},
			map[string]any{"name": "ingest", "description": "Orders and deliveries from the store's systems (spec 1)."},
			map[string]any{"name": "mail", "description": "Email delivery events and stop links (spec 1)."},
			map[string]any{"name": "storefront", "description": "Store page script and store server (spec 2)."},
			map[string]any{"name": "admin", "description": "Management API of the panel and of keys (spec 3)."},
		},
		"paths":      paths,
		"components": components(),
	}
}

// operationID is a stable name of one operation.
func operationID(method, path string) string {
	id := strings.ToLower(method)
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '{') }) {
		part = strings.TrimPrefix(part, "{")
		id += strings.ToUpper(part[:1]) + part[1:]
	}
	return id
}

func operation(o op, path string, vars []muxParam) map[string]any {
	out := map[string]any{"operationId": operationID(o.method, path), "tags": []string{o.tag}, "summary": o.summary}
	if o.auth == nil {
		out["security"] = []any{}
	} else {
		var sec []any
		for _, alt := range o.auth {
			req := map[string]any{}
			for _, name := range strings.Split(alt, "+") {
				req[name] = []string{}
			}
			sec = append(sec, req)
		}
		out["security"] = sec
	}
	var params []any
	for _, v := range vars {
		s := map[string]any{"type": "string"}
		if v.pattern != "" {
			s["pattern"] = "^(?:" + v.pattern + ")$"
		}
		params = append(params, map[string]any{"name": v.name, "in": "path", "required": true, "schema": s})
	}
	for _, list := range []struct {
		in string
		ps []param
	}{{"query", o.query}, {"header", o.headers}} {
		for _, p := range list.ps {
			m := map[string]any{"name": p.name, "in": list.in, "schema": p.schema}
			if p.desc != "" {
				m["description"] = p.desc
			}
			if p.required {
				m["required"] = true
			}
			params = append(params, m)
		}
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if o.body != nil {
		out["requestBody"] = map[string]any{"required": true, "content": map[string]any{o.body.ctype: map[string]any{"schema": o.body.schema}}}
	}
	res := map[string]any{}
	for _, a := range o.ok {
		r := map[string]any{"description": a.desc}
		if a.ctype != "" {
			c := map[string]any{}
			if a.schema != nil {
				c["schema"] = a.schema
			}
			content := map[string]any{}
			for _, ct := range strings.Split(a.ctype, "|") {
				content[ct] = c
			}
			r["content"] = content
		}
		if prev, ok := res[strconv.Itoa(a.status)].(map[string]any); ok {
			// Another form of the same status (a download beside JSON): one answer, both contents.
			if pc, ok := prev["content"].(map[string]any); ok {
				if rc, ok := r["content"].(map[string]any); ok {
					for k, v := range rc {
						pc[k] = v
					}
				}
				prev["description"] = prev["description"].(string) + " " + a.desc
				continue
			}
		}
		res[strconv.Itoa(a.status)] = r
	}
	byStatus := map[string][]string{}
	for _, e := range o.errs {
		status, code, _ := strings.Cut(e, " ")
		if !contains(byStatus[status], code) {
			byStatus[status] = append(byStatus[status], code)
		}
	}
	// Every route can meet the router's own refusals.
	if !strings.HasPrefix(o.path, "/metrics") {
		byStatus["405"] = append(byStatus["405"], "method_not_allowed")
	}
	for status, codes := range byStatus {
		sort.Strings(codes)
		r := map[string]any{
			"description":   "error / detail: " + strings.Join(codes, ", "),
			"x-error-codes": codes,
			"content":       map[string]any{"application/json": map[string]any{"schema": ref("Error")}},
		}
		if o.errHTML && status != "405" {
			r["description"] = "HTML page explaining the refusal (" + strings.Join(codes, ", ") + ")."
			r["content"] = map[string]any{"text/html": map[string]any{"schema": str()}}
		}
		res[status] = r
	}
	out["responses"] = res
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// encode is the document as committed: sorted keys, two-space indents.
func encode(t *testing.T, doc map[string]any) []byte {
	var buf bytes.Buffer
	enc := stdjson.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return buf.Bytes()
}

// TestOpenAPI checks that docs/openapi.json is the document the route
// descriptions give (writing it with -update), that it is a valid OpenAPI 3.1
// document, and that it describes exactly the routes the server mounts.
func TestOpenAPI(t *testing.T) {
	raw := encode(t, build(t))
	if *update {
		if err := os.WriteFile("openapi.json", raw, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if !bytes.Equal(raw, docs.OpenAPI) {
		t.Fatalf("docs/openapi.json is not the document the route descriptions give; run: go test ./docs -run TestOpenAPI -update")
	}
	v := newValidator(t, raw)
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  %s", se.Reason)
			}
		}
	}

	// Walk the mounted router (serve's surfaces, with the token-guarded /metrics).
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Metrics.Token = "metrics-token-for-walk"
		// The document describes the default configuration (ai.provider builtin).
		c.AI = ai.Config{Provider: ai.ProviderBuiltin, DailyRequests: ai.DefaultDailyRequests, MinReviews: ai.DefaultMinReviews}
	})
	var mounted []mountedRoute
	err := env.Server.Router().Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := r.GetMethods()
		if err != nil {
			return fmt.Errorf("%s: route without methods: %v", tpl, err)
		}
		for _, m := range methods {
			mounted = append(mounted, mountedRoute{m, tpl})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range routeDiffs(t, docs.OpenAPI, mounted) {
		t.Error(d)
	}
	t.Logf("%d mounted operations checked against the document", len(mounted))
}

// mountedRoute is one method and mux path template of the router.
type mountedRoute struct{ method, tpl string }

// routeDiffs lists the differences between the document and the mounted routes:
// a mounted route missing from the document or with another path parameter
// pattern, and a documented operation that is not mounted.
func routeDiffs(t *testing.T, raw []byte, mounted []mountedRoute) []string {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name, In string
				Schema   struct{ Pattern string }
			}
		}
	}
	if err := stdjson.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	seen := map[string]bool{}
	for _, mr := range mounted {
		path, vars := splitTemplate(mr.tpl)
		seen[mr.method+" "+path] = true
		o, ok := doc.Paths[path][strings.ToLower(mr.method)]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("mounted route %s %s is not in docs/openapi.json", mr.method, mr.tpl))
			continue
		}
		for _, v := range vars {
			found := false
			for _, p := range o.Parameters {
				if p.In == "path" && p.Name == v.name {
					found = true
					want := ""
					if v.pattern != "" {
						want = "^(?:" + v.pattern + ")$"
					}
					if p.Schema.Pattern != want {
						diffs = append(diffs, fmt.Sprintf("%s %s: path parameter %s has pattern %q in the document, %q mounted", mr.method, mr.tpl, v.name, p.Schema.Pattern, want))
					}
				}
			}
			if !found {
				diffs = append(diffs, fmt.Sprintf("%s %s: path parameter %s is not in the document", mr.method, mr.tpl, v.name))
			}
		}
	}
	for path, item := range doc.Paths {
		for method := range item {
			if !seen[strings.ToUpper(method)+" "+path] {
				diffs = append(diffs, fmt.Sprintf("docs/openapi.json lists %s %s, which is not mounted", strings.ToUpper(method), path))
			}
		}
	}
	sort.Strings(diffs)
	return diffs
}

// TestOpenAPIRouteDiffs makes sure the walk comparison notices each kind of
// difference.
func TestOpenAPIRouteDiffs(t *testing.T) {
	mounted := []mountedRoute{{"GET", "/healthz"}, {"GET", "/admin/v1/questions/{id:q_[a-z2-7]{20}}"}}
	doc := func(paths string) []byte { return []byte(`{"paths":{` + paths + `}}`) }
	good := `"/healthz":{"get":{}},"/admin/v1/questions/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"pattern":"^(?:q_[a-z2-7]{20})$"}}]}}`
	if d := routeDiffs(t, doc(good), mounted); len(d) != 0 {
		t.Fatalf("matching document: %v", d)
	}
	for name, c := range map[string]struct{ paths, want string }{
		"missing":       {`"/admin/v1/questions/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"pattern":"^(?:q_[a-z2-7]{20})$"}}]}}`, "mounted route GET /healthz is not in"},
		"other method":  {strings.Replace(good, `"/healthz":{"get"`, `"/healthz":{"post"`, 1), "lists POST /healthz, which is not mounted"},
		"not mounted":   {good + `,"/v1/gone":{"get":{}}`, "lists GET /v1/gone, which is not mounted"},
		"other pattern": {strings.Replace(good, "{20}", "{16}", 1), "path parameter id has pattern"},
		"no parameter":  {strings.Replace(good, `"name":"id"`, `"name":"qid"`, 1), "path parameter id is not in the document"},
	} {
		d := routeDiffs(t, doc(c.paths), mounted)
		if !strings.Contains(strings.Join(d, "\n"), c.want) {
			t.Errorf("%s: want a difference %q, got %v", name, c.want, d)
		}
	}
}

// newValidator parses raw with libopenapi and builds the validator.
func newValidator(t *testing.T, raw []byte) validator.Validator {
	t.Helper()
	d, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("parse document: %v", err)
	}
	if _, err := d.BuildV3Model(); err != nil {
		t.Fatalf("build document model: %v", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	return v
}
