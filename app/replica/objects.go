package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/benbjohnson/litestream"
	lsfile "github.com/benbjohnson/litestream/file"
	lss3 "github.com/benbjohnson/litestream/s3"
)

// Names of what reviewd keeps beside Litestream's ltx/ tree in the replica.
const (
	mediaPrefix = "media/"
	keyObject   = "secret.key"
)

// objects is the small object-store surface the media mirror needs: names are
// slash-separated and relative to the replica's root.
type objects interface {
	// list returns every object under prefix with its size.
	list(ctx context.Context, prefix string) (map[string]int64, error)
	put(ctx context.Context, name string, f *os.File, size int64) error
	get(ctx context.Context, name string) (io.ReadCloser, error)
	remove(ctx context.Context, names []string) error
}

// errNoObject is what get returns for a missing object.
var errNoObject = errors.New("replica: no such object")

// target is one opened replica location: the Litestream client for the database and
// the object store for the rest.
type target struct {
	loc     location
	client  litestream.ReplicaClient
	objects objects
}

func openTarget(ctx context.Context, c Config) (*target, error) {
	loc, err := parseURL(c.URL)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	t := &target{loc: loc}
	switch loc.kind {
	case "file":
		if err := os.MkdirAll(loc.dir, 0o750); err != nil {
			return nil, fmt.Errorf("replica: %w", err)
		}
		t.client = lsfile.NewReplicaClient(loc.dir)
		t.objects = dirObjects(loc.dir)
	case "s3":
		region := c.Region
		if region == "" {
			region = "us-east-1"
		}
		lc := lss3.NewReplicaClient()
		lc.Bucket, lc.Path, lc.Region = loc.bucket, loc.prefix, region
		lc.AccessKeyID, lc.SecretAccessKey = c.AccessKeyID, c.SecretAccessKey
		if c.Endpoint != "" {
			lc.Endpoint, lc.ForcePathStyle = c.Endpoint, true
		}
		t.client = lc
		cfg := aws.Config{Region: region,
			Credentials: credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")}
		if c.AccessKeyID == "" {
			// The usual AWS chain: environment, shared files, instance role.
			if cfg, err = awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(region)); err != nil {
				return nil, fmt.Errorf("replica: %w", err)
			}
		}
		cli := s3.NewFromConfig(cfg, func(o *s3.Options) {
			if c.Endpoint != "" {
				o.BaseEndpoint = aws.String(c.Endpoint)
				o.UsePathStyle = true
				// S3-compatible servers differ in checksum support; send them only when required.
				o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
				o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
			}
		})
		t.objects = &s3Objects{c: cli, bucket: loc.bucket, prefix: loc.prefix}
	}
	if err := t.client.Init(ctx); err != nil {
		return nil, fmt.Errorf("replica: %s: %w", loc, err)
	}
	return t, nil
}

// dirObjects keeps objects as files under a folder.
type dirObjects string

func (d dirObjects) path(name string) string {
	return filepath.Join(string(d), filepath.FromSlash(name))
}

func (d dirObjects) list(_ context.Context, prefix string) (map[string]int64, error) {
	out := map[string]int64{}
	root := d.path(prefix)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		rel, err := filepath.Rel(string(d), p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = info.Size()
		return nil
	})
	return out, err
}

func (d dirObjects) put(_ context.Context, name string, f *os.File, _ int64) error {
	dst := d.path(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".put-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, f)
	if err = errors.Join(err, tmp.Sync(), tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func (d dirObjects) get(_ context.Context, name string) (io.ReadCloser, error) {
	f, err := os.Open(d.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoObject
	}
	return f, err
}

func (d dirObjects) remove(_ context.Context, names []string) error {
	var errs []error
	for _, n := range names {
		if err := os.Remove(d.path(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// s3Objects keeps objects in a bucket under a key prefix.
type s3Objects struct {
	c      *s3.Client
	bucket string
	prefix string
}

func (o *s3Objects) key(name string) string {
	if o.prefix == "" {
		return name
	}
	return o.prefix + "/" + name
}

func (o *s3Objects) list(ctx context.Context, prefix string) (map[string]int64, error) {
	out := map[string]int64{}
	p := s3.NewListObjectsV2Paginator(o.c, &s3.ListObjectsV2Input{Bucket: &o.bucket, Prefix: aws.String(o.key(prefix))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("replica: list %s: %w", prefix, err)
		}
		for _, obj := range page.Contents {
			name := aws.ToString(obj.Key)
			if o.prefix != "" {
				name = strings.TrimPrefix(name, o.prefix+"/")
			}
			out[name] = aws.ToInt64(obj.Size)
		}
	}
	return out, nil
}

func (o *s3Objects) put(ctx context.Context, name string, f *os.File, size int64) error {
	_, err := o.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &o.bucket, Key: aws.String(o.key(name)),
		Body: io.NewSectionReader(f, 0, size), ContentLength: aws.Int64(size)})
	if err != nil {
		return fmt.Errorf("replica: put %s: %w", name, err)
	}
	return nil
}

func (o *s3Objects) get(ctx context.Context, name string) (io.ReadCloser, error) {
	out, err := o.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &o.bucket, Key: aws.String(o.key(name))})
	var nk *s3types.NoSuchKey
	if errors.As(err, &nk) {
		return nil, errNoObject
	}
	if err != nil {
		return nil, fmt.Errorf("replica: get %s: %w", name, err)
	}
	return out.Body, nil
}

func (o *s3Objects) remove(ctx context.Context, names []string) error {
	for len(names) > 0 {
		n := min(len(names), 1000) // DeleteObjects takes at most 1,000 keys
		var ids []s3types.ObjectIdentifier
		for _, name := range names[:n] {
			ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(o.key(name))})
		}
		names = names[n:]
		if _, err := o.c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &o.bucket, Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}}); err != nil {
			return fmt.Errorf("replica: delete: %w", err)
		}
	}
	return nil
}

// objectName turns a path relative to the data folder into an object name.
func objectName(rel string) string { return path.Clean(filepath.ToSlash(rel)) }
