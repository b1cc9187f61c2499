package sendtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// GraphURL is the Graph API base address the fake plays (whatsapp.api_url).
const GraphURL = "https://graph.facebook.com/v25.0"

// GraphRequest is one send the fake Graph API received.
type GraphRequest struct {
	Path          string
	Authorization string
	Body          GraphMessage
}

// GraphMessage is the body of POST /{phone_number_id}/messages as the Cloud API
// reads it.
type GraphMessage struct {
	MessagingProduct string `json:"messaging_product"`
	RecipientType    string `json:"recipient_type"`
	To               string `json:"to"`
	Type             string `json:"type"`
	Template         struct {
		Name     string `json:"name"`
		Language struct {
			Code string `json:"code"`
		} `json:"language"`
		Components []struct {
			Type       string `json:"type"`
			SubType    string `json:"sub_type"`
			Index      string `json:"index"`
			Parameters []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parameters"`
		} `json:"components"`
	} `json:"template"`
}

// BodyParams returns the texts of the template's body parameters.
func (m GraphMessage) BodyParams() []string {
	var out []string
	for _, c := range m.Template.Components {
		if c.Type == "body" {
			for _, p := range c.Parameters {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// GraphError is an error answer the fake gives: HTTP status and Meta's code.
type GraphError struct {
	Status int
	Code   int
}

// Graph is an HTTPS server playing the WhatsApp Cloud API's message endpoint at
// graph.facebook.com, reached through outbound.resolve (Resolve, CAFile).
type Graph struct {
	Resolve string // outbound.resolve entry
	CAFile  string // outbound.ca_file
	server  *httptest.Server
	mu      sync.Mutex
	reqs    []GraphRequest
	errs    []GraphError
	n       int
}

// StartGraph starts the fake until the test ends. It answers every valid send
// with a new wamid unless Fail queued error answers.
func StartGraph(t testing.TB) *Graph {
	t.Helper()
	g := &Graph{}
	cert, der := graphCert(t)
	g.server = httptest.NewUnstartedServer(http.HandlerFunc(g.serve))
	g.server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	g.server.StartTLS()
	t.Cleanup(g.server.Close)
	g.CAFile = filepath.Join(t.TempDir(), "graph-ca.pem")
	if err := os.WriteFile(g.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	g.Resolve = "graph.facebook.com:443=127.0.0.1:" + strconv.Itoa(g.server.Listener.Addr().(*net.TCPAddr).Port)
	return g
}

// graphCert makes a self-signed certificate for graph.facebook.com (httptest's
// own covers only example.com and loopback addresses).
func graphCert(t testing.TB) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "graph.facebook.com"},
		DNSNames: []string{"graph.facebook.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der
}

// Fail queues error answers for the next sends, in order.
func (g *Graph) Fail(errs ...GraphError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.errs = append(g.errs, errs...)
}

// Requests returns the sends received so far.
func (g *Graph) Requests() []GraphRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]GraphRequest(nil), g.reqs...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func graphError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "OAuthException", "code": code,
		"error_subcode": 2494010, "fbtrace_id": "AbCdEfGhIjK"}})
}

func (g *Graph) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m GraphMessage
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v25.0/") || !strings.HasSuffix(r.URL.Path, "/messages") {
		graphError(w, http.StatusBadRequest, 100, "Unsupported post request.")
		return
	}
	if err := json.Unmarshal(body, &m); err != nil || m.MessagingProduct != "whatsapp" || m.To == "" || m.Type != "template" ||
		m.Template.Name == "" || m.Template.Language.Code == "" {
		graphError(w, http.StatusBadRequest, 100, "(#100) Invalid parameter")
		return
	}
	g.mu.Lock()
	g.reqs = append(g.reqs, GraphRequest{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: m})
	var fail *GraphError
	if len(g.errs) > 0 {
		fail = &g.errs[0]
		g.errs = g.errs[1:]
	}
	g.n++
	n := g.n
	g.mu.Unlock()
	if fail != nil {
		graphError(w, fail.Status, fail.Code, fmt.Sprintf("(#%d) error", fail.Code))
		return
	}
	if r.Header.Get("Authorization") == "" {
		graphError(w, http.StatusUnauthorized, 190, "Invalid OAuth access token.")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"messaging_product": "whatsapp",
		"contacts": []map[string]string{{"input": m.To, "wa_id": strings.TrimPrefix(m.To, "+")}},
		"messages": []map[string]string{{"id": fmt.Sprintf("wamid.HBgM%08d", n)}}})
}
