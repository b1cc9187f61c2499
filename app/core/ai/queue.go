package ai

import (
	"context"
	"errors"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Settings are the brand settings the AI package reads (spec 3).
type Settings struct {
	SummaryEnabled     bool
	TranslationEnabled bool
	ReplyTone          string
}

// Feature is one feature of GET /admin/v1/ai.
type Feature struct {
	Available bool `json:"available"`
	Enabled   bool `json:"enabled"`
}

// StatusView is the answer of GET /admin/v1/ai.
type StatusView struct {
	Provider string             `json:"provider"`
	Model    string             `json:"model"`
	Features map[string]Feature `json:"features"`
	Usage    struct {
		RequestsToday int `json:"requests_today"`
		DailyRequests int `json:"daily_requests"`
	} `json:"usage"`
	Queue struct {
		Waiting int `json:"waiting"`
		Running int `json:"running"`
		Failed  int `json:"failed"`
	} `json:"queue"`
	LastError *string `json:"last_error"`
}

// Status builds GET /admin/v1/ai.
func (s *Service) Status(ctx context.Context) (StatusView, error) {
	var v StatusView
	set, err := s.Settings(ctx)
	if err != nil {
		return v, err
	}
	q := s.DB.Read()
	v.Provider = s.Config.Provider
	model := s.Provider.Model()
	if model {
		v.Model = s.Config.Model
	}
	v.Features = map[string]Feature{
		"summaries":     {Available: true, Enabled: set.SummaryEnabled},
		"topics":        {Available: true, Enabled: set.SummaryEnabled},
		"translations":  {Available: model, Enabled: model && set.TranslationEnabled},
		"reply_drafts":  {Available: true, Enabled: true},
		"review_checks": {Available: true, Enabled: true},
	}
	if v.Usage.RequestsToday, err = q.AIRequestsToday(ctx, day(s.DB.Now())); err != nil {
		return v, err
	}
	v.Usage.DailyRequests = s.Config.DailyRequests
	if v.Queue.Waiting, v.Queue.Running, v.Queue.Failed, err = q.AIQueueCounts(ctx); err != nil {
		return v, err
	}
	msg, _, err := q.AILastError(ctx)
	if msg != "" {
		v.LastError = &msg
	}
	return v, err
}

// RequestInput is the body of POST /admin/v1/ai/requests.
type RequestInput struct {
	Kind     string `json:"kind"`
	Product  string `json:"product"`
	Scope    string `json:"scope"`
	Review   string `json:"review"`
	Language string `json:"language"`
}

// Queue adds a request (POST /admin/v1/ai/requests). Errors: invalid / kind,
// product, scope, review, language; 404 not_found for an unknown review.
// reviewID resolves a review's public id.
func (s *Service) Queue(ctx context.Context, in RequestInput, reviewID func(context.Context, string) (int64, bool)) (RequestView, error) {
	r := store.AIRequest{Kind: in.Kind}
	switch in.Kind {
	case KindSummary:
		if in.Product == "" || len(in.Product) > 128 {
			return RequestView{}, core.Invalid("product")
		}
		switch in.Scope {
		case "", store.ScopeVariant:
			r.Scope = store.ScopeVariant
		case store.ScopeGroup:
			r.Scope = store.ScopeGroup
		default:
			return RequestView{}, core.Invalid("scope")
		}
		r.ProductKey = in.Product
	case KindTranslation:
		id, ok := reviewID(ctx, in.Review)
		if in.Review == "" {
			return RequestView{}, core.Invalid("review")
		}
		if !ok {
			return RequestView{}, core.ErrNotFound
		}
		if in.Language != "tr" && in.Language != "en" {
			return RequestView{}, core.Invalid("language")
		}
		r.ReviewID, r.Language, r.Scope = id, in.Language, store.ScopeVariant
	default:
		return RequestView{}, core.Invalid("kind")
	}
	var out store.AIRequest
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.AddAIRequest(ctx, r)
		return err
	})
	return requestView(out), err
}

// Request reads a request (GET /admin/v1/ai/requests/<id>); 404 not_found.
func (s *Service) Request(ctx context.Context, publicID string) (RequestView, error) {
	id, ok := core.ParseID("aireq_", publicID)
	if !ok {
		return RequestView{}, core.ErrNotFound
	}
	r, err := s.DB.Read().AIRequestByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return RequestView{}, core.ErrNotFound
	}
	return requestView(r), err
}

// SummaryInterval is the shortest time between two builds of a product's summary.
const SummaryInterval = time.Hour

// jobBatch bounds the work of one run of the job; translationBatch the
// translations it queues by itself (ai_translation_enabled, with a model).
const (
	jobBatch         = 100
	translationBatch = 20
)

// RunJob is one run of the job ai: the translations of new reviews are queued
// (when the brand shows them and a model is configured), queued requests are
// done, then the due summaries (when the brand shows them), within
// ai.daily_requests; past it the work waits for the next day.
func (s *Service) RunJob(ctx context.Context) error {
	if !s.On() {
		return nil
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return err
	}
	if set.TranslationEnabled && s.Provider.Model() {
		if err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			_, err := tx.QueueDueTranslations(ctx, translationBatch)
			return err
		}); err != nil {
			return err
		}
	}
	reqs, err := s.DB.Read().QueuedAIRequests(ctx, jobBatch)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		if ok, err := s.allowance(ctx, s.DB.Now()); err != nil || !ok {
			return err
		}
		if err := s.runRequest(ctx, r); err != nil {
			return err
		}
	}
	if !set.SummaryEnabled {
		return nil
	}
	due, err := s.DB.Read().DueAISummaries(ctx, s.Config.MinReviews, s.DB.Now().Add(-SummaryInterval), jobBatch)
	if err != nil {
		return err
	}
	for _, ref := range due {
		if ok, err := s.allowance(ctx, s.DB.Now()); err != nil || !ok {
			return err
		}
		if err := s.BuildSummary(ctx, ref); err != nil {
			return err
		}
	}
	return nil
}

// runRequest does one queued request: running while it works, then done or
// failed with its error.
func (s *Service) runRequest(ctx context.Context, r store.AIRequest) error {
	if err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.SetAIRequestState(ctx, r.ID, StateRunning, "", true)
	}); err != nil {
		return err
	}
	var workErr error
	switch r.Kind {
	case KindSummary:
		refs, err := s.DB.Read().ProductStatsAllMarkets(ctx, r.Scope, r.ProductKey)
		if err != nil {
			return err
		}
		if len(refs) == 0 {
			workErr = errors.New("the product has no published reviews")
		}
		for _, st := range refs {
			if err := s.BuildSummary(ctx, store.ProductRef{Scope: st.Scope, Key: st.ProductKey, Market: st.Market}); err != nil {
				workErr = err
				break
			}
		}
	case KindTranslation:
		workErr = s.translate(ctx, r)
	}
	state, msg := StateDone, ""
	if workErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		state, msg = StateFailed, core.TruncateRunes(workErr.Error(), 500)
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.SetAIRequestState(ctx, r.ID, state, msg, false)
	})
}

// translate stores a review's translation into the request's language (model only).
func (s *Service) translate(ctx context.Context, r store.AIRequest) error {
	if !s.Provider.Model() {
		return ErrNoModel
	}
	rev, err := s.DB.Read().ReviewByID(ctx, r.ReviewID)
	if err != nil {
		return err
	}
	title, body, callErr := s.Provider.Translate(ctx, rev.Title, rev.Body, rev.Language, r.Language)
	if err := s.countCall(ctx, callErr); err != nil {
		return err
	}
	if callErr != nil {
		return callErr
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return tx.SaveAITranslation(ctx, r.ReviewID, r.Language, title, body)
	})
}
