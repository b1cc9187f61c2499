package audit

import (
	"context"
	"slices"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// AccessActions are the actions of the personal-data access log (spec 3).
var AccessActions = []string{"review.viewed", "reviews.searched", "review_history.viewed", "invites.listed",
	"send_logs.listed", "questions.listed", "question.viewed", "subject_requests.listed", "subject_request.viewed",
	"subject_request.previewed", "users.listed", "opt_out.checked", "imported_reviews.listed"}

// AccessVias are the ways an access-log entry was made.
var AccessVias = []string{"session", "api_key", "support", "console"}

// AccessFilter is the query of GET /admin/v1/access-log beside the list contract.
type AccessFilter struct {
	Action, Actor, Via string
}

// AccessRow is one access-log row.
type AccessRow struct {
	ID         int64     `json:"id"`
	Action     string    `json:"action"`
	ActorID    string    `json:"actor_id"`
	ActorRole  string    `json:"actor_role"`
	Via        string    `json:"via"`
	TargetType string    `json:"target_type"`
	TargetID   string    `json:"target_id"`
	Count      int       `json:"count"`
	At         time.Time `json:"at"`
}

// AccessPage is one page of the access log.
type AccessPage struct {
	Items    []AccessRow `json:"items"`
	Total    int         `json:"total"`
	Page     int         `json:"page"`
	Pages    int         `json:"pages"`
	PageSize int         `json:"page_size"`
}

// AccessLog lists the personal-data access log, newest first (sort oldest
// reverses), filtered by action (one of AccessActions; else invalid / action),
// actor (an actor id), via (one of AccessVias; else invalid / via) and q (a target
// id, or part of an action name). Entries cannot be changed; cleanup deletes them
// after 365 days.
func (s *Service) AccessLog(ctx context.Context, l core.ListQuery, f AccessFilter) (AccessPage, error) {
	if f.Action != "" && !slices.Contains(AccessActions, f.Action) {
		return AccessPage{}, core.Invalid("action")
	}
	if f.Via != "" && !slices.Contains(AccessVias, f.Via) {
		return AccessPage{}, core.Invalid("via")
	}
	rows, total, err := s.DB.Read().ListAccess(ctx, store.AccessFilter{Action: f.Action, Actor: f.Actor, Via: f.Via, Q: l.Q,
		Oldest: l.Sort == "oldest", Limit: l.PageSize, Offset: l.Offset()})
	if err != nil {
		return AccessPage{}, err
	}
	p := AccessPage{Items: []AccessRow{}, Total: total, Page: l.Page, Pages: core.PageCount(total, l.PageSize), PageSize: l.PageSize}
	for _, r := range rows {
		p.Items = append(p.Items, AccessRow{ID: r.ID, Action: r.Action, ActorID: r.ActorID, ActorRole: r.ActorRole, Via: r.Via,
			TargetType: r.TargetType, TargetID: r.TargetID, Count: r.Count, At: r.At.UTC()})
	}
	return p, nil
}
