package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// PublicCacheControl is the Cache-Control of public copies: short, so a CDN or a
// browser stops showing a file soon after its review leaves the published state.
const PublicCacheControl = "public, max-age=60"

// S3Store keeps files in an S3-compatible bucket: the files of every item under
// <prefix>media/<id>/<name> (never public), and copies of the files of published
// reviews under <prefix>public/<id>/<name>, the only part of the bucket to make
// readable to everyone (bucket policy or CDN origin).
type S3Store struct {
	c      *s3.Client
	bucket string
	prefix string // media.s3.prefix with a trailing "/", or ""
}

// OpenS3 builds the store of media.s3.*; it does not contact the server.
func OpenS3(ctx context.Context, c S3Config) (*S3Store, error) {
	region := c.Region
	if region == "" {
		region = "us-east-1"
	}
	cfg := aws.Config{Region: region,
		Credentials: credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, "")}
	if c.AccessKey == "" {
		// The usual AWS chain: environment, shared files, instance role.
		var err error
		if cfg, err = awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(region)); err != nil {
			return nil, fmt.Errorf("media: s3: %w", err)
		}
	}
	cli := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = c.PathStyle
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
			// S3-compatible servers differ in checksum support; send them only when required.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	return &S3Store{c: cli, bucket: c.Bucket, prefix: c.KeyPrefix()}, nil
}

// Kind is "s3".
func (*S3Store) Kind() string { return StoreS3 }

// PublicCopies is true: published items have copies under public/.
func (*S3Store) PublicCopies() bool { return true }

// Bucket is the bucket name.
func (s *S3Store) Bucket() string { return s.bucket }

// ObjectKey is the bucket key of a stored file (with the prefix).
func (s *S3Store) ObjectKey(key string) string { return s.prefix + "media/" + key }

// PublicKey is the bucket key of the public copy of a stored file.
func (s *S3Store) PublicKey(key string) string { return s.prefix + "public/" + key }

func notFound(err error) bool {
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == 404 {
		return true
	}
	var nk *s3types.NoSuchKey
	var nf *s3types.NotFound
	return errors.As(err, &nk) || errors.As(err, &nf)
}

// PutFile uploads src and removes it once the bucket answered the upload.
func (s *S3Store) PutFile(ctx context.Context, key, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil {
		err = s.Put(ctx, key, f, st.Size())
	}
	f.Close()
	if err != nil {
		return err
	}
	return os.Remove(src)
}

// Put uploads size bytes of r (a single PUT; S3 takes up to 5 GB that way, far
// above the 200 MB video limit).
func (s *S3Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	var start int64
	body, ok := r.(io.ReadSeeker)
	if ok {
		var err error
		if start, err = body.Seek(0, io.SeekCurrent); err != nil {
			return err
		}
	} else {
		// The request is signed over its body: spool a stream to a file first.
		tmp, err := os.CreateTemp("", "reviewd-put-*")
		if err != nil {
			return err
		}
		defer func() { tmp.Close(); os.Remove(tmp.Name()) }()
		if _, err := io.Copy(tmp, r); err != nil {
			return err
		}
		body = tmp
	}
	_, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: aws.String(s.ObjectKey(key)),
		Body: io.NewSectionReader(readerAt{body}, start, size), ContentLength: aws.Int64(size),
		ContentType: aws.String(ContentType(key))})
	if err != nil {
		return fmt.Errorf("media: s3 put %s: %w", key, err)
	}
	return nil
}

// readerAt reads at an offset through Seek (the files given to Put are not read
// concurrently).
type readerAt struct{ r io.ReadSeeker }

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := r.r.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(r.r, p)
}

// Open reads the object's size and entity tag; reads are ranged GETs from the
// current offset, so http.ServeContent answers Range requests without fetching
// the whole file.
func (s *S3Store) Open(ctx context.Context, key string) (Object, error) {
	if checkKey(key) != nil {
		return nil, ErrNoObject
	}
	return s.open(ctx, s.ObjectKey(key), key)
}

func (s *S3Store) open(ctx context.Context, bucketKey, key string) (Object, error) {
	h, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(bucketKey)})
	if notFound(err) {
		return nil, ErrNoObject
	}
	if err != nil {
		return nil, fmt.Errorf("media: s3 head %s: %w", key, err)
	}
	return &s3Object{ctx: ctx, s: s, key: bucketKey, info: ObjectInfo{Key: key, Size: aws.ToInt64(h.ContentLength),
		ModTime: aws.ToTime(h.LastModified), ETag: aws.ToString(h.ETag)}}, nil
}

type s3Object struct {
	ctx  context.Context
	s    *S3Store
	key  string
	info ObjectInfo
	pos  int64
	body io.ReadCloser
}

func (o *s3Object) Info() ObjectInfo { return o.info }

func (o *s3Object) Read(p []byte) (int, error) {
	if o.pos >= o.info.Size {
		return 0, io.EOF
	}
	if o.body == nil {
		out, err := o.s.c.GetObject(o.ctx, &s3.GetObjectInput{Bucket: &o.s.bucket, Key: aws.String(o.key),
			Range: aws.String(fmt.Sprintf("bytes=%d-", o.pos)), IfMatch: nilIfEmpty(o.info.ETag)})
		if err != nil {
			return 0, fmt.Errorf("media: s3 get %s: %w", o.info.Key, err)
		}
		o.body = out.Body
	}
	n, err := o.body.Read(p)
	o.pos += int64(n)
	if err == io.EOF && o.pos < o.info.Size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	var to int64
	switch whence {
	case io.SeekStart:
		to = offset
	case io.SeekCurrent:
		to = o.pos + offset
	case io.SeekEnd:
		to = o.info.Size + offset
	}
	if to < 0 {
		return 0, errors.New("media: seek before the start")
	}
	if to != o.pos && o.body != nil {
		o.body.Close()
		o.body = nil
	}
	o.pos = to
	return to, nil
}

func (o *s3Object) Close() error {
	if o.body != nil {
		err := o.body.Close()
		o.body = nil
		return err
	}
	return nil
}

// List lists the stored files under prefix.
func (s *S3Store) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	return s.list(ctx, s.prefix+"media/", prefix)
}

// ListPublic lists the public copies.
func (s *S3Store) ListPublic(ctx context.Context) ([]ObjectInfo, error) {
	return s.list(ctx, s.prefix+"public/", "")
}

func (s *S3Store) list(ctx context.Context, base, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(base + prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("media: s3 list %s: %w", base+prefix, err)
		}
		for _, obj := range page.Contents {
			key := strings.TrimPrefix(aws.ToString(obj.Key), base)
			if _, _, ok := SplitKey(key); !ok {
				continue
			}
			out = append(out, ObjectInfo{Key: key, Size: aws.ToInt64(obj.Size), ModTime: aws.ToTime(obj.LastModified),
				ETag: aws.ToString(obj.ETag)})
		}
	}
	return out, nil
}

// Delete removes stored files (and not their public copies: see Unpublish).
func (s *S3Store) Delete(ctx context.Context, keys []string) error {
	full := make([]string, 0, len(keys))
	for _, k := range keys {
		if checkKey(k) == nil {
			full = append(full, s.ObjectKey(k))
		}
	}
	return s.deleteKeys(ctx, full)
}

func (s *S3Store) deleteKeys(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000) // DeleteObjects takes at most 1,000 keys
		ids := make([]s3types.ObjectIdentifier, 0, n)
		for _, k := range keys[:n] {
			ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(k)})
		}
		keys = keys[n:]
		out, err := s.c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &s.bucket,
			Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("media: s3 delete: %w", err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("media: s3 delete %s: %s %s", aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
	}
	return nil
}

// Publish copies the files inside the bucket to the public prefix with a short
// Cache-Control; the copies keep the content, so their ETags stay the same over
// hide and publish again.
func (s *S3Store) Publish(ctx context.Context, id string, names []string) error {
	for _, n := range names {
		key := Key(id, n)
		if err := checkKey(key); err != nil {
			return err
		}
		_, err := s.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &s.bucket, Key: aws.String(s.PublicKey(key)),
			CopySource:        aws.String(url.PathEscape(s.bucket) + "/" + escapeKey(s.ObjectKey(key))),
			MetadataDirective: s3types.MetadataDirectiveReplace,
			ContentType:       aws.String(ContentType(n)), CacheControl: aws.String(PublicCacheControl)})
		if err != nil {
			return fmt.Errorf("media: s3 publish %s: %w", key, err)
		}
	}
	return nil
}

func escapeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// Unpublish deletes every public copy of the item.
func (s *S3Store) Unpublish(ctx context.Context, id string) error {
	if validBase(id) != nil {
		return nil
	}
	list, err := s.list(ctx, s.prefix+"public/", id+"/")
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(list))
	for _, o := range list {
		keys = append(keys, s.PublicKey(o.Key))
	}
	return s.deleteKeys(ctx, keys)
}

// UnpublishKeys deletes the given public copies ("<id>/<name>" keys).
func (s *S3Store) UnpublishKeys(ctx context.Context, keys []string) error {
	full := make([]string, 0, len(keys))
	for _, k := range keys {
		if checkKey(k) == nil {
			full = append(full, s.PublicKey(k))
		}
	}
	return s.deleteKeys(ctx, full)
}
