// Package platformtest plays the store platforms reviewd reads orders from (Shopify
// GraphQL Admin API, WooCommerce REST v3, Magento REST) inside a test: each fake is
// an httptest TLS server with a certificate for the store's own host name, reached
// through an outbound client whose resolve rule points that host at it, so the
// readers run over real HTTPS with the real SSRF-safe client. Fixtures under
// testdata/ look like recorded answers. Imported only by _test.go files.
package platformtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"reviewd/app/outbound"
)

// TLSServer is an https test server that answers for some host names.
type TLSServer struct {
	Server *httptest.Server
	// Client reaches the server for every host name given to StartTLS (and only
	// there: other names go to the real, guarded network path).
	Client *outbound.Client
	// CAFile is the PEM file of the server's certificate.
	CAFile string
	Port   string
}

// StartTLS starts h on 127.0.0.1 with a certificate for hosts until the test ends.
func StartTLS(t testing.TB, h http.Handler, hosts ...string) *TLSServer {
	t.Helper()
	certPEM, keyPEM := selfSigned(t, hosts)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("platformtest: key pair: %v", err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	ca := filepath.Join(t.TempDir(), "platform-ca.pem")
	if err := os.WriteFile(ca, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var pins []string
	for _, h := range hosts {
		pins = append(pins, h+":443=127.0.0.1:"+port)
	}
	c, err := outbound.New(outbound.Config{Resolve: pins, CAFile: ca})
	if err != nil {
		t.Fatalf("platformtest: outbound: %v", err)
	}
	return &TLSServer{Server: ts, Client: c, CAFile: ca, Port: port}
}

func selfSigned(t testing.TB, hosts []string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "platformtest " + strconv.Itoa(len(hosts))},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              hosts,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// Fault makes one request answer differently.
type Fault struct {
	// Status answers with this status and Body (a JSON text) instead of the
	// normal answer.
	Status int
	Body   string
	// Throttle answers as the platform does when its request limit is reached.
	Throttle bool
	// ExpireToken invalidates every token issued so far before answering, so this
	// request gets the platform's 401.
	ExpireToken bool
	// Redirect answers 302 to another address.
	Redirect bool
	// Hang waits until the client gives up (the request's context ends).
	Hang bool
	// Raw answers Body with status 200 as it is (not JSON, for example).
	Raw bool
}

func (f Fault) write(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case f.Hang:
		<-r.Context().Done()
		return true
	case f.Redirect:
		w.Header().Set("Location", "https://elsewhere.example/")
		w.WriteHeader(http.StatusFound)
		return true
	case f.Raw:
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		_, _ = w.Write([]byte(f.Body))
		return true
	case f.Status != 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return true
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
