package app_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"reviewd/app"
)

func examplePath(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "config.example.yaml")
}

// load wires viper the way the commands do: defaults, REVIEWD_ environment, an
// optional YAML file and flags set last.
func load(t *testing.T, file string, flags map[string]string) (app.Config, error) {
	t.Helper()
	v := viper.New()
	app.Defaults(v)
	v.SetEnvPrefix("REVIEWD")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			t.Fatal(err)
		}
	}
	for k, val := range flags {
		v.Set(k, val)
	}
	return app.Load(v)
}

func writeYAML(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "reviewd.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigExample loads config.example.yaml exactly (unknown keys fail) and checks
// that it documents every key with its default.
func TestConfigExample(t *testing.T) {
	fromExample, err := load(t, examplePath(t), nil)
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	defaults, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromExample, defaults) {
		t.Fatalf("config.example.yaml differs from the defaults:\n%+v\n%+v", fromExample, defaults)
	}
	if defaults.Listen != "127.0.0.1:8080" || defaults.PublicURL != "http://127.0.0.1:8080" || defaults.DataDir != "./data" ||
		defaults.SMTP.Security != "starttls" || !defaults.Jobs.Enabled || defaults.Log.Level != "info" || defaults.Log.Format != "text" {
		t.Fatalf("defaults = %+v", defaults)
	}

	// Every key with a default appears in the example, and nothing else.
	file := viper.New()
	file.SetConfigFile(examplePath(t))
	if err := file.ReadInConfig(); err != nil {
		t.Fatal(err)
	}
	withDefaults := viper.New()
	app.Defaults(withDefaults)
	got, want := file.AllKeys(), withDefaults.AllKeys()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("config.example.yaml keys %v\ndefault keys %v", got, want)
	}
}

// TestConfigPrecedence checks flag > environment > file > default for listen, and
// the environment form of a nested key.
func TestConfigPrecedence(t *testing.T) {
	t.Setenv("REVIEWD_LISTEN", "")
	t.Setenv("REVIEWD_SMTP_HOST", "")
	os.Unsetenv("REVIEWD_LISTEN")
	os.Unsetenv("REVIEWD_SMTP_HOST")
	file := writeYAML(t, "listen: \"127.0.0.1:9001\"\nsmtp:\n  host: file.example\n")
	flag := map[string]string{"listen": "127.0.0.1:9003"}

	check := func(name string, file string, flags map[string]string, want string) {
		t.Helper()
		c, err := load(t, file, flags)
		if err != nil {
			t.Fatal(err)
		}
		if c.Listen != want {
			t.Fatalf("%s: listen = %s, want %s", name, c.Listen, want)
		}
	}
	check("default", "", nil, "127.0.0.1:8080")
	check("file", file, nil, "127.0.0.1:9001")
	check("flag over file", file, flag, "127.0.0.1:9003")
	t.Setenv("REVIEWD_LISTEN", "127.0.0.1:9002")
	check("env over default", "", nil, "127.0.0.1:9002")
	check("env over file", file, nil, "127.0.0.1:9002")
	check("flag over env", file, flag, "127.0.0.1:9003")

	t.Setenv("REVIEWD_SMTP_HOST", "env.example")
	t.Setenv("REVIEWD_TRUSTED_PROXIES", "10.0.0.0/8, 192.168.0.0/16")
	c, err := load(t, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.SMTP.Host != "env.example" || !slices.Equal(c.TrustedProxies, []string{"10.0.0.0/8", "192.168.0.0/16"}) {
		t.Fatalf("nested and list keys from the environment: %+v", c)
	}
	if c.PublicURL != "http://127.0.0.1:9002" {
		t.Fatalf("public_url follows listen: %s", c.PublicURL)
	}
}

// TestConfigMisspelledKey: a key the service does not know fails the start.
func TestConfigMisspelledKey(t *testing.T) {
	for _, body := range []string{
		"listn: \"127.0.0.1:9001\"\n",
		"smtp:\n  hots: mail.example\n",
		"jobs:\n  enable: false\n",
	} {
		v := viper.New()
		app.Defaults(v)
		v.SetConfigFile(writeYAML(t, body))
		if err := v.ReadInConfig(); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Load(v); err == nil {
			t.Fatalf("misspelled key accepted: %q", body)
		}
	}
	// Bad values are reported all at once.
	v := viper.New()
	app.Defaults(v)
	v.SetConfigFile(writeYAML(t, "listen: nope\nlog:\n  level: loud\n"))
	if err := v.ReadInConfig(); err != nil {
		t.Fatal(err)
	}
	_, err := app.Load(v)
	if err == nil || !strings.Contains(err.Error(), "listen") || !strings.Contains(err.Error(), "log.level") {
		t.Fatalf("bad values: %v", err)
	}
}

// TestConfigMetrics: metrics.listen must be host:port and not the main address;
// metrics.token must be long enough; both empty is off.
func TestConfigMetrics(t *testing.T) {
	for body, wantErr := range map[string]string{
		"": "",
		"metrics:\n  listen: \"127.0.0.1:9090\"\n":  "",
		"metrics:\n  token: \"0123456789abcdef\"\n": "",
		"metrics:\n  listen: \"9090\"\n":            "metrics.listen",
		"metrics:\n  listen: \"127.0.0.1:8080\"\n":  "metrics.listen",
		"metrics:\n  token: \"short\"\n":            "metrics.token",
	} {
		v := viper.New()
		app.Defaults(v)
		v.SetConfigFile(writeYAML(t, "listen: \"127.0.0.1:8080\"\n"+body))
		if err := v.ReadInConfig(); err != nil {
			t.Fatal(err)
		}
		c, err := app.Load(v)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("%q: %v", body, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%q: error %v, want one about %s", body, err, wantErr)
		case body == "" && c.Metrics.Enabled():
			t.Errorf("metrics on by default")
		}
	}
}

// TestConfigMedia checks the media.* keys: the s3 store needs a bucket, keys come
// in pairs (also from the environment), and the media and the replica may share a
// bucket only under separate prefixes.
func TestConfigMedia(t *testing.T) {
	t.Setenv("REVIEWD_MEDIA_S3_SECRET_KEY", "from-env")
	for _, c := range []struct {
		name  string
		flags map[string]string
		want  string // "" is valid
	}{
		{"local default", nil, ""},
		{"unknown store", map[string]string{"media.store": "ftp"}, `media.store: "ftp" is not local or s3`},
		{"s3 without bucket", map[string]string{"media.store": "s3", "media.s3.access_key": "k"}, "media.s3.bucket: required"},
		{"s3 secret from env", map[string]string{"media.store": "s3", "media.s3.bucket": "b", "media.s3.access_key": "k"}, ""},
		{"bad endpoint", map[string]string{"media.store": "s3", "media.s3.bucket": "b", "media.s3.access_key": "k", "media.s3.endpoint": "minio:9000"}, "media.s3.endpoint"},
		{"bad public url", map[string]string{"media.public_url": "cdn.example"}, "media.public_url"},
		{"shared bucket, own prefixes", map[string]string{"media.store": "s3", "media.s3.bucket": "b", "media.s3.access_key": "k",
			"media.s3.prefix": "media", "replica.url": "s3://b/db"}, ""},
		{"shared bucket, same prefix", map[string]string{"media.store": "s3", "media.s3.bucket": "b", "media.s3.access_key": "k",
			"media.s3.prefix": "shop", "replica.url": "s3://b/shop"}, "overlaps the replica's prefix"},
		{"shared bucket, nested prefix", map[string]string{"media.store": "s3", "media.s3.bucket": "b", "media.s3.access_key": "k",
			"media.s3.prefix": "shop/media", "replica.url": "s3://b/shop"}, "overlaps the replica's prefix"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := load(t, "", c.flags)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if c.name == "s3 secret from env" && cfg.Media.S3.SecretKey != "from-env" {
				t.Fatalf("secret key %q", cfg.Media.S3.SecretKey)
			}
		})
	}
}

// TestConfigDNSServer: dns.server is HOST:PORT or empty (the system resolver).
func TestConfigDNSServer(t *testing.T) {
	for body, wantErr := range map[string]string{
		"":                                     "",
		"dns:\n  server: \"127.0.0.1:5353\"\n": "",
		"dns:\n  server: \"[::1]:53\"\n":       "",
		"dns:\n  server: \"127.0.0.1\"\n":      "dns.server",
		"dns:\n  server: \"ns.example:\"\n":    "dns.server",
	} {
		v := viper.New()
		app.Defaults(v)
		v.SetConfigFile(writeYAML(t, body))
		if err := v.ReadInConfig(); err != nil {
			t.Fatal(err)
		}
		c, err := app.Load(v)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("%q: %v", body, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%q: error %v, want one about %s", body, err, wantErr)
		case body == "" && c.DNS.Server != "":
			t.Errorf("dns.server set by default: %q", c.DNS.Server)
		}
	}
}

// TestConfigWhatsApp: the whatsapp.* keys; the access token comes from
// REVIEWD_WHATSAPP_ACCESS_TOKEN; the sender keys come together, with an https API
// address and an app secret.
func TestConfigWhatsApp(t *testing.T) {
	t.Setenv("REVIEWD_WHATSAPP_ACCESS_TOKEN", "EAAG-from-env")
	full := map[string]string{"whatsapp.phone_number_id": "1065550001", "whatsapp.invite_template": "review_invite",
		"whatsapp.app_secret": "s"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name  string
		flags map[string]string
		want  string
	}{
		{"off", nil, ""},
		{"configured", full, ""},
		{"no template", with(map[string]string{"whatsapp.invite_template": ""}), "whatsapp: phone_number_id, access_token and invite_template"},
		{"plain http", with(map[string]string{"whatsapp.api_url": "http://graph.example/v25.0"}), "whatsapp.api_url"},
		{"no app secret", with(map[string]string{"whatsapp.app_secret": ""}), "whatsapp.app_secret"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.flags == nil {
				t.Setenv("REVIEWD_WHATSAPP_ACCESS_TOKEN", "")
			}
			cfg, err := load(t, "", c.flags)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if err == nil && c.flags != nil && (cfg.WhatsApp.AccessToken != "EAAG-from-env" || cfg.WhatsApp.APIURL != "https://graph.facebook.com/v25.0") {
				t.Fatalf("whatsapp = %+v", cfg.WhatsApp)
			}
		})
	}
}
