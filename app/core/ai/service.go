package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Service keeps the AI package's stored work: summaries, fingerprints, the
// request queue and the daily allowance of model calls.
type Service struct {
	DB       *store.DB
	Config   Config
	Provider Provider // nil when ai.provider is off
	// Settings reads the brand settings the package follows (connected by
	// app.NewDomain to the brand service).
	Settings func(ctx context.Context) (Settings, error)
}

// New builds the service for a configuration; the provider is builtin, the given
// model provider for openai, or none for off.
func New(db *store.DB, cfg Config, model Provider) *Service {
	if cfg.MinReviews < 1 {
		cfg.MinReviews = DefaultMinReviews
	}
	s := &Service{DB: db, Config: cfg}
	switch cfg.Provider {
	case ProviderBuiltin:
		s.Provider = Builtin{Now: func() time.Time { return db.Now() }}
	case ProviderOpenAI:
		s.Provider = model
	}
	return s
}

// On reports whether the AI package is on (ai.provider is not off).
func (s *Service) On() bool { return s != nil && s.Provider != nil }

// Labels of a shown summary: the notice that the text is machine-made.
var summaryLabels = map[string]string{
	"tr": "Bu özet yorumlardan otomatik olarak oluşturuldu; cümleler yorumlardan alıntıdır.",
	"en": "This summary was generated automatically from reviews; its sentences are quoted from them.",
}

// words are the texts the storefront shows around a summary.
var words = map[string]map[string]string{
	"tr": {"heading": "Yorumların özeti", "source": "Kaynak yorum", Positive: "olumlu", Negative: "olumsuz", Mixed: "karışık"},
	"en": {"heading": "Summary of reviews", "source": "Source review", Positive: "positive", Negative: "negative", Mixed: "mixed"},
}

// Word is one of the summary's texts in a language (en for others).
func Word(lang, key string) string {
	if w, ok := words[lang]; ok {
		return w[key]
	}
	return words["en"][key]
}

// Label is the machine-made notice in a language (en for others).
func Label(lang string) string {
	if l, ok := summaryLabels[lang]; ok {
		return l
	}
	return summaryLabels["en"]
}

// Translations reads the stored translations into lang of the given reviews
// (row id -> title, body) when the brand shows translations and a model is
// configured; nil otherwise.
func (s *Service) Translations(ctx context.Context, q *store.Q, ids []int64, lang string, enabled bool) (map[int64][2]string, error) {
	if !s.On() || !s.Provider.Model() || !enabled || len(ids) == 0 {
		return nil, nil
	}
	return q.AITranslations(ctx, ids, lang)
}

// LabelledSummary is a stored summary as the JSON of the answer's ai_summary,
// labelled in lang (nil for none). The stored JSON is used as it is, with the
// label written into its last field, so an answer does no decoding.
func LabelledSummary(stored, lang string) json.RawMessage {
	body, ok := strings.CutSuffix(stored, emptyLabel)
	if !ok {
		return nil // none, or not written by this version: the job rebuilds it
	}
	label, _ := json.Marshal(Label(lang))
	out := make([]byte, 0, len(body)+len(label)+10)
	out = append(append(append(out, body...), `"label":`...), label...)
	return append(out, '}')
}

// emptyLabel ends every stored summary (Label is its last field and empty).
const emptyLabel = `"label":""}`

// ParseSummary reads an ai_summary answer JSON (for the server-rendered HTML).
func ParseSummary(raw json.RawMessage) *Summary {
	if raw == nil {
		return nil
	}
	var sm Summary
	if json.Unmarshal(raw, &sm) != nil {
		return nil
	}
	return &sm
}

func docsOf(rows []store.AIDoc) []Doc {
	out := make([]Doc, len(rows))
	for i, r := range rows {
		out[i] = Doc{ID: r.PublicID, Rating: r.Rating, Title: r.Title, Body: r.Body, Language: r.Language}
	}
	return out
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// allowance reports whether a model call may be made today.
func (s *Service) allowance(ctx context.Context, now time.Time) (bool, error) {
	if !s.Provider.Model() {
		return true, nil
	}
	n, err := s.DB.Read().AIRequestsToday(ctx, day(now))
	return n < s.Config.DailyRequests, err
}

// countCall counts one model call and records its error (nil: none).
func (s *Service) countCall(ctx context.Context, callErr error) error {
	if !s.Provider.Model() {
		return nil
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.CountAIRequest(ctx, day(tx.Now)); err != nil {
			return err
		}
		if callErr != nil {
			return tx.SetAILastError(ctx, core.TruncateRunes(callErr.Error(), 500))
		}
		return nil
	})
}

// errAllowance: today's model calls are used up; the work waits for tomorrow.
var errAllowance = errors.New("ai.daily_requests used up today")

// BuildSummary builds and stores the summary of one product in one market (an
// empty one under ai.min_reviews). A model summary keeps only its grounded
// sentences and falls back to the builtin one when too few survive.
func (s *Service) BuildSummary(ctx context.Context, ref store.ProductRef) error {
	rows, err := s.DB.Read().PublishedOwnReviews(ctx, ref.Scope, ref.Key, ref.Market)
	if err != nil {
		return err
	}
	docs := docsOf(rows)
	var sm *Summary
	if len(docs) >= s.Config.MinReviews {
		if sm, err = s.summarize(ctx, docs); err != nil {
			return err
		}
	}
	body := ""
	if sm != nil {
		b, err := json.Marshal(sm)
		if err != nil {
			return err
		}
		body = string(b)
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		old, err := tx.AISummary(ctx, ref.Scope, ref.Key, ref.Market)
		if err == nil && sameSummary(old.Summary, body) {
			return tx.MarkAISummarySeen(ctx, ref.Scope, ref.Key, ref.Market)
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return tx.SaveAISummary(ctx, store.AISummaryRow{Scope: ref.Scope, ProductKey: ref.Key, Market: ref.Market, Summary: body},
			citedRows(sm, rows))
	})
}

// citedRows are the row ids of the reviews a summary cites.
func citedRows(sm *Summary, rows []store.AIDoc) []int64 {
	if sm == nil {
		return nil
	}
	byID := map[string]int64{}
	for _, r := range rows {
		byID[r.PublicID] = r.ID
	}
	var out []int64
	for _, c := range sm.Sentences {
		for _, id := range c.ReviewIDs {
			if n, ok := byID[id]; ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// sameSummary compares two stored summaries but for their creation time.
func sameSummary(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y Summary
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	x.CreatedAt, y.CreatedAt = time.Time{}, time.Time{}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// summarize asks the provider; a model's failure or ungrounded answer falls back
// to the builtin summary (its error is recorded in last_error).
func (s *Service) summarize(ctx context.Context, docs []Doc) (*Summary, error) {
	if !s.Provider.Model() {
		return s.Provider.Summarize(ctx, docs, s.Config.MinReviews)
	}
	now := s.DB.Now()
	if ok, err := s.allowance(ctx, now); err != nil {
		return nil, err
	} else if ok {
		sm, callErr := s.Provider.Summarize(ctx, docs, s.Config.MinReviews)
		if callErr == nil {
			sm = Ground(sm, docs)
			if sm == nil {
				callErr = errors.New("summary: too few of the model's sentences are quoted from the reviews")
			}
		}
		if err := s.countCall(ctx, callErr); err != nil {
			return nil, err
		}
		if callErr == nil {
			return sm, nil
		}
	}
	return Builtin{Now: func() time.Time { return s.DB.Now() }}.Summarize(ctx, docs, s.Config.MinReviews)
}

// MinGroundedSentences is the fewest grounded sentences a model summary needs.
const MinGroundedSentences = 2

// Ground keeps the sentences of a model summary whose every quote appears in a
// review it cites (checked by Quoted) and whose cited reviews exist; it returns
// nil when fewer than MinGroundedSentences remain. The topics are the builtin
// ones (counted from the reviews, not taken from the model).
func Ground(sm *Summary, docs []Doc) *Summary {
	if sm == nil {
		return nil
	}
	byID := map[string]Doc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	out := &Summary{ReviewCount: len(docs), CreatedAt: sm.CreatedAt, GeneratedBy: ByModel, Topics: Topics(docs)}
	var texts []string
	for _, c := range sm.Sentences {
		if len(c.ReviewIDs) == 0 || len(c.Quotes) != len(c.ReviewIDs) {
			continue
		}
		ok := true
		for i, id := range c.ReviewIDs {
			d, found := byID[id]
			if !found || !Quoted(c.Quotes[i], d) {
				ok = false
				break
			}
		}
		if ok {
			out.Sentences = append(out.Sentences, Cited{Text: c.Text, ReviewIDs: c.ReviewIDs})
			texts = append(texts, c.Text)
		}
	}
	if len(out.Sentences) < MinGroundedSentences {
		return nil
	}
	out.Text = strings.Join(texts, " ")
	return out
}

// Quoted reports whether quote appears in the review's title or body, compared
// as folded words (case, diacritics, punctuation and spacing aside); a quote of
// fewer than three words never counts.
func Quoted(quote string, d Doc) bool {
	q := Words(Fold(quote))
	if len(q) < 3 {
		return false
	}
	hay := " " + strings.Join(Words(Fold(d.Title+"\n"+d.Body)), " ") + " "
	return strings.Contains(hay, " "+strings.Join(q, " ")+" ")
}

// ReviewContent runs the ai_review check on a stored review in tx: the text
// reasons of the builtin provider (no model is asked inside a write) and
// near_duplicate: <review id> against the product's and the brand's newest
// reviews; the review's fingerprint is kept for later checks.
func (s *Service) ReviewContent(ctx context.Context, tx *store.Tx, r store.Review) ([]string, error) {
	reasons := ContentReasons(CheckInput{Title: r.Title, Body: r.Body, Language: r.Language})
	h, ok := SimHash(r.Title + "\n" + r.Body)
	if !ok {
		return reasons, nil
	}
	others, err := tx.AIFingerprints(ctx, r.VariantKey, recentFingerprints, r.ID)
	if err != nil {
		return nil, err
	}
	best, bestID := NearDuplicateBits+1, ""
	for _, o := range others {
		if d := Distance(h, o.SimHash); d < best || (d == best && o.PublicID < bestID) {
			best, bestID = d, o.PublicID
		}
	}
	if bestID != "" {
		reasons = append([]string{ReasonNearDuplicate + ": " + bestID}, reasons...)
	}
	return reasons, tx.SaveAIFingerprint(ctx, r.ID, r.VariantKey, h)
}

// recentFingerprints is how many of the brand's newest reviews a text is compared
// with besides its product's.
const recentFingerprints = 5000

// Draft writes a reply draft (nothing is stored). A model's failure falls back to
// the template draft.
func (s *Service) Draft(ctx context.Context, in DraftInput) (string, string, error) {
	if s.Provider.Model() {
		ok, err := s.allowance(ctx, s.DB.Now())
		if err != nil {
			return "", "", err
		}
		if ok {
			body, callErr := s.Provider.DraftReply(ctx, in)
			if err := s.countCall(ctx, callErr); err != nil {
				return "", "", err
			}
			if callErr == nil && strings.TrimSpace(body) != "" {
				return strings.TrimSpace(body), ByModel, nil
			}
		}
	}
	return TemplateDraft(in), ByBuiltin, nil
}

// Request kinds and states.
const (
	KindSummary     = "summary"
	KindTranslation = "translation"
	StateQueued     = "queued"
	StateRunning    = "running"
	StateDone       = "done"
	StateFailed     = "failed"
)

// RequestView is a request as GET /admin/v1/ai/requests/<id> shows it.
type RequestView struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	State     string    `json:"state"`
	Error     string    `json:"error"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// RequestPublicID is a request's public id ("aireq_<n>").
func RequestPublicID(id int64) string { return fmt.Sprintf("aireq_%d", id) }

func requestView(r store.AIRequest) RequestView {
	return RequestView{ID: RequestPublicID(r.ID), Kind: r.Kind, State: r.State, Error: r.Error, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt}
}
