package storefront

import (
	"net/http"
	"strconv"

	"reviewd/app/core"
	"reviewd/app/core/qa"
	"reviewd/app/web"
)

// maxQuestionBody is the largest body of the question and answer endpoints.
const maxQuestionBody = 32 << 10

// handleQuestionList serves GET /v1/questions: published questions of a product
// with their published answers, pooled per market (site key, or server key plus
// channel). Cache-Control private, max-age=30 with a server key, public with a site
// key (for a CDN too, cdn.go). The ETag names the read generation,
// the market's question-and-answer revision and the parameters, so If-None-Match
// with it answers 304 without reading questions.
func (h *Handler) handleQuestionList(w http.ResponseWriter, r *http.Request) error {
	if err := web.CheckQuery(r); err != nil {
		return err
	}
	q := r.URL.Query()
	rs, err := h.Read.ReadState(r.Context(), q.Get("scope"), q.Get("product"))
	if err != nil {
		return err
	}
	_, caller, err := h.readCaller(r, q, rs.Gen)
	if err != nil {
		return err
	}
	ch := caller.Channel
	cc := h.readCache(r, false)[0]
	page, _ := strconv.Atoi(q.Get("page"))
	size, _ := strconv.Atoi(q.Get("page_size"))
	etag, err := h.Read.QuestionsETag(r.Context(), ch, rs.Gen, q.Get("product"), q.Get("scope"), q.Get("lang"),
		strconv.Itoa(page), strconv.Itoa(size))
	if err != nil {
		return err
	}
	hd := w.Header()
	h.setTags(hd, answerTags(q, ch.Code))
	if etag != "" {
		hd.Set("ETag", etag)
		if web.ETagMatches(r.Header.Get("If-None-Match"), etag) {
			hd.Set("Cache-Control", cc)
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	out, err := h.QA.PublishedQuestions(r.Context(), ch, qa.QuestionQuery{Product: q.Get("product"),
		Scope: q.Get("scope"), Lang: q.Get("lang"), Page: page, PageSize: size})
	if err != nil {
		hd.Del("ETag")
		hd.Del("Cache-Tag")
		hd.Del("Surrogate-Key")
		return err
	}
	hd.Set("Cache-Control", cc)
	return web.JSON(w, http.StatusOK, out)
}

// perIP takes one request from the storefront's per-IP limit.
func (h *Handler) perIP(r *http.Request) error {
	if !h.Limits.PerIP.Allow(web.ClientIP(r.Context())) {
		return core.ErrRateLimited
	}
	return nil
}

// handleQuestionCreate serves POST /v1/questions: a question from the store page
// (anonymous, or with the asker token of a signed-in customer); 201 with id and
// state.
func (h *Handler) handleQuestionCreate(w http.ResponseWriter, r *http.Request) error {
	a, ch, err := h.Auth.Storefront(r)
	if err != nil {
		return err
	}
	if err := h.perIP(r); err != nil {
		return err
	}
	var in qa.QuestionInput
	if err := web.DecodeJSON(r, maxQuestionBody, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Language == "" {
		in.Language = r.URL.Query().Get("lang")
	}
	out, err := h.QA.AskQuestion(r.Context(), a, ch, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleAnswerCreate serves POST /v1/questions/<id>/answers: a customer's answer
// with a review-invitation (or order-check) token in X-Service-Token; 201 with id
// and state.
func (h *Handler) handleAnswerCreate(w http.ResponseWriter, r *http.Request) error {
	a, ch, err := h.Auth.Storefront(r)
	if err != nil {
		return err
	}
	if err := h.perIP(r); err != nil {
		return err
	}
	var in qa.AnswerInput
	if err := web.DecodeJSON(r, maxQuestionBody, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Language == "" {
		in.Language = r.URL.Query().Get("lang")
	}
	out, err := h.QA.AnswerQuestion(r.Context(), a, ch, web.Vars(r)["id"], r.Header.Get("X-Service-Token"), in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}
