package checks

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// Limits of the brand's check expressions (spec 3: at most 50 per brand).
const (
	MaxTerms       = 50
	maxTermPattern = 200
	maxTermLabel   = 80
)

// TermView is one brand expression as the admin API shows it.
type TermView struct {
	ID        string `json:"id"`
	Pattern   string `json:"pattern"`
	Label     string `json:"label"`
	CreatedAt string `json:"created_at"`
}

// TermList is the answer of GET and POST /admin/v1/terms.
type TermList struct {
	Items []TermView `json:"items"`
	Limit int        `json:"limit"`
}

// TermInput is one expression to add.
type TermInput struct {
	Pattern string `json:"pattern"`
	Label   string `json:"label"`
}

// TermPublicID is the id of a term in answers ("term_<n>").
func TermPublicID(id int64) string { return "term_" + strconv.FormatInt(id, 10) }

// ParseTermPublicID reads an id made by TermPublicID.
func ParseTermPublicID(s string) (int64, bool) { return core.ParseID("term_", s) }

// validateTerm checks one expression: invalid / pattern_required, pattern_too_long,
// pattern_invalid (not RE2 syntax), label_too_long.
func validateTerm(in TermInput) (store.Term, error) {
	p := strings.TrimSpace(in.Pattern)
	l := strings.TrimSpace(in.Label)
	switch {
	case p == "":
		return store.Term{}, core.Invalid("pattern_required")
	case utf8.RuneCountInString(p) > maxTermPattern:
		return store.Term{}, core.Invalid("pattern_too_long")
	case !core.StorableText(p):
		return store.Term{}, core.Invalid("pattern_invalid")
	case utf8.RuneCountInString(l) > maxTermLabel || !core.StorableText(l):
		return store.Term{}, core.Invalid("label_too_long")
	}
	if _, err := CompileTerm(p); err != nil {
		return store.Term{}, core.Invalid("pattern_invalid")
	}
	return store.Term{Pattern: p, Label: l}, nil
}

func termViews(ts []store.Term) TermList {
	out := TermList{Items: []TermView{}, Limit: MaxTerms}
	for _, t := range ts {
		out.Items = append(out.Items, TermView{ID: TermPublicID(t.ID), Pattern: t.Pattern, Label: t.Label,
			CreatedAt: t.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")})
	}
	return out
}

// Terms lists the brand's expressions.
func (c *Service) Terms(ctx context.Context) (TermList, error) {
	ts, err := c.DB.Read().Terms(ctx)
	if err != nil {
		return TermList{}, err
	}
	return termViews(ts), nil
}

// AddTerms adds expressions to the brand's list. More than 50 in all is
// invalid / regex_limit: 50 and nothing is added. Recorded in the activity history.
func (c *Service) AddTerms(ctx context.Context, a *core.Actor, in []TermInput) (TermList, error) {
	return c.saveTerms(ctx, a, in, false)
}

// ReplaceTerms replaces the brand's whole list (at most 50: regex_limit: 50).
func (c *Service) ReplaceTerms(ctx context.Context, a *core.Actor, in []TermInput) (TermList, error) {
	return c.saveTerms(ctx, a, in, true)
}

func (c *Service) saveTerms(ctx context.Context, a *core.Actor, in []TermInput, replace bool) (TermList, error) {
	var out TermList
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		terms := make([]store.Term, 0, len(in))
		for _, t := range in {
			v, err := validateTerm(t)
			if err != nil {
				return err
			}
			terms = append(terms, v)
		}
		existing, err := tx.Terms(ctx)
		if err != nil {
			return err
		}
		total := len(terms)
		if !replace {
			total += len(existing)
		}
		if total > MaxTerms {
			return core.Invalidf("regex_limit", MaxTerms)
		}
		if replace {
			for _, t := range existing {
				if err := tx.DeleteTerm(ctx, t.ID); err != nil {
					return err
				}
			}
		}
		for _, t := range terms {
			if _, err := tx.CreateTerm(ctx, t); err != nil {
				return err
			}
		}
		action := "terms.added"
		if replace {
			action = "terms.replaced"
		}
		if err := c.Record(ctx, tx, a, action, "terms", "", map[string]any{"count": len(terms)}); err != nil {
			return err
		}
		all, err := tx.Terms(ctx)
		out = termViews(all)
		return err
	})
	return out, err
}

// DeleteTerm removes one expression; an unknown id is not_found.
func (c *Service) DeleteTerm(ctx context.Context, a *core.Actor, publicID string) error {
	id, ok := ParseTermPublicID(publicID)
	if !ok {
		return core.ErrNotFound
	}
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteTerm(ctx, id); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "term.deleted", "term", publicID, nil)
	})
}
