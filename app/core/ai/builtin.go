package ai

import (
	"context"
	"time"
)

// Builtin is the provider in the binary: no network, no translations.
type Builtin struct {
	Now func() time.Time
}

func (Builtin) Name() string { return ProviderBuiltin }
func (Builtin) Model() bool  { return false }

func (b Builtin) Summarize(_ context.Context, docs []Doc, minReviews int) (*Summary, error) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	return Summarize(docs, minReviews, now()), nil
}

func (Builtin) Topics(_ context.Context, docs []Doc) ([]Topic, error) { return Topics(docs), nil }

func (Builtin) Translate(context.Context, string, string, string, string) (string, string, error) {
	return "", "", ErrNoModel
}

func (Builtin) DraftReply(_ context.Context, in DraftInput) (string, error) {
	return TemplateDraft(in), nil
}

func (Builtin) ReviewCheck(_ context.Context, in CheckInput) ([]string, error) {
	return ContentReasons(in), nil
}
