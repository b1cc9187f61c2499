package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"reviewd/app/media"
	"reviewd/app/media/s3test"
)

// s3Env points the media settings at an in-process S3 server through the
// environment, as an operator would (secrets included).
func s3Env(t *testing.T, srv *s3test.Server, prefix string) media.Store {
	t.Helper()
	cfg := srv.Config(prefix)
	for k, v := range map[string]string{"REVIEWD_MEDIA_STORE": "s3", "REVIEWD_MEDIA_S3_ENDPOINT": cfg.S3.Endpoint,
		"REVIEWD_MEDIA_S3_BUCKET": cfg.S3.Bucket, "REVIEWD_MEDIA_S3_REGION": cfg.S3.Region,
		"REVIEWD_MEDIA_S3_ACCESS_KEY": cfg.S3.AccessKey, "REVIEWD_MEDIA_S3_SECRET_KEY": cfg.S3.SecretKey,
		"REVIEWD_MEDIA_S3_PATH_STYLE": "true", "REVIEWD_MEDIA_S3_PREFIX": prefix, "REVIEWD_MEDIA_PUBLIC_URL": cfg.PublicURL} {
		t.Setenv(k, v)
	}
	st, err := cfg.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBackupWithBucket: with the s3 store the archive says it holds the database
// and a list of the bucket's files; restore compares that list with the bucket
// and names what is missing.
func TestBackupWithBucket(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t, "media")
	st := s3Env(t, srv, "shop")
	dir := t.TempDir()
	mustRun(t, dir, "migrate")
	keys := []string{"m_aaaaaaaaaaaaaaaaaaaa/image.jpg", "m_aaaaaaaaaaaaaaaaaaaa/image-320.jpg", "m_bbbbbbbbbbbbbbbbbbbb/video.mp4"}
	for _, k := range keys {
		body := []byte("content of " + k)
		if err := st.Put(ctx, k, bytes.NewReader(body), int64(len(body))); err != nil {
			t.Fatal(err)
		}
	}
	archive := filepath.Join(t.TempDir(), "b.tar.gz")
	var made struct {
		MediaStore   string `json:"media_store"`
		MediaObjects int    `json:"media_objects"`
		Bucket       string `json:"bucket"`
	}
	mustJSON(t, dir, &made, "backup", "create", archive)
	if made.MediaStore != "s3" || made.MediaObjects != 3 || made.Bucket != "s3://media/shop/" {
		t.Fatalf("backup create: %+v", made)
	}
	if err := st.Delete(ctx, []string{keys[2]}); err != nil {
		t.Fatal(err)
	}
	var restored struct {
		MediaStore   string   `json:"media_store"`
		MediaObjects int      `json:"media_objects"`
		Missing      []string `json:"media_missing"`
	}
	mustJSON(t, filepath.Join(t.TempDir(), "new"), &restored, "backup", "restore", archive)
	if restored.MediaStore != "s3" || restored.MediaObjects != 3 || !slices.Equal(restored.Missing, keys[2:]) {
		t.Fatalf("backup restore: %+v", restored)
	}
	// Restored with the local store configured: the operator is told where the
	// media are.
	t.Setenv("REVIEWD_MEDIA_STORE", "local")
	failRun(t, filepath.Join(t.TempDir(), "other"), "photos and videos are in s3://media/shop/", "backup", "restore", archive)
}

// TestMediaMigrateCommand runs reviewd media migrate both ways over a data folder.
func TestMediaMigrateCommand(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t, "media")
	st := s3Env(t, srv, "")
	dir := t.TempDir()
	mustRun(t, dir, "migrate")
	for _, k := range []string{"m_aaaaaaaaaaaaaaaaaaaa/image.jpg", "m_aaaaaaaaaaaaaaaaaaaa/image-320.jpg"} {
		body := bytes.Repeat([]byte(k), 1000)
		if err := st.Put(ctx, k, bytes.NewReader(body), int64(len(body))); err != nil {
			t.Fatal(err)
		}
	}
	var res struct {
		From, To     string
		Copied       int `json:"copied"`
		AlreadyThere int `json:"already_there"`
		Failed       []string
	}
	mustJSON(t, dir, &res, "media", "migrate", "--to", "local")
	if res.From != "s3" || res.To != "local" || res.Copied != 2 || len(res.Failed) != 0 {
		t.Fatalf("to local: %+v", res)
	}
	list, err := media.LocalStore(filepath.Join(dir, "media")).List(ctx, "")
	if err != nil || len(list) != 2 {
		t.Fatalf("local files %v %v", list, err)
	}
	mustJSON(t, dir, &res, "media", "migrate", "--to", "s3")
	if res.Copied != 0 || res.AlreadyThere != 2 {
		t.Fatalf("to s3 again: %+v", res)
	}
	failRun(t, dir, "--to must be s3 or local", "media", "migrate", "--to", "ftp")
}
