package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"reviewd/app/core/brandexport"
	"reviewd/app/core/golive"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// Cleanup is the retention job: expired panel sessions, used or expired
// set-password links, access-log entries older
// than 365 days and job-run records older than 90 days are deleted, and uploads
// never attached to a review once they are a day old or can no longer be attached;
// then the media store is reconciled with the database (orphaned and staged files,
// public copies of what is not published). Then it mails the owners the owner
// alerts holding (at most once a day per kind, golive.MailAlerts).
type Cleanup struct {
	DB      *store.DB
	Reviews *reviews.Service // nil: uploads are left alone
	// Exports deletes expired brand archives (nil: left alone).
	Exports *brandexport.Service
	// Alerts mails the owner alerts (nil: not mailed).
	Alerts *golive.Service
}

// Name is the job name.
func (Cleanup) Name() string { return "cleanup" }

// Run deletes what is past its retention at now.
func (j Cleanup) Run(ctx context.Context, now time.Time) (string, error) {
	var sessions, links, access, runs int64
	err := j.DB.WithTx(ctx, func(tx *store.Tx) error {
		tx.Now = now
		var err error
		if sessions, err = tx.DeleteExpiredSessions(ctx); err != nil {
			return err
		}
		if links, err = tx.DeleteSpentPasswordLinks(ctx); err != nil {
			return err
		}
		if access, err = tx.DeleteAccessBefore(ctx, now.AddDate(0, 0, -365)); err != nil {
			return err
		}
		if runs, err = tx.DeleteJobRunsBefore(ctx, now.AddDate(0, 0, -90)); err != nil {
			return err
		}
		_, err = tx.DeleteVoteIPsBefore(ctx, now.AddDate(0, 0, -2))
		return err
	})
	if err != nil {
		return "", err
	}
	var uploads int
	var rec reviews.MediaReconcile
	if j.Reviews != nil {
		if uploads, err = j.Reviews.RemoveStaleUploads(ctx, now); err == nil {
			rec, err = j.Reviews.ReconcileMedia(ctx, now)
		}
	}
	var exports int
	if j.Exports != nil && err == nil {
		exports, err = j.Exports.RemoveExpired(ctx, now)
	}
	detail := fmt.Sprintf("sessions=%d password_links=%d access_log=%d job_runs=%d unattached_uploads=%d brand_exports=%d %s", sessions, links, access, runs,
		uploads, exports, rec)
	if j.Alerts != nil && err == nil {
		var mailed []string
		mailed, err = j.Alerts.MailAlerts(ctx, now)
		if len(mailed) > 0 {
			detail += " owner_alerts_mailed=" + strings.Join(mailed, ",")
		}
	}
	return detail, err
}

// Idle is a job whose work arrives with a later part of reviewd; it is listed and
// runnable and reports that it had nothing to do.
type Idle struct{ JobName string }

// Name is the job name.
func (j Idle) Name() string { return j.JobName }

// Run does nothing.
func (Idle) Run(context.Context, time.Time) (string, error) { return "nothing to do", nil }
