// Package ai is the AI package of version 2 (CONTRACT "AI package"): topics with
// sentiment, grounded summaries, the ai_review content check, reply drafts and,
// with a model, translations. A Provider does the work; the builtin provider is in
// the binary and calls no network; the openai provider asks an OpenAI-compatible
// chat-completions server. The Service keeps the summaries, the request queue and
// the daily allowance of model calls in the store.
package ai

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Provider names (ai.provider).
const (
	ProviderBuiltin = "builtin"
	ProviderOpenAI  = "openai"
	ProviderOff     = "off"
)

// Config is the operator's ai.* configuration.
type Config struct {
	Provider      string `mapstructure:"provider"`
	Endpoint      string `mapstructure:"endpoint"`
	Model         string `mapstructure:"model"`
	APIKey        string `mapstructure:"api_key"`
	DailyRequests int    `mapstructure:"daily_requests"`
	MinReviews    int    `mapstructure:"min_reviews"`
}

// Defaults of the ai.* keys.
const (
	DefaultDailyRequests = 2000
	DefaultMinReviews    = 10
)

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	switch c.Provider {
	case "", ProviderOff:
		return nil // "" (a configuration built without defaults) is off
	case ProviderBuiltin:
	case ProviderOpenAI:
		if c.Endpoint == "" || c.Model == "" {
			errs = append(errs, errors.New("ai.provider openai needs ai.endpoint and ai.model"))
		} else if !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
			errs = append(errs, fmt.Errorf("ai.endpoint: %q is not an http or https address", c.Endpoint))
		}
	default:
		errs = append(errs, fmt.Errorf("ai.provider: %q is not builtin, openai or off", c.Provider))
	}
	if c.DailyRequests < 0 {
		errs = append(errs, errors.New("ai.daily_requests: must not be negative"))
	}
	if c.MinReviews < 1 {
		errs = append(errs, errors.New("ai.min_reviews: must be at least 1"))
	}
	return errors.Join(errs...)
}

// DraftInput is what a reply draft is written from.
type DraftInput struct {
	Rating     int
	Title      string
	Body       string
	AuthorName string // first name shown, "" when hidden
	Language   string // tr or en
	Tone       string // formal or warm
	Brand      string
}

// CheckInput is the text the ai_review check reads.
type CheckInput struct {
	Title, Body, Language string
}

// Provider does the AI work. Summaries and topics get a product's published own
// reviews; a model's answers are checked by the Service before they are kept.
type Provider interface {
	// Name is builtin or openai.
	Name() string
	// Model reports whether the provider calls a model (counted against
	// ai.daily_requests) and can translate.
	Model() bool
	Summarize(ctx context.Context, docs []Doc, minReviews int) (*Summary, error)
	Topics(ctx context.Context, docs []Doc) ([]Topic, error)
	Translate(ctx context.Context, title, body, from, to string) (string, string, error)
	DraftReply(ctx context.Context, in DraftInput) (string, error)
	// ReviewCheck gives the content reasons found in a review's text (spam,
	// personal_data, off_topic, machine_generated); near duplicates are found by
	// the Service.
	ReviewCheck(ctx context.Context, in CheckInput) ([]string, error)
}

// ErrNoModel is returned by a provider that cannot do a model-only task.
var ErrNoModel = errors.New("this needs a model (ai.provider openai)")
