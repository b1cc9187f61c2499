package qa

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
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

// AnswerInput is the body of POST /v1/questions/<id>/answers.
type AnswerInput struct {
	Body     string          `json:"body"`
	Name     string          `json:"name"`
	HideName json.RawMessage `json:"hide_name"`
	Language string          `json:"language"`
}

// answerTokenKinds are the tokens a customer answer is accepted with: a product
// review invitation or an order check (both prove the purchase of the order's
// products). Shopping-experience and correction tokens are token_wrong_kind.
var answerTokenKinds = []string{buyer.TokenInvitation, buyer.TokenOrderCheck}

// verifyAnswerToken checks the writing token of a customer answer on channel site.
// Unlike VerifyToken, a token already used for a review is accepted (spec 2).
// Refusals: 401 token_required, token_foreign_tenant, token_unknown,
// token_wrong_kind, token_foreign_market, token_expired.
func (c *Service) verifyAnswerToken(ctx context.Context, q *store.Q, tok string, site store.Channel) (store.Token, error) {
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return store.Token{}, core.ErrTokenRequired
	}
	plain, foreign := c.Buyer.UntagToken(tok)
	if foreign {
		return store.Token{}, buyer.TokenRefused(buyer.TokenForeignTenant).AsRefusal()
	}
	t, err := q.TokenByHash(ctx, core.HashToken(plain))
	if errors.Is(err, store.ErrNotFound) {
		return store.Token{}, buyer.TokenRefused(buyer.TokenUnknown).AsRefusal()
	}
	if err != nil {
		return store.Token{}, err
	}
	switch {
	case !slices.Contains(answerTokenKinds, t.Kind):
		return store.Token{}, buyer.TokenRefused(buyer.TokenWrongKind)
	case t.Market != site.Market:
		return store.Token{}, buyer.TokenRefused(buyer.TokenForeignMarket)
	case !q.Now.Before(t.ExpiresAt):
		return store.Token{}, buyer.TokenRefused(buyer.TokenExpired)
	}
	return t, nil
}

// buyerLine finds the line of order o that proves the purchase of the question's
// product: the same variant (variant questions) or group (group questions), not
// cancelled or returned. None: token_refused / not_a_buyer.
func qaBuyerLine(o store.Order, lines []store.OrderLine, x store.Question) (store.OrderLine, error) {
	if o.Erased() {
		return store.OrderLine{}, buyer.TokenRefused(NotABuyer)
	}
	for _, l := range lines {
		same := (x.Scope == "variant" && x.VariantKey != "" && l.VariantKey == x.VariantKey) ||
			(x.Scope == "group" && x.GroupKey != "" && l.GroupKey == x.GroupKey)
		if same && l.FulfilmentState != core.LineCancelled && l.FulfilmentState != core.LineReturned {
			return l, nil
		}
	}
	return store.OrderLine{}, buyer.TokenRefused(NotABuyer)
}

// liveQuestion loads a published question of the site's market; anything else is
// 404 not_found.
func qaLiveQuestion(ctx context.Context, q *store.Q, publicID string, site store.Channel) (store.Question, error) {
	x, err := q.QuestionByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (x.State != QAPublished || x.Market != site.Market)) {
		return store.Question{}, core.ErrNotFound
	}
	return x, err
}

// AnswerQuestion stores a customer's answer to a live question of site's market
// (POST /v1/questions/<id>/answers) with the writing token of X-Service-Token. The
// token's order must contain the question's product on a line that was not
// cancelled or returned; having written a review with the token does not matter.
// The answer is checked and published like a question; when it goes live the asker
// gets the answer e-mail. Errors: questions_disabled, 401 token_required, invalid /
// body_required, body_too_long, name_too_long, hide_name, 404 not_found,
// token_refused / token_unknown, token_wrong_kind, token_foreign_market,
// token_expired, not_a_buyer.
func (c *Service) AnswerQuestion(ctx context.Context, a *core.Actor, site store.Channel, questionID, token string, in AnswerInput) (QACreated, error) {
	var out QACreated
	if err := c.questionsOn(ctx, c.DB.Read()); err != nil {
		return out, err
	}
	if strings.TrimSpace(token) == "" {
		return out, core.ErrTokenRequired
	}
	body, err := validateQABody(in.Body, MaxAnswerBody)
	if err != nil {
		return out, err
	}
	name, err := validateQAName(in.Name)
	if err != nil {
		return out, err
	}
	hide, _, err := core.ParseHideName(in.HideName)
	if err != nil {
		return out, err
	}
	lang := core.Language(in.Language, site)
	var mailJob *answerMail
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := qaLiveQuestion(ctx, tx.Q, questionID, site)
		if err != nil {
			return err
		}
		t, err := c.verifyAnswerToken(ctx, tx.Q, token, site)
		if err != nil {
			return err
		}
		o, err := tx.OrderByID(ctx, t.OrderID)
		if err != nil {
			return err
		}
		lines, err := tx.LinesOfOrder(ctx, o.ID)
		if err != nil {
			return err
		}
		line, err := qaBuyerLine(o, lines, x)
		if err != nil {
			return err
		}
		st, err := c.Brand.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		findings, flagged, err := c.qaChecks(ctx, tx.Q, body, name, lang)
		if err != nil {
			return err
		}
		state := qaPublishDecision(st.PublishingMethod, flagged)
		ans := store.Answer{PublicID: NewAnswerID(), QuestionID: x.ID, Kind: AnswerBuyer, ChannelID: site.ID, TokenID: t.ID,
			OrderID: o.ID, LineID: line.ID, AuthorName: name, HideName: hide, Body: body, Language: lang, State: state,
			FlagOpen: flagged, Findings: findings}
		if state == QAPublished {
			ans.PublishedAt = tx.Now
		}
		if ans, err = tx.CreateAnswer(ctx, ans); err != nil {
			return err
		}
		if err := c.addQAEvent(ctx, tx, a, x.ID, ans.ID, "answered", "", state, ""); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "answer.created", "answer", ans.PublicID,
			map[string]any{"question": x.PublicID, "kind": AnswerBuyer, "state": state, "flagged": flagged}); err != nil {
			return err
		}
		if state == QAPublished {
			if mailJob, err = c.prepareAnswerMail(ctx, tx, x, ans, st); err != nil {
				return err
			}
		}
		out = QACreated{ID: ans.PublicID, State: state}
		return nil
	})
	if err != nil {
		return QACreated{}, err
	}
	c.sendAnswerMail(ctx, mailJob)
	return out, nil
}

// Answer e-mail ----------------------------------------------------------------

// Outcomes of the e-mail to the asker (answers.notice, question detail notice).
const (
	NoticeSending     = "sending"
	NoticeSent        = "sent"
	NoticeNoAddress   = "skipped: no_address"
	NoticeOptedOut    = "skipped: opted_out"
	NoticeDailyLimit  = "skipped: daily_limit"
	NoticeMailOff     = "skipped: mail_off"
	noticeFailedStart = "failed: "
)

// answerMail is one prepared answer e-mail, sent after its transaction commits.
type answerMail struct {
	answerID int64
	msg      mail.Message
}

// answerAddressHash is the keyed hash of an asker address the cap counts by.
func (c *Service) answerAddressHash(address string) string {
	return c.Keys.Pseudonym("answer_email", strings.ToLower(strings.TrimSpace(address)))
}

// prepareAnswerMail decides, in the transaction that published answer ans, whether
// the asker of question x gets the answer e-mail: only once per answer, only with
// an address, never to an address on the opt-out list, at most AnswerEmailCap per
// address in AnswerEmailWindow, and only while e-mail sending is on. The outcome is
// recorded on the answer; the returned message (nil when none) is sent by
// sendAnswerMail after the commit.
func (c *Service) prepareAnswerMail(ctx context.Context, tx *store.Tx, x store.Question, ans store.Answer, st brand.Settings) (*answerMail, error) {
	if ans.Notice != "" {
		return nil, nil
	}
	skip := func(notice string) (*answerMail, error) { return nil, tx.SetAnswerNotice(ctx, ans.ID, notice) }
	if x.AskerEmail == "" || !x.AnonymizedAt.IsZero() {
		return skip(NoticeNoAddress)
	}
	if out, err := tx.OptedOut(ctx, x.AskerEmail); err != nil {
		return nil, err
	} else if out {
		return skip(NoticeOptedOut)
	}
	hash := c.answerAddressHash(x.AskerEmail)
	n, err := tx.CountAnswerEmails(ctx, hash, tx.Now.Add(-AnswerEmailWindow))
	if err != nil {
		return nil, err
	}
	if n >= AnswerEmailCap {
		return skip(NoticeDailyLimit)
	}
	if !c.Mailer.Enabled() {
		return skip(NoticeMailOff)
	}
	ch, err := tx.ChannelByID(ctx, x.ChannelID)
	if err != nil {
		return nil, err
	}
	brandName := core.BrandOf(ch)
	unsub := c.Sending.UnsubscribeURL(brand.RouteEmail, x.Language, x.AskerEmail)
	subject, text, html, err := mail.Render(mail.KindAnswer, x.Language, mail.TemplateData{Brand: brandName,
		CustomerName: x.AskerName, QuestionText: x.Body, AnswerText: ans.Body, UnsubscribeURL: unsub})
	if err != nil {
		return skip(noticeFailedStart + sending.ErrRenderFailed)
	}
	from := ch.SenderAddress
	if from == "" {
		from = st.SenderAddress
	}
	if err := tx.AddAnswerEmail(ctx, hash, ans.ID); err != nil {
		return nil, err
	}
	if err := tx.SetAnswerNotice(ctx, ans.ID, NoticeSending); err != nil {
		return nil, err
	}
	return &answerMail{answerID: ans.ID, msg: mail.Message{From: from, FromName: brandName, To: x.AskerEmail, Subject: subject,
		Text: text, HTML: html, ListUnsubscribeURL: unsub, MessageID: mail.NewMessageID(sending.MessageIDDomain(from, c.PublicURL))}}, nil
}

// publishedAnswerMail prepares, in the transaction that published answer ans, the
// answer e-mail under the current settings (see prepareAnswerMail).
func (c *Service) publishedAnswerMail(ctx context.Context, tx *store.Tx, x store.Question, ans store.Answer) (*answerMail, error) {
	st, err := c.Brand.LoadSettings(ctx, tx.Q)
	if err != nil {
		return nil, err
	}
	return c.prepareAnswerMail(ctx, tx, x, ans, st)
}

// deliverAnswerMail sends a prepared answer e-mail (if any) after the commit and
// copies the notice it recorded on answer publicID onto out.
func (c *Service) deliverAnswerMail(ctx context.Context, job *answerMail, publicID string, out *AnswerItem) {
	if job == nil {
		return
	}
	c.sendAnswerMail(ctx, job)
	if ans, err := c.DB.Read().AnswerByPublicID(ctx, publicID); err == nil {
		out.Notice, out.NoticeAt = ans.Notice, core.OptTime(ans.NoticeAt)
	}
}

// sendAnswerMail sends a prepared answer e-mail once and records sent or failed:
// <reason> on the answer. A failed answer e-mail is not retried.
func (c *Service) sendAnswerMail(ctx context.Context, m *answerMail) {
	if m == nil {
		return
	}
	notice := NoticeSent
	if _, err := c.Mailer.Send(ctx, m.msg); err != nil {
		reason := "unexpected"
		var se *mail.SendError
		if errors.As(err, &se) {
			reason = se.Reason
		}
		notice = noticeFailedStart + reason
		c.Log.Warn("answer e-mail not sent", "answer", m.answerID, "err", err)
	}
	err := c.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		return tx.SetAnswerNotice(ctx, m.answerID, notice)
	})
	if err != nil {
		c.Log.Error("answer e-mail outcome not saved", "answer", m.answerID, "err", err)
	}
}

// Admin ------------------------------------------------------------------------

// QuestionFilter selects questions for GET /admin/v1/questions.
type QuestionFilter struct {
	core.ListQuery
	State          string
	Market         string
	Channel        string
	Unanswered     bool
	AnswersWaiting bool
}

// QuestionItem is one row of the admin question list.
type QuestionItem struct {
	ID             string     `json:"id"`
	Channel        string     `json:"channel"`
	Market         string     `json:"market"`
	Scope          string     `json:"scope"`
	Product        string     `json:"product"`
	VariantKey     string     `json:"variant_key"`
	GroupKey       string     `json:"group_key"`
	Language       string     `json:"language"`
	AskerName      string     `json:"asker_name"`
	NameHidden     bool       `json:"name_hidden"`
	HasEmail       bool       `json:"has_email"`
	SignedIn       bool       `json:"signed_in"`
	Body           string     `json:"body"`
	State          string     `json:"state"`
	FlagOpen       bool       `json:"flag_open"`
	Answers        int        `json:"answers"`
	AnswersWaiting int        `json:"answers_waiting"`
	CreatedAt      time.Time  `json:"created_at"`
	PublishedAt    *time.Time `json:"published_at"`
}

// QuestionCounters are the counters of the admin question list.
type QuestionCounters struct {
	Waiting        int `json:"waiting"`
	Unanswered     int `json:"unanswered"`
	AnswersWaiting int `json:"answers_waiting"`
}

// QuestionPage is the answer of GET /admin/v1/questions.
type QuestionPage struct {
	Items    []QuestionItem   `json:"items"`
	Total    int              `json:"total"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	PageSize int              `json:"page_size"`
	Counters QuestionCounters `json:"counters"`
	Enabled  bool             `json:"enabled"`
}

func qaQuestionItem(x store.Question, channel string) QuestionItem {
	product := x.VariantKey
	if x.Scope == "group" {
		product = x.GroupKey
	}
	return QuestionItem{ID: x.PublicID, Channel: channel, Market: x.Market, Scope: x.Scope, Product: product,
		VariantKey: x.VariantKey, GroupKey: x.GroupKey, Language: x.Language, AskerName: x.AskerName,
		NameHidden: x.HideName, HasEmail: x.AskerEmail != "", SignedIn: x.SignedIn, Body: x.Body, State: x.State,
		FlagOpen: x.FlagOpen, CreatedAt: x.CreatedAt, PublishedAt: core.OptTime(x.PublishedAt)}
}

// ListQuestions lists questions for the panel (GET /admin/v1/questions) with the
// filters state, market, channel, unanswered, answers_waiting and q (text, product,
// asker name or address, id), the counters (for the market and channel filters
// only) and whether questions are on. The asker names shown are logged in the
// personal-data access log (questions.listed). Errors: invalid / state, channel,
// channel_market_mismatch.
func (c *Service) ListQuestions(ctx context.Context, a *core.Actor, f QuestionFilter) (QuestionPage, error) {
	var out QuestionPage
	if f.State != "" && !slices.Contains([]string{QAPending, QAPublished, QARejected, QAHidden}, f.State) {
		return out, core.Invalid("state")
	}
	f.Market = strings.ToUpper(strings.TrimSpace(f.Market))
	q := c.DB.Read()
	only, err := core.ChannelFilter(ctx, q, f.Channel, f.Market)
	if err != nil {
		return out, err
	}
	chID := only.ID
	st, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return out, err
	}
	rows, total, err := q.ListQuestions(ctx, store.QuestionFilter{State: f.State, Market: f.Market, ChannelID: chID,
		Unanswered: f.Unanswered, AnswersWaiting: f.AnswersWaiting, Q: f.Q, Oldest: f.Sort == "oldest",
		Limit: f.PageSize, Offset: f.Offset()})
	if err != nil {
		return out, err
	}
	codes, err := core.ChannelCodes(ctx, q)
	if err != nil {
		return out, err
	}
	out = QuestionPage{Items: []QuestionItem{}, Total: total, Page: f.Page, Pages: core.PageCount(total, f.PageSize),
		PageSize: f.PageSize, Enabled: st.QuestionsEnabled}
	personal := 0
	for _, r := range rows {
		it := qaQuestionItem(r.Question, codes[r.ChannelID])
		it.Answers, it.AnswersWaiting = r.Answers, r.AnswersWaiting
		out.Items = append(out.Items, it)
		if r.AskerName != "" {
			personal++
		}
	}
	if out.Counters.Waiting, out.Counters.Unanswered, out.Counters.AnswersWaiting, err = q.QuestionCounters(ctx, f.Market, chID); err != nil {
		return out, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "questions.listed", "question", "", personal)
	})
	return out, err
}

// AnswerItem is an answer in the panel.
type AnswerItem struct {
	ID              string     `json:"id"`
	Question        string     `json:"question"`
	Kind            string     `json:"kind"`
	AuthorName      string     `json:"author_name"`
	NameHidden      bool       `json:"name_hidden"`
	Verified        bool       `json:"verified"`
	Body            string     `json:"body"`
	Language        string     `json:"language"`
	State           string     `json:"state"`
	FlagOpen        bool       `json:"flag_open"`
	Checks          []any      `json:"checks"`
	Notice          string     `json:"notice"`
	NoticeAt        *time.Time `json:"notice_at"`
	OrderReference  string     `json:"order_reference"`
	AvailableEvents []string   `json:"available_events"`
	CreatedAt       time.Time  `json:"created_at"`
	PublishedAt     *time.Time `json:"published_at"`
}

// QALedgerEntry is one history entry of a question or its answers.
type QALedgerEntry struct {
	Event     string    `json:"event"`
	Answer    string    `json:"answer,omitempty"`
	FromState string    `json:"from_state"`
	ToState   string    `json:"to_state"`
	Reason    string    `json:"reason"`
	ActorType string    `json:"actor_type"`
	ActorName string    `json:"actor_name"`
	At        time.Time `json:"at"`
}

// QuestionDetail is the answer of GET /admin/v1/questions/<id>.
type QuestionDetail struct {
	QuestionItem
	Checks          []any           `json:"checks"`
	AnswerList      []AnswerItem    `json:"answers"`
	Notice          *QANotice       `json:"notice"`
	AvailableEvents []string        `json:"available_events"`
	Ledger          []QALedgerEntry `json:"ledger"`
}

// QANotice is the outcome of the latest e-mail to the asker.
type QANotice struct {
	Answer string     `json:"answer"`
	Result string     `json:"result"`
	At     *time.Time `json:"at"`
}

func qaFindingList(s string) []any {
	var out []any
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []any{}
	}
	return out
}

// qaEvents lists the transition events and the state each reaches from each state.
var qaEvents = []struct {
	name  string
	moves map[string]string
}{
	{"approve", map[string]string{QAPending: QAPublished, QARejected: QAPublished}},
	{"reject", map[string]string{QAPending: QARejected}},
	{"rereview", map[string]string{QAPublished: QAPending, QARejected: QAPending, QAHidden: QAPending}},
	{"hide", map[string]string{QAPublished: QAHidden}},
	{"unhide", map[string]string{QAHidden: QAPublished}},
}

// qaAvailable lists the events offered from state; an erased text is never put
// live again (approve and unhide are left out).
func qaAvailable(state string, anonymized bool) []string {
	out := []string{}
	for _, e := range qaEvents {
		if _, ok := e.moves[state]; ok && !(anonymized && (e.name == "approve" || e.name == "unhide")) {
			out = append(out, e.name)
		}
	}
	return out
}

// qaMove validates an event from state: invalid / event for an unknown one, 409
// transition_refused / event_not_available when not offered, question_anonymized
// (or answer_anonymized) when it would put an erased text live.
func qaMove(event, state string, anonymized bool, subject string) (string, error) {
	for _, e := range qaEvents {
		if e.name != event {
			continue
		}
		to, ok := e.moves[state]
		if !ok {
			return "", core.Conflict("transition_refused", "event_not_available")
		}
		if anonymized && to == QAPublished {
			return "", core.Conflict("transition_refused", subject+"_anonymized")
		}
		return to, nil
	}
	return "", core.Invalid("event")
}

// reloadAnswerItem reads answer id again in tx and builds its panel item.
func (c *Service) reloadAnswerItem(ctx context.Context, tx *store.Tx, x store.Question, id int64) (AnswerItem, error) {
	ans, err := tx.AnswerByID(ctx, id)
	if err != nil {
		return AnswerItem{}, err
	}
	return c.answerItem(ctx, tx.Q, x, ans)
}

func (c *Service) answerItem(ctx context.Context, q *store.Q, x store.Question, ans store.Answer) (AnswerItem, error) {
	it := AnswerItem{ID: ans.PublicID, Question: x.PublicID, Kind: ans.Kind, AuthorName: ans.AuthorName,
		NameHidden: ans.HideName, Verified: ans.Kind == AnswerBuyer, Body: ans.Body, Language: ans.Language,
		State: ans.State, FlagOpen: ans.FlagOpen, Checks: qaFindingList(ans.Findings), Notice: ans.Notice,
		NoticeAt: core.OptTime(ans.NoticeAt), AvailableEvents: qaAvailable(ans.State, !ans.AnonymizedAt.IsZero()),
		CreatedAt: ans.CreatedAt, PublishedAt: core.OptTime(ans.PublishedAt)}
	if ans.OrderID != 0 {
		o, err := q.OrderByID(ctx, ans.OrderID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return it, err
		}
		it.OrderReference = o.ExternalID
	}
	return it, nil
}

// questionDetail builds the panel view of a question over q.
func (c *Service) questionDetail(ctx context.Context, q *store.Q, x store.Question) (QuestionDetail, error) {
	ch, err := q.ChannelByID(ctx, x.ChannelID)
	if err != nil {
		return QuestionDetail{}, err
	}
	d := QuestionDetail{QuestionItem: qaQuestionItem(x, ch.Code), Checks: qaFindingList(x.Findings),
		AnswerList: []AnswerItem{}, AvailableEvents: qaAvailable(x.State, !x.AnonymizedAt.IsZero()), Ledger: []QALedgerEntry{}}
	answers, err := q.AnswersOfQuestion(ctx, x.ID)
	if err != nil {
		return d, err
	}
	publicIDs := map[int64]string{}
	for _, ans := range answers {
		it, err := c.answerItem(ctx, q, x, ans)
		if err != nil {
			return d, err
		}
		publicIDs[ans.ID] = ans.PublicID
		d.AnswerList = append(d.AnswerList, it)
		if ans.State == QAPublished {
			d.Answers++
		}
		if ans.State == QAPending {
			d.AnswersWaiting++
		}
		if ans.Notice != "" && (d.Notice == nil || !ans.NoticeAt.Before(*d.Notice.At)) {
			d.Notice = &QANotice{Answer: ans.PublicID, Result: ans.Notice, At: core.OptTime(ans.NoticeAt)}
		}
	}
	events, err := q.QAEventsOf(ctx, x.ID)
	if err != nil {
		return d, err
	}
	for _, e := range events {
		d.Ledger = append(d.Ledger, QALedgerEntry{Event: e.Event, Answer: publicIDs[e.AnswerID], FromState: e.FromState,
			ToState: e.ToState, Reason: e.Reason, ActorType: e.ActorType, ActorName: e.ActorName, At: e.At})
	}
	return d, nil
}

// QuestionDetailOf returns the panel view of a question (GET
// /admin/v1/questions/<id>): the asker's full name, the answers with their authors,
// the outcome of the latest e-mail to the asker, the events offered and the
// history. The read is logged as question.viewed. Unknown ids: 404 not_found.
func (c *Service) QuestionDetailOf(ctx context.Context, a *core.Actor, publicID string) (QuestionDetail, error) {
	var d QuestionDetail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if d, err = c.questionDetail(ctx, tx.Q, x); err != nil {
			return err
		}
		return c.LogAccess(ctx, tx, a, "question.viewed", "question", x.PublicID, 1)
	})
	return d, err
}

// QATransitionInput is the body of the question and answer transitions.
type QATransitionInput struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
}

func (in *QATransitionInput) normalize() error {
	in.Event = strings.TrimSpace(in.Event)
	in.Reason = strings.TrimSpace(in.Reason)
	switch {
	case in.Event == "":
		return core.Invalid("event_required")
	case utf8.RuneCountInString(in.Reason) > MaxQAReason:
		return core.Invalid("reason_too_long")
	}
	return nil
}

// qaSubject is a question or an answer being moved by a moderator.
type qaSubject struct {
	kind, publicID, state string
	anonymized            bool
	questionID, answerID  int64
	detail                map[string]any // extra activity detail
	setState              func(to string, at time.Time) error
	setFlag               func(on bool) error
}

// moveQA applies one moderation event to a question or an answer in tx: the state
// move (qaMove), the publication time, closing the check flag on approve or reject,
// the Q&A history and the activity history. It returns the new state.
func (c *Service) moveQA(ctx context.Context, tx *store.Tx, a *core.Actor, in QATransitionInput, s qaSubject) (string, error) {
	to, err := qaMove(in.Event, s.state, s.anonymized, s.kind)
	if err != nil {
		return "", err
	}
	var at time.Time
	if to == QAPublished {
		at = tx.Now
	}
	if err := s.setState(to, at); err != nil {
		return "", err
	}
	if in.Event == "approve" || in.Event == "reject" {
		if err := s.setFlag(false); err != nil {
			return "", err
		}
	}
	if err := c.addQAEvent(ctx, tx, a, s.questionID, s.answerID, in.Event, s.state, to, in.Reason); err != nil {
		return "", err
	}
	detail := map[string]any{"from": s.state, "to": to, "reason": in.Reason}
	for k, v := range s.detail {
		detail[k] = v
	}
	return to, c.Record(ctx, tx, a, s.kind+"."+in.Event, s.kind, s.publicID, detail)
}

// TransitionQuestion applies a moderation event to a question (POST
// /admin/v1/questions/<id>/transition): approve, reject, rereview, hide, unhide as
// available_events offers them. A moderator's approve or reject closes the check
// flag. Errors: 404 not_found, invalid / event_required, event, reason_too_long,
// 409 transition_refused / event_not_available, question_anonymized.
func (c *Service) TransitionQuestion(ctx context.Context, a *core.Actor, publicID string, in QATransitionInput) (QuestionDetail, error) {
	if err := in.normalize(); err != nil {
		return QuestionDetail{}, err
	}
	var d QuestionDetail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if _, err := c.moveQA(ctx, tx, a, in, qaSubject{
			kind: "question", publicID: x.PublicID, state: x.State, anonymized: !x.AnonymizedAt.IsZero(), questionID: x.ID,
			setState: func(to string, at time.Time) error { return tx.SetQuestionState(ctx, x.ID, to, at) },
			setFlag:  func(on bool) error { return tx.SetQuestionFlag(ctx, x.ID, on) },
		}); err != nil {
			return err
		}
		if x, err = tx.QuestionByID(ctx, x.ID); err != nil {
			return err
		}
		d, err = c.questionDetail(ctx, tx.Q, x)
		return err
	})
	return d, err
}

// TransitionAnswer applies a moderation event to an answer (POST
// /admin/v1/answers/<id>/transition), like TransitionQuestion. When the answer goes
// live for the first time the asker gets the answer e-mail. It returns the answer.
func (c *Service) TransitionAnswer(ctx context.Context, a *core.Actor, publicID string, in QATransitionInput) (AnswerItem, error) {
	if err := in.normalize(); err != nil {
		return AnswerItem{}, err
	}
	var out AnswerItem
	var job *answerMail
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		ans, err := tx.AnswerByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		x, err := tx.QuestionByID(ctx, ans.QuestionID)
		if err != nil {
			return err
		}
		to, err := c.moveQA(ctx, tx, a, in, qaSubject{
			kind: "answer", publicID: ans.PublicID, state: ans.State, anonymized: !ans.AnonymizedAt.IsZero(),
			questionID: x.ID, answerID: ans.ID, detail: map[string]any{"question": x.PublicID},
			setState: func(to string, at time.Time) error { return tx.SetAnswerState(ctx, ans.ID, to, at) },
			setFlag:  func(on bool) error { return tx.SetAnswerFlag(ctx, ans.ID, on) },
		})
		if err != nil {
			return err
		}
		if to == QAPublished {
			if job, err = c.publishedAnswerMail(ctx, tx, x, ans); err != nil {
				return err
			}
		}
		out, err = c.reloadAnswerItem(ctx, tx, x, ans.ID)
		return err
	})
	if err != nil {
		return AnswerItem{}, err
	}
	c.deliverAnswerMail(ctx, job, publicID, &out)
	return out, nil
}

// AnswerRefused is 409 answer_refused / detail (a brand answer refused).
func AnswerRefused(detail string) *core.Error {
	return core.E(http.StatusConflict, "answer_refused", detail)
}

// qaSteeringPhrases are what a brand answer may not say: asking for a better rating
// or for a review to be changed or removed, or offering something in return for a
// review (spec 3, answer_refused / text_steering). A word ending in * is a prefix.
var qaSteeringPhrases = checks.NewPhraseList([]string{
	"change your review", "change your rating", "update your review", "update your rating", "edit your review",
	"remove your review", "delete your review", "withdraw your review", "in exchange for a review",
	"in exchange for your review", "for a positive review", "for a 5 star*", "for a five star*", "leave us 5 star*",
	"leave us five star*", "give us 5 star*", "give us five star*", "discount for your review", "discount for a review",
	"coupon for your review", "coupon for a review",
	"yorumunuzu sil*", "yorumunuzu kaldır*", "yorumunuzu değiştir*", "yorumunuzu güncelle*", "yorumunuzu düzelt*",
	"puanınızı değiştir*", "puanınızı güncelle*", "puanınızı yükselt*", "yorum karşılığında", "yorumunuz karşılığında",
	"5 yıldız ver*", "beş yıldız ver*",
})

// brandAnswerCheck refuses a brand answer that steers the customer, makes a health
// claim, holds personal data or swears (in this order).
func qaBrandAnswerCheck(body, lang string) error {
	found, err := checks.TextFindings(checks.CheckText{Body: body, Language: lang}, nil)
	if err != nil {
		return err
	}
	if _, ok := qaSteeringPhrases.Find(checks.SplitWords(body, lang)); ok {
		return AnswerRefused("text_steering")
	}
	for _, kind := range []struct{ check, detail string }{{checks.CheckHealthClaim, "text_health_claim"},
		{checks.CheckPersonalData, "text_personal_data"}, {checks.CheckProfanity, "text_profanity"}} {
		for _, f := range found {
			if f.Kind == kind.check {
				return AnswerRefused(kind.detail)
			}
		}
	}
	return nil
}

// BrandAnswerInput is the body of POST /admin/v1/questions/<id>/answer.
type BrandAnswerInput struct {
	Body string `json:"body"`
}

// AnswerAsBrand writes the brand's answer to a live question and publishes it (POST
// /admin/v1/questions/<id>/answer); the author is the brand name of the question's
// channel and the asker gets the answer e-mail. Errors: 404 not_found, invalid /
// body_required, body_too_long, 409 answer_refused / question_not_published,
// text_steering, text_health_claim, text_personal_data, text_profanity.
func (c *Service) AnswerAsBrand(ctx context.Context, a *core.Actor, publicID string, in BrandAnswerInput) (AnswerItem, error) {
	body, err := validateQABody(in.Body, MaxAnswerBody)
	if err != nil {
		return AnswerItem{}, err
	}
	var out AnswerItem
	var job *answerMail
	var id string
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		x, err := tx.QuestionByPublicID(ctx, publicID)
		if err != nil {
			return err
		}
		if x.State != QAPublished {
			return AnswerRefused("question_not_published")
		}
		if err := qaBrandAnswerCheck(body, x.Language); err != nil {
			return err
		}
		ch, err := tx.ChannelByID(ctx, x.ChannelID)
		if err != nil {
			return err
		}
		ans, err := tx.CreateAnswer(ctx, store.Answer{PublicID: NewAnswerID(), QuestionID: x.ID, Kind: AnswerBrand,
			ChannelID: x.ChannelID, AuthorName: core.BrandOf(ch), Body: body, Language: x.Language, State: QAPublished,
			Findings: "[]", ActorID: a.ID, PublishedAt: tx.Now})
		if err != nil {
			return err
		}
		id = ans.PublicID
		if err := c.addQAEvent(ctx, tx, a, x.ID, ans.ID, "answered", "", QAPublished, ""); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "answer.created", "answer", ans.PublicID,
			map[string]any{"question": x.PublicID, "kind": AnswerBrand, "state": QAPublished}); err != nil {
			return err
		}
		if job, err = c.publishedAnswerMail(ctx, tx, x, ans); err != nil {
			return err
		}
		out, err = c.reloadAnswerItem(ctx, tx, x, ans.ID)
		return err
	})
	if err != nil {
		return AnswerItem{}, err
	}
	c.deliverAnswerMail(ctx, job, id, &out)
	return out, nil
}
