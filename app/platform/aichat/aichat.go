// Package aichat is the openai provider of the AI package (app/core/ai): any
// OpenAI-compatible chat-completions server (Ollama, llama.cpp server, vLLM, a
// hosted API) through the openai-go client, over an http.Client that reaches only
// the configured endpoint (outbound.OperatorEndpoint). Every answer is checked
// before it is used: summaries must be JSON whose sentences carry quotes (the
// Service keeps only the grounded ones), translations JSON with title and body.
// Topics and the ai_review reasons are the builtin ones.
package aichat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"reviewd/app/core/ai"
)

// Limits of one call.
const (
	DefaultTimeout = 60 * time.Second
	DefaultRetries = 2
	maxReviews     = 150 // reviews sent for a summary (the newest)
	maxReviewRunes = 600
)

// Provider asks a chat-completions server.
type Provider struct {
	client openai.Client
	model  string
	now    func() time.Time
}

// New builds the provider for a configuration over hc (an http.Client limited to
// the endpoint); timeout is each attempt's limit (0: DefaultTimeout), retries the
// retries with backoff after a failed attempt (timeouts, 429, 5xx).
func New(cfg ai.Config, hc *http.Client, timeout time.Duration, retries int, now func() time.Time) *Provider {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := openai.NewClient(option.WithBaseURL(strings.TrimRight(cfg.Endpoint, "/")+"/"), option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc), option.WithRequestTimeout(timeout), option.WithMaxRetries(retries))
	return &Provider{client: c, model: cfg.Model, now: now}
}

func (p *Provider) Name() string { return ai.ProviderOpenAI }
func (p *Provider) Model() bool  { return true }

// ask sends one chat completion and returns the answer's text.
func (p *Provider) ask(ctx context.Context, system, user string, jsonAnswer bool) (string, error) {
	params := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(p.model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(user)},
	}
	params.Temperature = openai.Float(0.2)
	if jsonAnswer {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	res, err := p.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return "", fmt.Errorf("model call: %w", err)
	}
	if len(res.Choices) == 0 || strings.TrimSpace(res.Choices[0].Message.Content) == "" {
		return "", errors.New("model answer: empty")
	}
	return res.Choices[0].Message.Content, nil
}

// decodeJSON reads a JSON answer, allowing a fenced code block around it.
func decodeJSON(s string, v any) error {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("model answer is not the JSON asked for: %w", err)
	}
	return nil
}

const summaryPrompt = `You summarise customer reviews of one product for shoppers. Write at most 5 short sentences in %s.
Favourable and critical points must appear in the same proportion as in the reviews; never leave out critical reviews.
Every sentence must rest on the reviews it cites: for each cited review id give one quote copied word for word from that review.
Answer only with JSON: {"sentences": [{"text": "...", "review_ids": ["<id>", ...], "quotes": ["<verbatim quote from the first id>", ...]}]}`

// Summarize asks for a quoted summary. The Service grounds the answer (ai.Ground).
func (p *Provider) Summarize(ctx context.Context, docs []ai.Doc, minReviews int) (*ai.Summary, error) {
	if len(docs) < minReviews {
		return nil, nil
	}
	sent := docs
	if len(sent) > maxReviews {
		sent = sent[len(sent)-maxReviews:]
	}
	var b strings.Builder
	lang := map[string]int{}
	for _, d := range sent {
		lang[d.Language]++
		line, _ := json.Marshal(map[string]any{"id": d.ID, "rating": d.Rating, "title": d.Title,
			"text": truncate(d.Body, maxReviewRunes)})
		b.Write(line)
		b.WriteByte('\n')
	}
	language := "English"
	if lang["tr"] > lang["en"] {
		language = "Turkish"
	}
	out, err := p.ask(ctx, fmt.Sprintf(summaryPrompt, language), b.String(), true)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Sentences []struct {
			Text      string   `json:"text"`
			ReviewIDs []string `json:"review_ids"`
			Quotes    []string `json:"quotes"`
		} `json:"sentences"`
	}
	if err := decodeJSON(out, &ans); err != nil {
		return nil, err
	}
	sm := &ai.Summary{ReviewCount: len(docs), CreatedAt: p.now().UTC(), GeneratedBy: ai.ByModel}
	for _, s := range ans.Sentences {
		if strings.TrimSpace(s.Text) == "" {
			continue
		}
		sm.Sentences = append(sm.Sentences, ai.Cited{Text: strings.TrimSpace(s.Text), ReviewIDs: s.ReviewIDs, Quotes: s.Quotes})
	}
	return sm, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// Topics are the builtin ones (counted from the reviews).
func (p *Provider) Topics(_ context.Context, docs []ai.Doc) ([]ai.Topic, error) {
	return ai.Topics(docs), nil
}

var languageNames = map[string]string{"tr": "Turkish", "en": "English"}

// Translate translates a review's title and body.
func (p *Provider) Translate(ctx context.Context, title, body, from, to string) (string, string, error) {
	sys := fmt.Sprintf(`Translate the customer review from %s into %s. Keep its meaning and tone; add nothing.
Answer only with JSON: {"title": "...", "body": "..."}`, languageNames[from], languageNames[to])
	in, _ := json.Marshal(map[string]string{"title": title, "body": body})
	out, err := p.ask(ctx, sys, string(in), true)
	if err != nil {
		return "", "", err
	}
	var ans struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if err := decodeJSON(out, &ans); err != nil {
		return "", "", err
	}
	if ans.Title == nil || ans.Body == nil || (strings.TrimSpace(*ans.Body) == "" && strings.TrimSpace(body) != "") {
		return "", "", errors.New("model answer: translation without title or body")
	}
	return strings.TrimSpace(*ans.Title), strings.TrimSpace(*ans.Body), nil
}

// DraftReply asks for a reply draft; the caller checks it as any seller reply.
func (p *Provider) DraftReply(ctx context.Context, in ai.DraftInput) (string, error) {
	sys := fmt.Sprintf(`You write the brand's public reply to a customer review, in %s, in a %s tone, at most 80 words.
Thank the customer; for a problem, apologise and point to customer service. Never ask the customer to change or remove the review,
never offer money or gifts for it, never include e-mail addresses, phone numbers or links. Sign as %q if given.
Answer only with the reply text.`, languageNames[orEN(in.Language)], in.Tone, in.Brand)
	user, _ := json.Marshal(map[string]any{"rating": in.Rating, "title": in.Title, "text": truncate(in.Body, 2000), "author": in.AuthorName})
	return p.ask(ctx, sys, string(user), false)
}

func orEN(l string) string {
	if l == "tr" {
		return l
	}
	return "en"
}

// ReviewCheck gives the builtin reasons (the check runs inside a write).
func (p *Provider) ReviewCheck(_ context.Context, in ai.CheckInput) ([]string, error) {
	return ai.ContentReasons(in), nil
}
