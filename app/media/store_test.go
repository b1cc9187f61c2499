package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"reviewd/app/media"
	"reviewd/app/media/s3test"
)

// stores runs fn against the local store and the s3 store on an in-process S3
// server; publicGet fetches a public copy's address (nil for the local store,
// whose public address is reviewd's own route).
func stores(t *testing.T, fn func(t *testing.T, s media.Store, publicGet func(key string) int)) {
	t.Run("local", func(t *testing.T) {
		fn(t, media.LocalStore(t.TempDir()), nil)
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t, "media")
		cfg := srv.Config("shop/")
		s, err := cfg.Open(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		fn(t, s, func(key string) int {
			res, err := http.Get(cfg.PublicURL + "/" + key)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res.StatusCode
		})
	})
}

func TestStore(t *testing.T) {
	stores(t, func(t *testing.T, s media.Store, publicGet func(string) int) {
		ctx := context.Background()
		stage := t.TempDir()
		body := bytes.Repeat([]byte("0123456789"), 10_000)
		src := filepath.Join(stage, "full.jpg")
		if err := os.WriteFile(src, body, 0o640); err != nil {
			t.Fatal(err)
		}
		key := media.Key("m_aaaaaaaaaaaaaaaaaaaa", "full.jpg")
		if err := s.PutFile(ctx, key, src); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the staged file stays after the store confirmed: %v", err)
		}
		if err := s.Put(ctx, media.Key("m_aaaaaaaaaaaaaaaaaaaa", "w320.jpg"), bytes.NewReader([]byte("small")), 5); err != nil {
			t.Fatal(err)
		}
		o, err := s.Open(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if o.Info().Size != int64(len(body)) {
			t.Errorf("size %d, want %d", o.Info().Size, len(body))
		}
		// A ranged read after a seek, as http.ServeContent does.
		if _, err := o.Seek(99_990, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		tail, err := io.ReadAll(o)
		if err != nil || string(tail) != "0123456789" {
			t.Errorf("ranged read %q %v", tail, err)
		}
		if _, err := o.Seek(5, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 3)
		if _, err := io.ReadFull(o, b); err != nil || string(b) != "567" {
			t.Errorf("read after seeking back %q %v", b, err)
		}
		o.Close()
		list, err := s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, o := range list {
			keys = append(keys, o.Key)
		}
		slices.Sort(keys)
		if want := []string{key, "m_aaaaaaaaaaaaaaaaaaaa/w320.jpg"}; !slices.Equal(keys, want) {
			t.Errorf("list %v, want %v", keys, want)
		}
		if _, err := s.Open(ctx, media.Key("m_bbbbbbbbbbbbbbbbbbbb", "full.jpg")); !errors.Is(err, media.ErrNoObject) {
			t.Errorf("missing key: %v", err)
		}

		if err := s.Publish(ctx, "m_aaaaaaaaaaaaaaaaaaaa", []string{"full.jpg", "w320.jpg"}); err != nil {
			t.Fatal(err)
		}
		if publicGet != nil {
			if code := publicGet(key); code != http.StatusOK {
				t.Errorf("published copy answers %d", code)
			}
		}
		if err := s.Unpublish(ctx, "m_aaaaaaaaaaaaaaaaaaaa"); err != nil {
			t.Fatal(err)
		}
		if publicGet != nil {
			if code := publicGet(key); code != http.StatusNotFound && code != http.StatusForbidden {
				t.Errorf("unpublished copy answers %d", code)
			}
		}
		if err := s.Publish(ctx, "m_aaaaaaaaaaaaaaaaaaaa", []string{"full.jpg"}); err != nil {
			t.Fatal(err)
		}
		if err := media.DeleteItem(ctx, s, "m_aaaaaaaaaaaaaaaaaaaa"); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.List(ctx, ""); len(list) != 0 {
			t.Errorf("after DeleteItem the store holds %v", list)
		}
		if pub, _ := s.ListPublic(ctx); len(pub) != 0 {
			t.Errorf("after DeleteItem public copies stay: %v", pub)
		}
		if publicGet != nil {
			if code := publicGet(key); code != http.StatusNotFound && code != http.StatusForbidden {
				t.Errorf("deleted item's public address answers %d", code)
			}
		}
	})
}
