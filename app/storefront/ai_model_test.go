package storefront_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/ai"
	"reviewd/app/outbound"
	"reviewd/app/platform/aichat"
)

// chatServer is an OpenAI-compatible chat-completions server: answer builds the
// assistant's text from the request (system prompt, user message); a nil answer
// never answers (the client's time limit ends the call).
type chatServer struct {
	*httptest.Server
	calls  atomic.Int64
	answer func(system, user string) string
	fail   atomic.Int64 // answer this many calls with 500 first
	auth   atomic.Value
}

func newChatServer(t *testing.T, answer func(system, user string) string) *chatServer {
	cs := &chatServer{answer: answer}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.calls.Add(1)
		cs.auth.Store(r.Header.Get("Authorization"))
		if r.URL.Path != "/v1/chat/completions" || r.Method != "POST" {
			http.Error(w, `{"error":{"message":"not found"}}`, 404)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-model" || len(req.Messages) != 2 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		if cs.fail.Load() > 0 {
			cs.fail.Add(-1)
			http.Error(w, `{"error":{"message":"overloaded"}}`, 500)
			return
		}
		if cs.answer == nil {
			<-r.Context().Done()
			return
		}
		content := cs.answer(req.Messages[0].Content, req.Messages[1].Content)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
	}))
	t.Cleanup(cs.Close)
	return cs
}

// newModelFx is a fixture with ai.provider openai at cs (loopback: allowed for
// the configured endpoint), with a short time limit per call.
func newModelFx(t *testing.T, cs *chatServer, retries int) *fx {
	return newModelFxDaily(t, cs, retries, 100)
}

func newModelFxDaily(t *testing.T, cs *chatServer, retries, daily int) *fx {
	t.Helper()
	cfg := ai.Config{Provider: ai.ProviderOpenAI, Endpoint: cs.URL + "/v1", Model: "test-model", APIKey: "sk-test",
		DailyRequests: daily, MinReviews: ai.DefaultMinReviews}
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.AI = cfg })
	out, err := outbound.New(outbound.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := out.OperatorEndpoint(cfg.Endpoint, 0)
	if err != nil {
		t.Fatal(err)
	}
	env.App.AI.Provider = aichat.New(cfg, hc, 500*time.Millisecond, retries, time.Now)
	env.Channel("web", "TR", "tr")
	return &fx{Env: env, server: env.Key("server", "web"), site: env.Key("site", "web")}
}

// reviewsOf reads the review lines the summary prompt sends.
func reviewsOf(user string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(user))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func firstWords(s string, n int) string {
	ws := strings.Fields(s)
	return strings.Join(ws[:min(n, len(ws))], " ")
}

// goodModel quotes the first words of the first and the last review.
func goodModel(system, user string) string {
	if strings.Contains(system, "Translate") {
		return `{"title": "Su ısıtıcı", "body": "Suyu çabuk kaynatıyor."}`
	}
	rs := reviewsOf(user)
	a, b := rs[0], rs[len(rs)-1]
	ans := map[string]any{"sentences": []any{
		map[string]any{"text": "Buyers say it boils water quickly.", "review_ids": []any{a["id"]}, "quotes": []any{firstWords(a["text"].(string), 6)}},
		map[string]any{"text": "Some found that it leaks.", "review_ids": []any{b["id"]}, "quotes": []any{firstWords(b["text"].(string), 6)}},
		map[string]any{"text": "It glows in the dark.", "review_ids": []any{a["id"]}, "quotes": []any{"it glows in the dark"}},
	}}
	out, _ := json.Marshal(ans)
	return string(out)
}

func aiStatus(t *testing.T, f *fx) map[string]any {
	res := f.Do("GET", "/admin/v1/ai", nil, map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")})
	apptest.Expect(t, res, 200, "")
	return res.JSON
}

func summaryOf(t *testing.T, f *fx) map[string]any {
	t.Helper()
	return obj(f.mustList("product=SKU-1&lang=en")["ai_summary"])
}

// TestAIModelSummary: a model's summary keeps only its grounded sentences; a
// model that invents quotes, answers no JSON or never answers leaves the builtin
// summary, its error in last_error, and the list answer intact.
func TestAIModelSummary(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		cs := newChatServer(t, goodModel)
		f := newModelFx(t, cs, 0)
		seedProduct(f)
		f.settings(map[string]any{"ai_summary_enabled": true})
		runAIJob(t, f)
		sm := summaryOf(t, f)
		if sm["generated_by"] != "model" || sm["text"] != "Buyers say it boils water quickly. Some found that it leaks." {
			t.Fatalf("summary = %v", sm)
		}
		if len(sm["sentences"].([]any)) != 2 || cs.auth.Load() != "Bearer sk-test" {
			t.Fatalf("sentences %v, authorization %v", sm["sentences"], cs.auth.Load())
		}
		st := aiStatus(t, f)
		if num(obj(st["usage"])["requests_today"]) != 1 || st["last_error"] != nil || st["model"] != "test-model" ||
			obj(obj(st["features"])["translations"])["available"] != true {
			t.Fatalf("status = %v", st)
		}
	})
	bad := map[string]struct {
		answer func(string, string) string
		err    string
	}{
		"invented quotes": {func(string, string) string {
			return `{"sentences": [{"text": "Great.", "review_ids": ["r_x"], "quotes": ["nothing like this"]}]}`
		}, "quoted"},
		"not JSON":  {func(string, string) string { return "Sure! Here is a summary: it is a kettle." }, "not the JSON"},
		"no answer": {nil, "model call"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			cs := newChatServer(t, c.answer)
			f := newModelFx(t, cs, 0)
			seedProduct(f)
			f.settings(map[string]any{"ai_summary_enabled": true})
			runAIJob(t, f)
			sm := summaryOf(t, f)
			if sm["generated_by"] != "builtin" || len(sm["sentences"].([]any)) == 0 {
				t.Fatalf("summary = %v", sm)
			}
			st := aiStatus(t, f)
			if msg, _ := st["last_error"].(string); !strings.Contains(msg, c.err) {
				t.Fatalf("last_error = %v, want %q", st["last_error"], c.err)
			}
		})
	}
}

// TestAIModelTranslationRequest: a translation request is done with the model's
// answer stored once; a failing model leaves it failed with its error, and a
// server error is retried.
func TestAIModelTranslationRequest(t *testing.T) {
	cs := newChatServer(t, goodModel)
	cs.fail.Store(1) // the first attempt fails with 500 and is retried
	f := newModelFx(t, cs, 2)
	ids := f.seed(seedRev{lang: "en", title: "Kettle", body: "It boils water quickly."})
	key := map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")}
	q := f.Do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "translation", "review": ids[0], "language": "tr"}, key)
	apptest.Expect(t, q, 202, "")
	runAIJob(t, f)
	done := f.Do("GET", "/admin/v1/ai/requests/"+q.JSON["id"].(string), nil, key)
	if done.JSON["state"] != "done" || cs.calls.Load() != 2 {
		t.Fatalf("request = %s after %d calls", done, cs.calls.Load())
	}
	var title, body string
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT title, body FROM ai_translations`, &title, &body); err != nil ||
		title != "Su ısıtıcı" || body != "Suyu çabuk kaynatıyor." {
		t.Fatalf("stored translation %q %q %v", title, body, err)
	}

	// Shown in the review rows of answers in another language only once the brand
	// turns translations on.
	row := func(lang string) map[string]any {
		return obj(f.mustList("product=SKU-1&lang=" + lang)["reviews"].([]any)[0])
	}
	if tr := row("tr")["translations"]; len(obj(tr)) != 0 {
		t.Fatalf("translations shown before ai_translation_enabled: %v", tr)
	}
	f.settings(map[string]any{"ai_translation_enabled": true})
	got := obj(obj(row("tr")["translations"])["tr"])
	if got["title"] != "Su ısıtıcı" || got["body"] != "Suyu çabuk kaynatıyor." || got["generated_by"] != "model" ||
		row("tr")["body"] != "It boils water quickly." {
		t.Fatalf("row in tr = %v", row("tr"))
	}
	if tr := row("en")["translations"]; len(obj(tr)) != 0 {
		t.Fatalf("translations in the review's own language: %v", tr)
	}
	// New reviews are translated by the job itself while translations are on.
	more := f.seed(seedRev{lang: "tr", title: "Kupa", body: "Çok güzel bir kupa."})
	runAIJob(t, f)
	n := 0
	if err := f.App.DB.Read().QueryRowForTest(ctx, `SELECT count(*) FROM ai_translations t JOIN reviews r ON r.id = t.review_id
		WHERE r.public_id = '`+more[0]+`' AND t.language = 'en'`, &n); err != nil || n != 1 {
		t.Fatalf("automatic translation: %d %v", n, err)
	}

	slow := newChatServer(t, nil)
	g := newModelFx(t, slow, 0)
	ids = g.seed(seedRev{lang: "en", title: "Kettle", body: "It boils water quickly."})
	key = map[string]string{"Authorization": "Api-Key " + g.Key("api", "", "read")}
	q = g.Do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "translation", "review": ids[0], "language": "tr"}, key)
	runAIJob(t, g)
	failed := g.Do("GET", "/admin/v1/ai/requests/"+q.JSON["id"].(string), nil, key)
	if failed.JSON["state"] != "failed" || !strings.Contains(fmt.Sprint(failed.JSON["error"]), "model call") {
		t.Fatalf("request = %s", failed)
	}
	if st := aiStatus(t, g); obj(st["queue"])["failed"] != float64(1) || st["last_error"] == nil {
		t.Fatalf("status = %v", st)
	}
}

// TestAIDailyRequests: past ai.daily_requests the queued work waits (still
// queued) for the next day, and the usage shows it.
func TestAIDailyRequests(t *testing.T) {
	cs := newChatServer(t, goodModel)
	f := newModelFxDaily(t, cs, 0, 1)
	ids := f.seed(seedRev{lang: "en", title: "Kettle", body: "It boils water quickly."},
		seedRev{lang: "en", title: "Mug", body: "A heavy mug.", variant: "SKU-2"})
	key := map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "read")}
	var reqs []string
	for _, id := range ids {
		q := f.Do("POST", "/admin/v1/ai/requests", map[string]any{"kind": "translation", "review": id, "language": "tr"}, key)
		apptest.Expect(t, q, 202, "")
		reqs = append(reqs, q.JSON["id"].(string))
	}
	runAIJob(t, f)
	runAIJob(t, f)
	first := f.Do("GET", "/admin/v1/ai/requests/"+reqs[0], nil, key)
	second := f.Do("GET", "/admin/v1/ai/requests/"+reqs[1], nil, key)
	if first.JSON["state"] != "done" || second.JSON["state"] != "queued" || cs.calls.Load() != 1 {
		t.Fatalf("requests %s / %s after %d calls", first.JSON["state"], second.JSON["state"], cs.calls.Load())
	}
	st := aiStatus(t, f)
	if u := obj(st["usage"]); num(u["requests_today"]) != 1 || num(u["daily_requests"]) != 1 || num(obj(st["queue"])["waiting"]) != 1 {
		t.Fatalf("status = %v", st)
	}
	// The next day the waiting request is done.
	f.Clock.T = f.Clock.T.Add(24 * time.Hour)
	runAIJob(t, f)
	if again := f.Do("GET", "/admin/v1/ai/requests/"+reqs[1], nil, key); again.JSON["state"] != "done" {
		t.Fatalf("next day: %s", again)
	}
}

// TestAIModelReplyDraft: a reply draft comes from the model with the tone asked
// for, in the review's language and signed by the brand; a draft that fails the
// seller-reply checks (an e-mail address) is refused with ai_draft_unusable; a
// model that does not answer leaves the builtin template draft.
func TestAIModelReplyDraft(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	answer := `Thank you for your review, we are glad the kettle serves you well. Acme`
	hang := make(chan struct{})
	cs := newChatServer(t, func(system, user string) string {
		mu.Lock()
		seen = append(seen, system+"\n"+user)
		a := answer
		mu.Unlock()
		if a == "" {
			<-hang // never answers in time
		}
		return a
	})
	t.Cleanup(func() { close(hang) }) // before the server closes
	f := newModelFx(t, cs, 0)
	ids := seedProduct(f)
	mod := map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "moderate")}
	draft := func(tone string) apptest.Response {
		return f.Do("POST", "/admin/v1/reviews/"+ids[0]+"/seller-response/draft", map[string]any{"tone": tone}, mod)
	}

	res := draft("warm")
	apptest.Expect(t, res, 200, "")
	if res.JSON["body"] != answer || res.JSON["tone"] != "warm" || res.JSON["generated_by"] != "model" {
		t.Fatalf("draft = %s", res)
	}
	mu.Lock()
	prompt := seen[len(seen)-1]
	mu.Unlock()
	if !strings.Contains(prompt, "warm tone") || !strings.Contains(prompt, "in English") ||
		!strings.Contains(prompt, "boils water quickly") {
		t.Fatalf("prompt = %s", prompt)
	}

	mu.Lock()
	answer = "Thank you! Write to help@acme.example and we will sort it out."
	mu.Unlock()
	apptest.Expect(t, draft("formal"), 409, "seller_response_refused / ai_draft_unusable")

	mu.Lock()
	answer = "" // the model never answers: the call's time limit ends it
	mu.Unlock()
	res = draft("formal")
	apptest.Expect(t, res, 200, "")
	if res.JSON["generated_by"] != "builtin" || res.JSON["tone"] != "formal" || res.JSON["body"] == "" {
		t.Fatalf("draft without a model answer = %s", res)
	}
	if st := aiStatus(t, f); !strings.Contains(fmt.Sprint(st["last_error"]), "model call") {
		t.Fatalf("status after a failed call = %v", st)
	}
}
