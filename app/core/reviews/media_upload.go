package reviews

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/media"
	"reviewd/store"
)

// Media upload limits (spec 2, "Media upload" and "Limits").
const (
	// MaxUnattachedPerLine is how many uploads of one order line may wait
	// unattached to a review.
	MaxUnattachedPerLine = 18
	// MaxUploadBody is the largest POST /v1/media request body: the video limit plus
	// room for the multipart envelope. Larger bodies answer 413 refused /
	// too_large: 200.
	MaxUploadBody = media.VideoMaxBytes + 1<<20
	// mediaClaim is how long the media job holds a claimed upload.
	mediaClaim = 15 * time.Minute
	// mediaMaxAttempts is how often an upload is tried when processing fails for a
	// reason other than the file (disk, tools crashing).
	mediaMaxAttempts = 3
	incomingDir      = "incoming"
)

// ErrBodyTooLarge is 413 refused / too_large: 200 for an upload body over
// MaxUploadBody.
var ErrBodyTooLarge = core.E(core.StatusRequestEntityTooLarge, "refused", "too_large: "+strconv.Itoa(media.VideoMaxBytes>>20))

// refusalOf turns a media library refusal into the spec's answer.
func refusalOf(r *media.Refusal) *core.Error { return core.E(r.Status(), r.Code(), r.Detail()) }

// NewMediaID returns a new public media id (m_<20 base32>).
func NewMediaID() string { return core.NewPublicID("m_") }

func validMediaID(s string) bool {
	if len(s) != 22 || !strings.HasPrefix(s, "m_") {
		return false
	}
	for _, r := range s[2:] {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// Upload is one received file, waiting in media/incoming until UploadMedia keeps or
// discards it.
type Upload struct {
	path    string
	Size    int64
	Type    string // jpeg, png, webp, mp4 or mov (by content)
	refusal error  // type_not_allowed or too_large found while receiving
}

// Discard deletes the received file (safe to call twice).
func (u *Upload) Discard() {
	if u != nil && u.path != "" {
		_ = os.Remove(u.path)
		u.path = ""
	}
}

// ReceiveUpload streams one uploaded file into media/incoming. The type is decided
// by content (media.Sniff), never by name: a type that is not allowed, or a file
// over its type's size limit, is not kept and is refused by UploadMedia (400
// type_not_allowed: <type>, too_large: 12 | 200). A read error (the request body
// over its limit, a broken connection) is returned wrapped.
func (c *Service) ReceiveUpload(r io.Reader) (*Upload, error) {
	dir := filepath.Join(c.MediaDir, incomingDir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("core: media folder: %w", err)
	}
	head := make([]byte, media.SniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("core: receive upload: %w", err)
	}
	head = head[:n]
	typ, _, ok := media.Sniff(head)
	if !ok {
		return &Upload{Type: typ, refusal: refusalOf(media.TypeNotAllowed(typ))}, nil
	}
	f, err := os.CreateTemp(dir, ".upload-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("core: receive upload: %w", err)
	}
	u := &Upload{path: f.Name(), Type: typ}
	limit := media.MaxBytes(typ)
	written, err := io.Copy(f, io.LimitReader(io.MultiReader(bytes.NewReader(head), r), limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		u.Discard()
		return nil, fmt.Errorf("core: receive upload: %w", err)
	}
	u.Size = written
	if sizeErr := media.CheckSize(typ, written); sizeErr != nil {
		u.Discard()
		r, _ := media.AsRefusal(sizeErr)
		u.refusal = refusalOf(r)
	}
	return u, nil
}

// UploadInput is one POST /v1/media request.
type UploadInput struct {
	Token         string
	LineReference string
	File          *Upload // nil when the request had no file
}

// Uploaded is the answer of POST /v1/media; it carries no file address.
type Uploaded struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

// UploadMedia keeps a received photo or video for a line of a writing token (any
// kind; a correction token for its review's line). Checks in order: 401
// token_required; token_refused / <detail> (line_out_of_scope,
// line_already_written); invalid / line_reference_required, file_required; refused
// / type_not_allowed: <type>, too_large: <MB>; refused / too_many_items: 18 (18
// unattached uploads of the line wait already); the clamd scan when configured
// (422 quarantined: the file is deleted, never stored; 422 scan_failed); for photos
// the header (422 image_unreadable, image_too_large); for videos ffprobe's limits
// when the video is readable now (422 video_*; an unreadable video is accepted and
// refused during processing). The kept file waits for the media job.
func (c *Service) UploadMedia(ctx context.Context, a *core.Actor, site store.Channel, in UploadInput) (Uploaded, error) {
	defer in.File.Discard()
	v, line, err := c.uploadScope(ctx, site, in.Token, in.LineReference)
	if err != nil {
		return Uploaded{}, err
	}
	if in.File == nil {
		return Uploaded{}, core.Invalid("file_required")
	}
	if in.File.refusal != nil {
		return Uploaded{}, in.File.refusal
	}
	if err := c.checkUpload(ctx, in.File); err != nil {
		return Uploaded{}, err
	}
	id := NewMediaID()
	final := filepath.Join(c.MediaDir, incomingDir, id+"."+in.File.Type)
	if err := os.Rename(in.File.path, final); err != nil {
		return Uploaded{}, fmt.Errorf("core: keep upload: %w", err)
	}
	in.File.path = final
	m := store.Media{PublicID: id, OrderID: v.Order.ID, LineID: line.ID, Kind: media.KindOf(in.File.Type),
		Type: in.File.Type, State: store.MediaUploaded, Bytes: in.File.Size}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		n, err := tx.CountUnattachedMedia(ctx, line.ID)
		if err != nil {
			return err
		}
		if n >= MaxUnattachedPerLine {
			return errTooManyUploads
		}
		m, err = tx.CreateMedia(ctx, m)
		return err
	})
	if err != nil {
		return Uploaded{}, err
	}
	in.File.path = "" // kept: the media job owns it now
	return Uploaded{ID: m.PublicID, Kind: m.Kind, State: m.State}, nil
}

// checkUpload scans a received file and checks what can be checked at upload.
func (c *Service) checkUpload(ctx context.Context, u *Upload) error {
	if c.Scanner.Enabled() {
		f, err := os.Open(u.path)
		if err != nil {
			return fmt.Errorf("core: scan upload: %w", err)
		}
		err = c.Scanner.Scan(ctx, f)
		f.Close()
		if r, ok := media.AsRefusal(err); ok {
			if errors.Is(err, media.ErrScanFailed) {
				c.Log.Warn("media scan failed", "err", err)
			}
			return refusalOf(r)
		}
		if err != nil {
			return err
		}
	}
	if !media.IsVideo(u.Type) {
		src, err := os.ReadFile(u.path)
		if err != nil {
			return fmt.Errorf("core: read upload: %w", err)
		}
		if _, _, err := media.ImageSize(src); err != nil {
			if r, ok := media.AsRefusal(err); ok {
				return refusalOf(r)
			}
			return err
		}
		return nil
	}
	_, err := c.Probe.Check(ctx, u.path)
	switch r, ok := media.AsRefusal(err); {
	case err == nil, errors.Is(err, media.ErrToolMissing), errors.Is(err, media.ErrVideoUnreadable):
		// Not readable now (or no ffprobe here): processing decides.
		return nil
	case ok:
		return refusalOf(r)
	default:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.Log.Warn("video probe failed at upload", "err", err)
		return nil
	}
}

// MediaFile is an opened stored media file ready to be served (with
// http.ServeContent, which answers Range requests through Seek).
type MediaFile struct {
	media.Object
	Name        string
	ModTime     time.Time
	ContentType string
	// ETag is the store's entity tag ("" for the local store).
	ETag string
	// Product is the variant key of the file's review (public files only).
	Product string
}

// openMediaFile opens a file of a ready media item from the store; ErrNotFound
// when it is not one of the item's files.
func (c *Service) openMediaFile(ctx context.Context, m store.Media, name string) (*MediaFile, error) {
	if m.State != store.MediaReady || !validMediaID(m.PublicID) || !readmodel.ParseMediaFiles(m.Files).Has(name) ||
		name != path.Base(name) || strings.HasPrefix(name, ".") {
		return nil, store.ErrNotFound
	}
	o, err := c.mediaStore().Open(ctx, media.Key(m.PublicID, name))
	if errors.Is(err, media.ErrNoObject) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	info := o.Info()
	return &MediaFile{Object: o, Name: name, ModTime: info.ModTime, ContentType: media.ContentType(name), ETag: info.ETag}, nil
}

// OpenPublicMedia opens a file of a media item for the public address: only while
// the file is ready and its review is published; ErrNotFound otherwise. The caller
// closes the file.
func (c *Service) OpenPublicMedia(ctx context.Context, mediaID, name string) (*MediaFile, error) {
	if !validMediaID(mediaID) {
		return nil, store.ErrNotFound
	}
	q := c.DB.Read()
	m, err := q.MediaByPublicID(ctx, mediaID)
	if err != nil {
		return nil, err
	}
	if m.ReviewID == 0 {
		return nil, store.ErrNotFound
	}
	r, err := q.ReviewByID(ctx, m.ReviewID)
	if err != nil {
		return nil, err
	}
	if r.State != core.ReviewPublished {
		return nil, store.ErrNotFound
	}
	f, err := c.openMediaFile(ctx, m, name)
	if f != nil {
		f.Product = r.VariantKey
	}
	return f, err
}

// OpenReviewMedia opens a file of a review's media item whatever the review's state
// (the admin media endpoint); another review's file is ErrNotFound.
func (c *Service) OpenReviewMedia(ctx context.Context, reviewPublicID, mediaID, name string) (*MediaFile, error) {
	if !validMediaID(mediaID) {
		return nil, store.ErrNotFound
	}
	q := c.DB.Read()
	r, err := q.ReviewByPublicID(ctx, reviewPublicID)
	if err != nil {
		return nil, err
	}
	m, err := q.MediaByPublicID(ctx, mediaID)
	if err != nil {
		return nil, err
	}
	if m.ReviewID != r.ID {
		return nil, store.ErrNotFound
	}
	return c.openMediaFile(ctx, m, name)
}

// MediaRun is the summary of one media job run.
type MediaRun struct {
	Ready, Failed, Retried int
	ToolMissing            bool
	// StoreFailed is set when the media store refused a write: the run stops and
	// the upload waits, staged, for the next run.
	StoreFailed bool
}

func (r MediaRun) String() string {
	s := fmt.Sprintf("ready=%d failed=%d retried=%d", r.Ready, r.Failed, r.Retried)
	if r.ToolMissing {
		s += " ffmpeg_missing"
	}
	if r.StoreFailed {
		s += " store_failed"
	}
	return s
}

// ProcessMedia is the media job: it claims waiting uploads one at a time (an atomic
// UPDATE, so parallel runners never take the same file) and prepares them: photos
// become metadata-free JPEGs with 320/640/1280 px renditions, videos are remuxed
// without metadata with a poster image. A file the library refuses is failed with
// its refusal detail (processing_failed, video_too_long: 60, ...) and never shown.
// Other failures are retried up to 3 times. Without ffmpeg a video waits. At most
// max items are done per run.
func (c *Service) ProcessMedia(ctx context.Context, now time.Time, max int) (MediaRun, error) {
	var run MediaRun
	abandoned, err := c.failAbandonedMedia(ctx, now)
	if err != nil {
		return run, err
	}
	run.Failed = abandoned
	for i := 0; i < max; i++ {
		var m store.Media
		var ok bool
		err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			tx.Now = now
			var err error
			m, ok, err = tx.ClaimMedia(ctx, now.Add(mediaClaim))
			return err
		})
		if err != nil || !ok {
			return run, err
		}
		if err := c.processOne(ctx, now, m, &run); err != nil {
			return run, err
		}
		if run.ToolMissing || run.StoreFailed || ctx.Err() != nil {
			return run, ctx.Err()
		}
	}
	return run, nil
}

func (c *Service) processOne(ctx context.Context, now time.Time, m store.Media, run *MediaRun) error {
	src := filepath.Join(c.MediaDir, incomingDir, m.PublicID+"."+m.Type)
	// Processed files are made in the staging folder and then moved into the
	// store; the upload itself stays staged until the row says ready, so a crash
	// at any step leaves a row the job claims again (or the cleanup job removes).
	outDir := stagedOutput(c.MediaDir, m.PublicID)
	defer os.RemoveAll(outDir)
	files, w, h, dur, err := c.prepare(ctx, m, src, outDir)
	if err == nil {
		if err = c.storeFiles(ctx, m.PublicID, outDir, files.Names()); err != nil {
			// The store is unreachable: the upload stays staged and waits (no
			// attempt is counted), however long the outage lasts.
			c.Log.Warn("media: the store refused a write; the upload waits for the next run", "media", m.PublicID, "err", err)
			run.StoreFailed = true
			return c.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
				tx.Now = now
				return tx.ReleaseMedia(ctx, m.ID)
			})
		}
	}
	tx := func(fn func(tx *store.Tx) error) error {
		return c.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
			tx.Now = now
			return fn(tx)
		})
	}
	refusal, refused := media.AsRefusal(err)
	switch {
	case err == nil:
		raw, _ := json.Marshal(files)
		var stored bool
		if err := tx(func(tx *store.Tx) error {
			var err error
			stored, err = tx.FinishMedia(ctx, m.ID, store.MediaDone{Width: w, Height: h, DurationMs: dur, Files: string(raw)})
			if err != nil || !stored || m.ReviewID == 0 {
				return err
			}
			return c.afterReviewStateChange(ctx, tx, m.ReviewID)
		}); err != nil {
			return err
		}
		if !stored {
			// Removed while it was processed.
			c.DeleteMediaFiles(m.PublicID)
		}
		_ = os.Remove(src)
		run.Ready++
	case refused:
		detail := refusal.Detail()
		if m.Kind != media.KindVideo {
			// Photos are checked in full at upload; whatever fails later is
			// processing_failed (spec 2: "also images over 40 megapixels").
			detail = media.ErrProcessingFailed.Detail()
		}
		if err := tx(func(tx *store.Tx) error { return tx.FailMedia(ctx, m.ID, detail) }); err != nil {
			return err
		}
		_ = os.Remove(src)
		run.Failed++
	case errors.Is(err, media.ErrToolMissing), ctx.Err() != nil:
		run.ToolMissing = errors.Is(err, media.ErrToolMissing)
		if run.ToolMissing {
			c.Log.Warn("media: video waits, ffmpeg or ffprobe not found", "media", m.PublicID)
		}
		return tx(func(tx *store.Tx) error { return tx.ReleaseMedia(ctx, m.ID) })
	default:
		c.Log.Warn("media processing failed", "media", m.PublicID, "attempt", m.Attempts, "err", err)
		if m.Attempts >= mediaMaxAttempts {
			if err := tx(func(tx *store.Tx) error { return tx.FailMedia(ctx, m.ID, media.ErrProcessingFailed.Detail()) }); err != nil {
				return err
			}
			c.DeleteMediaFiles(m.PublicID) // files stored before the last failure
			run.Failed++
			return nil
		}
		run.Retried++
		return tx(func(tx *store.Tx) error { return tx.ReleaseMedia(ctx, m.ID) })
	}
	return nil
}

// prepare writes the processed files of one upload into outDir.
func (c *Service) prepare(ctx context.Context, m store.Media, src, outDir string) (readmodel.MediaFiles, int, int, int64, error) {
	var f readmodel.MediaFiles
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return f, 0, 0, 0, media.ErrProcessingFailed
	}
	if err := os.MkdirAll(outDir, 0o750); err != nil {
		return f, 0, 0, 0, err
	}
	if m.Kind == media.KindVideo {
		res, err := c.Probe.Process(ctx, src, outDir, "video")
		if err != nil {
			return f, 0, 0, 0, err
		}
		f.Main = res.File.Name
		if len(res.Poster.Files) > 0 {
			f.Poster, f.PosterWidth = res.Poster.Files[0].Name, res.Poster.Files[0].Width
			for _, r := range res.Poster.Files[1:] {
				f.PosterRenditions = append(f.PosterRenditions, readmodel.Rendition{Width: r.Width, Name: r.Name})
			}
		}
		return f, res.Width, res.Height, res.Duration.Milliseconds(), nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return f, 0, 0, 0, err
	}
	res, err := media.ProcessImage(ctx, data, outDir, "image")
	if err != nil {
		return f, 0, 0, 0, err
	}
	f.Main = res.Files[0].Name
	for _, r := range res.Files[1:] {
		f.Renditions = append(f.Renditions, readmodel.Rendition{Width: r.Width, Name: r.Name})
	}
	return f, res.Width, res.Height, 0, nil
}
