package qa

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/checks"
	"reviewd/store"
)

// Question and answer states (questions.state, answers.state).
const (
	QAPending   = "pending" // awaiting approval
	QAPublished = "published"
	QARejected  = "rejected"
	QAHidden    = "hidden"
)

// Answer kinds.
const (
	AnswerBrand = "brand"
	AnswerBuyer = "buyer"
)

// Limits of questions and answers (spec 2, "Limits").
const (
	MaxQuestionBody   = 1000
	MaxAnswerBody     = 2000
	MaxQAReason       = 1000
	QuestionPageSize  = 5
	MaxQuestionPage   = 20
	MaxQuestionPages  = 1000
	AnswerEmailCap    = 5
	AnswerEmailWindow = 24 * time.Hour
)

// ErrQuestionsDisabled is 403 refused / questions_disabled: the brand has not turned
// questions and answers on.
var ErrQuestionsDisabled = core.Refused("questions_disabled")

// Not-a-buyer refusal of a customer answer (spec 2, "Vote, report, questions").
const NotABuyer = "not_a_buyer"

// QuestionLimits is the limits object of GET /v1/questions.
type QuestionLimits struct {
	QuestionLength int `json:"question_length"`
	AnswerLength   int `json:"answer_length"`
	NameLength     int `json:"name_length"`
	EmailLength    int `json:"email_length"`
}

// QALimits are the question form limits.
func QALimits() QuestionLimits {
	return QuestionLimits{QuestionLength: MaxQuestionBody, AnswerLength: MaxAnswerBody, NameLength: core.MaxAuthorName,
		EmailLength: core.MaxEmailLength}
}

// NewQuestionID returns a new public question id (q_<20 base32>).
func NewQuestionID() string { return core.NewPublicID("q_") }

// NewAnswerID returns a new public answer id (a_<20 base32>).
func NewAnswerID() string { return core.NewPublicID("a_") }

// questionsOn refuses with questions_disabled while the brand has questions off.
func (c *Service) questionsOn(ctx context.Context, q *store.Q) error {
	st, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return err
	}
	if !st.QuestionsEnabled {
		return ErrQuestionsDisabled
	}
	return nil
}

// QuestionsEnabled reports whether the brand has questions and answers on.
func (c *Service) QuestionsEnabled(ctx context.Context) (bool, error) {
	st, err := c.Brand.LoadSettings(ctx, c.DB.Read())
	return st.QuestionsEnabled, err
}

// qaFinding is a stored check finding of a question or answer.
type qaFinding struct {
	Kind  string `json:"kind"`
	Field string `json:"field"`
	Value string `json:"value"`
}

// qaChecks runs the text checks (personal data, links, swearing, health claims,
// the brand's terms) on a question or answer and returns the findings as stored
// JSON and whether anything was found.
func (c *Service) qaChecks(ctx context.Context, q *store.Q, body, name, lang string) (string, bool, error) {
	terms, err := q.Terms(ctx)
	if err != nil {
		return "", false, err
	}
	found, err := checks.TextFindings(checks.CheckText{Body: body, AuthorName: name, Language: lang}, terms)
	if err != nil {
		return "", false, err
	}
	out := make([]qaFinding, 0, len(found))
	for _, f := range found {
		out = append(out, qaFinding{Kind: f.Kind, Field: f.Field, Value: f.Value})
	}
	b, err := json.Marshal(out)
	return string(b), len(out) > 0, err
}

// qaPublishDecision: a new question or customer answer goes live by itself when
// the publishing method is automatic or hybrid and the checks found nothing;
// otherwise it waits for approval (spec 2, "States and transitions"). Hybrid needs
// no proof of purchase here, so PublishDecision is asked as for a verified text.
func qaPublishDecision(method string, flagged bool) string {
	return core.PublishDecision(method, true, flagged)
}

// qaActor names who acted in a question's history.
func qaActor(a *core.Actor) (typ, id, name string) {
	switch {
	case a == nil:
		return core.ViaSystem, "", "system"
	case a.Via == core.ViaSiteKey || a.Via == core.ViaServerKey:
		return "customer", "", ""
	}
	return a.Via, a.ID, a.Name
}

func (c *Service) addQAEvent(ctx context.Context, tx *store.Tx, a *core.Actor, questionID, answerID int64, event, from, to, reason string) error {
	typ, id, name := qaActor(a)
	return tx.AddQAEvent(ctx, store.QAEvent{QuestionID: questionID, AnswerID: answerID, Event: event, FromState: from,
		ToState: to, Reason: reason, ActorType: typ, ActorID: id, ActorName: name})
}

// Public reading -------------------------------------------------------------

// PublicAnswer is an answer as GET /v1/questions shows it.
type PublicAnswer struct {
	ID          string    `json:"id"`
	Kind        string    `json:"kind"`
	Author      string    `json:"author"`
	Verified    bool      `json:"verified"`
	Body        string    `json:"body"`
	PublishedAt time.Time `json:"published_at"`
}

// PublicQuestion is a question as GET /v1/questions shows it. E-mail addresses
// never appear.
type PublicQuestion struct {
	ID          string         `json:"id"`
	Author      string         `json:"author"`
	Body        string         `json:"body"`
	PublishedAt time.Time      `json:"published_at"`
	Answers     []PublicAnswer `json:"answers"`
}

// QuestionList is the answer of GET /v1/questions.
type QuestionList struct {
	Questions []PublicQuestion `json:"questions"`
	Total     int              `json:"total"`
	Page      int              `json:"page"`
	Pages     int              `json:"pages"`
	PageSize  int              `json:"page_size"`
	Limits    QuestionLimits   `json:"limits"`
	Language  string           `json:"language"`
}

// QuestionQuery is the input of GET /v1/questions.
type QuestionQuery struct {
	Product, Scope, Lang string
	Page, PageSize       int
}

// qaProduct checks a product key: product_required, product_too_long.
func qaProduct(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "" || !core.StorableText(p):
		return "", core.Invalid("product_required")
	case utf8.RuneCountInString(p) > core.MaxProductKey:
		return "", core.Invalid("product_too_long")
	}
	return p, nil
}

// PublishedQuestions lists the published questions of a product with their
// published answers for channel ch (spec 2, GET /v1/questions): pooled over the
// channel's market, newest question first, answers in publication order; page
// 1–1000 and page_size 1–20 (default 5) are clamped. Errors: questions_disabled,
// invalid / product_required, product_too_long, scope.
func (c *Service) PublishedQuestions(ctx context.Context, ch store.Channel, in QuestionQuery) (QuestionList, error) {
	q := c.DB.Read()
	if err := c.questionsOn(ctx, q); err != nil {
		return QuestionList{}, err
	}
	product, err := qaProduct(in.Product)
	if err != nil {
		return QuestionList{}, err
	}
	scope, err := core.ProductScope(in.Scope)
	if err != nil {
		return QuestionList{}, err
	}
	page := min(max(in.Page, 1), MaxQuestionPages)
	size := in.PageSize
	if size <= 0 {
		size = QuestionPageSize
	}
	size = min(size, MaxQuestionPage)
	qs, total, err := q.PublishedQuestions(ctx, ch.Market, scope, product, (page-1)*size, size)
	if err != nil {
		return QuestionList{}, err
	}
	ids := make([]int64, len(qs))
	for i, x := range qs {
		ids[i] = x.ID
	}
	answers, err := q.PublishedAnswersOf(ctx, ids)
	if err != nil {
		return QuestionList{}, err
	}
	byQ := map[int64][]PublicAnswer{}
	for _, a := range answers {
		byQ[a.QuestionID] = append(byQ[a.QuestionID], PublicAnswer{ID: a.PublicID, Kind: a.Kind,
			Author: core.DisplayAuthor(a.AuthorName, a.HideName && a.Kind == AnswerBuyer), Verified: a.Kind == AnswerBuyer,
			Body: a.Body, PublishedAt: a.PublishedAt})
	}
	out := QuestionList{Questions: []PublicQuestion{}, Total: total, Page: page, Pages: core.PageCount(total, size), PageSize: size,
		Limits: QALimits(), Language: core.Language(in.Lang, ch)}
	for _, x := range qs {
		pq := PublicQuestion{ID: x.PublicID, Author: core.DisplayAuthor(x.AskerName, x.HideName), Body: x.Body,
			PublishedAt: x.PublishedAt, Answers: byQ[x.ID]}
		if pq.Answers == nil {
			pq.Answers = []PublicAnswer{}
		}
		out.Questions = append(out.Questions, pq)
	}
	return out, nil
}

// Asking -----------------------------------------------------------------------

// QuestionInput is the body of POST /v1/questions. HideName stays raw so a wrong
// type gets its own detail.
type QuestionInput struct {
	Product  string          `json:"product"`
	Scope    string          `json:"scope"`
	Name     string          `json:"name"`
	Email    string          `json:"email"`
	Body     string          `json:"body"`
	HideName json.RawMessage `json:"hide_name"`
	Language string          `json:"language"`
	Asker    string          `json:"asker"`
}

// QACreated is the answer of the question and answer endpoints: id and state.
type QACreated struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// validateQABody checks the text of a question or answer: body_required,
// body_too_long.
func validateQABody(body string, limit int) (string, error) {
	body = core.MultiLine(body)
	switch {
	case body == "":
		return "", core.Invalid("body_required")
	case utf8.RuneCountInString(body) > limit:
		return "", core.Invalid("body_too_long")
	}
	return body, nil
}

// validateQAName checks an optional display name: name_too_long.
func validateQAName(name string) (string, error) {
	name = core.SingleLine(name)
	if utf8.RuneCountInString(name) > core.MaxAuthorName {
		return "", core.Invalid("name_too_long")
	}
	return name, nil
}

// validateQAEmail checks an optional address: email_too_long, email_invalid.
func validateQAEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	switch {
	case email == "":
		return "", nil
	case utf8.RuneCountInString(email) > core.MaxEmailLength:
		return "", core.Invalid("email_too_long")
	case !core.ValidEmail(email):
		return "", core.Invalid("email_invalid")
	}
	return email, nil
}

// AskQuestion stores a question from channel site (POST /v1/questions). No purchase
// is needed. A signed-in customer sends the asker token of GET /v1/viewer instead of
// name and e-mail. The question is checked and goes live by itself when the
// publishing method is automatic or hybrid and nothing was found; otherwise it
// waits for approval (findings never refuse it). Errors: questions_disabled,
// invalid / product_required, product_too_long, scope, body_required,
// body_too_long, name_too_long, email_too_long, email_invalid, hide_name,
// asker_too_long, token_refused / asker_invalid, asker_expired.
func (c *Service) AskQuestion(ctx context.Context, a *core.Actor, site store.Channel, in QuestionInput) (QACreated, error) {
	var out QACreated
	if err := c.questionsOn(ctx, c.DB.Read()); err != nil {
		return out, err
	}
	product, err := qaProduct(in.Product)
	if err != nil {
		return out, err
	}
	scope, err := core.ProductScope(in.Scope)
	if err != nil {
		return out, err
	}
	body, err := validateQABody(in.Body, MaxQuestionBody)
	if err != nil {
		return out, err
	}
	var name, email string
	signedIn := false
	if strings.TrimSpace(in.Asker) != "" {
		t, err := c.Buyer.ReadAskerToken(in.Asker)
		if err != nil {
			return out, err
		}
		name, email, signedIn = t.Name, t.Email, true
	} else {
		if name, err = validateQAName(in.Name); err != nil {
			return out, err
		}
		if email, err = validateQAEmail(in.Email); err != nil {
			return out, err
		}
	}
	hide, _, err := core.ParseHideName(in.HideName)
	if err != nil {
		return out, err
	}
	lang := core.Language(in.Language, site)
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		findings, flagged, err := c.qaChecks(ctx, tx.Q, body, name, lang)
		if err != nil {
			return err
		}
		state := qaPublishDecision(st.PublishingMethod, flagged)
		x := store.Question{PublicID: NewQuestionID(), ChannelID: site.ID, Market: site.Market, Scope: scope,
			Language: lang, AskerName: name, AskerEmail: email, SignedIn: signedIn, HideName: hide, Body: body,
			State: state, FlagOpen: flagged, Findings: findings}
		if scope == "group" {
			x.GroupKey = product
		} else {
			x.VariantKey = product
		}
		if state == QAPublished {
			x.PublishedAt = tx.Now
		}
		if x, err = tx.CreateQuestion(ctx, x); err != nil {
			return err
		}
		if err := c.addQAEvent(ctx, tx, a, x.ID, 0, "created", "", state, ""); err != nil {
			return err
		}
		out = QACreated{ID: x.PublicID, State: state}
		return c.Record(ctx, tx, a, "question.created", "question", x.PublicID,
			map[string]any{"state": state, "flagged": flagged, "publishing_method": st.PublishingMethod})
	})
	return out, err
}

// Customer answers -------------------------------------------------------------

// Outcomes of the e-mail to the asker (answers.notice, question detail notice),
// besides sending.SendOnce's sent and failed: <reason>.
const (
	NoticeSending    = "sending"
	NoticeNoAddress  = "skipped: no_address"
	NoticeOptedOut   = "skipped: opted_out"
	NoticeDailyLimit = "skipped: daily_limit"
	NoticeMailOff    = "skipped: mail_off"
)
