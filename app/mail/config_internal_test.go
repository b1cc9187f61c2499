package mail

import "testing"

func TestNewDefaults(t *testing.T) {
	cases := []struct {
		security string
		port     int
		wantSec  string
		wantPort int
	}{
		{"none", 0, "none", 25},
		{"starttls", 0, "starttls", 587},
		{"tls", 0, "tls", 465},
		{"", 0, "starttls", 587},
		{"TLS", 2465, "tls", 2465},
	}
	for _, tc := range cases {
		m := New(Config{Host: "smtp.example", Security: tc.security, Port: tc.port})
		if m.cfg.Security != tc.wantSec || m.cfg.Port != tc.wantPort || m.cfg.Timeout != DefaultTimeout {
			t.Errorf("%q/%d: got %q/%d timeout %v", tc.security, tc.port, m.cfg.Security, m.cfg.Port, m.cfg.Timeout)
		}
	}
}
