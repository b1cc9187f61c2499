package panel

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/checks"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// ---- market rules and method statements ----

type rulesData struct {
	Policies   brand.PolicyList
	Statements readmodel.StatementList
	Sorts      []string
	Channels   []string
}

// handleRules serves GET /panel/rules: the market rules in force and scheduled,
// the form of a new version, and the method statements with their confirm forms
// (brand.Policies and readmodel.MethodStatements, as GET /admin/v1/policies and
// GET /admin/v1/method-statement).
func (h *Handler) handleRules(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var d rulesData
	var err error
	if d.Policies, err = h.Brand.Policies(r.Context(), ""); err != nil {
		return err
	}
	if d.Statements, err = h.Read.MethodStatements(r.Context(), "", ""); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range d.Policies.Items {
		for _, s := range p.AllowedSortOptions {
			if !seen[s] {
				seen[s] = true
				d.Sorts = append(d.Sorts, s)
			}
		}
	}
	if d.Channels, err = h.Channels.Codes(r.Context()); err != nil {
		return err
	}
	return h.show(w, r, a, "rules", d)
}

// handlePolicyCreate serves POST /panel/rules/policies: a brand version of a
// market's rule (brand.CreatePolicy, as POST /admin/v1/policies). Fields left
// empty keep the rule in force; allowed_sort_options is sent when its boxes were
// shown.
func (h *Handler) handlePolicyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := brand.PolicyInput(fields{text: []string{"market", "channel", "default_sort_option", "valid_from"},
		number: []string{"review_window_days"}, flag: []string{"verification_required"}}.read(r))
	if r.PostForm.Get("allowed_sort_options_shown") == "1" {
		s := r.PostForm["allowed_sort_options"]
		if s == nil {
			s = []string{}
		}
		in["allowed_sort_options"], _ = json.Marshal(s)
	}
	if _, err := h.Brand.CreatePolicy(r.Context(), a, in); err != nil {
		return err
	}
	return back(w, r, "/panel/rules", "policy_created")
}

func statementInput(r *http.Request) readmodel.StatementInput {
	f := r.PostForm
	return readmodel.StatementInput{Channel: f.Get("channel"), Language: f.Get("language"), ExternalURL: strings.TrimSpace(f.Get("external_url")),
		Fingerprint: f.Get("fingerprint")}
}

// handleStatementSave serves POST /panel/rules/method-statement: channel,
// language, external_url (readmodel.SaveMethodStatement, as POST
// /admin/v1/method-statement).
func (h *Handler) handleStatementSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, err := h.Read.SaveMethodStatement(r.Context(), a, statementInput(r)); err != nil {
		return err
	}
	return back(w, r, "/panel/rules", "saved")
}

// handleStatementConfirm serves POST /panel/rules/method-statement/confirm: the
// fingerprint of the text the user read (readmodel.ConfirmMethodStatement, as POST
// /admin/v1/method-statement/confirm).
func (h *Handler) handleStatementConfirm(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, err := h.Read.ConfirmMethodStatement(r.Context(), a, statementInput(r)); err != nil {
		return err
	}
	return back(w, r, "/panel/rules", "statement_confirmed")
}

// ---- terms ----

// handleTerms serves GET /panel/terms: the watched terms of the automatic checks
// (checks.Terms, as GET /admin/v1/terms).
func (h *Handler) handleTerms(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	t, err := h.Checks.Terms(r.Context())
	if err != nil {
		return err
	}
	return h.show(w, r, a, "terms", t)
}

// handleTermAdd serves POST /panel/terms: pattern, label (checks.AddTerms, as
// POST /admin/v1/terms with pattern).
func (h *Handler) handleTermAdd(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, err := h.Checks.AddTerms(r.Context(), a, []checks.TermInput{{Pattern: r.PostForm.Get("pattern"),
		Label: r.PostForm.Get("label")}}); err != nil {
		return err
	}
	return back(w, r, "/panel/terms", "term_added")
}

// handleTermRemove serves POST /panel/terms/<id>/remove (checks.DeleteTerm, as
// DELETE /admin/v1/terms/<id>).
func (h *Handler) handleTermRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Checks.DeleteTerm(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return back(w, r, "/panel/terms", "term_removed")
}

// ---- rating-topic templates ----

type topicView struct {
	brand.AspectTemplate
	AspectsJSON, ProductsJSON string
}

// handleTopics serves GET /panel/rating-topics: the rating-topic lists with their
// topics and products, editable as the API's JSON fields (brand.AspectTemplates,
// as GET /admin/v1/aspect-templates).
func (h *Handler) handleTopics(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	list, err := h.Brand.AspectTemplates(r.Context())
	if err != nil {
		return err
	}
	out := make([]topicView, len(list))
	for i, t := range list {
		as, _ := json.MarshalIndent(t.Aspects, "", " ")
		ps, _ := json.Marshal(t.Products)
		out[i] = topicView{AspectTemplate: t, AspectsJSON: string(as), ProductsJSON: string(ps)}
	}
	return h.show(w, r, a, "rating-topics", out)
}

// handleTopicSave serves POST /panel/rating-topics: key (empty: a new list), name,
// aspects and products (JSON, as the API's fields), default
// (brand.SaveAspectTemplate, as POST /admin/v1/aspect-templates).
func (h *Handler) handleTopicSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	in := brand.AspectTemplateInput{Key: f.Get("key")}
	if s := f.Get("name"); s != "" {
		in.Name = &s
	}
	if s := strings.TrimSpace(f.Get("aspects")); s != "" {
		var v []brand.AspectDef
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return core.Invalid("aspects")
		}
		in.Aspects = &v
	}
	if s := strings.TrimSpace(f.Get("products")); s != "" {
		var v []brand.TemplateProduct
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return core.Invalid("products")
		}
		in.Products = &v
	}
	if f.Get("default_shown") == "1" {
		d := f.Get("default") == "1"
		in.Default = &d
	}
	if _, err := h.Brand.SaveAspectTemplate(r.Context(), a, in); err != nil {
		return err
	}
	return back(w, r, "/panel/rating-topics", "saved")
}

// handleTopicRetire serves POST /panel/rating-topics/retire: key
// (brand.RetireAspectTemplate, as POST /admin/v1/aspect-templates/retire).
func (h *Handler) handleTopicRetire(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Brand.RetireAspectTemplate(r.Context(), a, r.PostForm.Get("key")); err != nil {
		return err
	}
	return back(w, r, "/panel/rating-topics", "topic_retired")
}

// ---- invitations: retry, opt-outs ----

// handleInviteRetry serves POST /panel/invitations/retry: one id, or none for
// every failed invitation (sending.RetryInvitations, as POST
// /admin/v1/invites/retry).
func (h *Handler) handleInviteRetry(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var ids []int64
	if s := r.PostForm.Get("id"); s != "" {
		id, ok := sending.ParseInvitationPublicID(s)
		if !ok {
			return core.Invalid("ids")
		}
		ids = []int64{id}
	}
	res, err := h.Sending.RetryInvitations(r.Context(), a, ids, r.PostForm.Get("channel"))
	if err != nil {
		return err
	}
	return back(w, r, "/panel/invitations", "retried:"+strconv.Itoa(res.Queued))
}

// handleOptOutCheck serves POST /panel/opt-outs/check: addresses, one a line
// (sending.CheckOptOuts, as POST /admin/v1/opt-outs/check, which bounds the
// list); the invitations page shows which of them opted out.
func (h *Handler) handleOptOutCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var addrs []string
	for _, l := range strings.FieldsFunc(r.PostForm.Get("addresses"), func(c rune) bool { return c == '\n' || c == ',' || c == ';' }) {
		if l = strings.TrimSpace(l); l != "" {
			addrs = append(addrs, l)
		}
	}
	rows, err := h.Sending.CheckOptOuts(r.Context(), a, addrs)
	if err != nil {
		return err
	}
	return h.showInvitations(w, r, a, &optOutResult{Checked: len(addrs), Rows: rows})
}

// optOutResult is the answer of an opt-out lookup.
type optOutResult struct {
	Checked int
	Rows    []sending.OptOutRow
}
