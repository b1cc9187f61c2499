package panel

import (
	"bytes"
	"encoding/base64"
	"errors"
	"html/template"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/app/web"
	"reviewd/store"
)

// ---- own account ----

type accountData struct {
	User    store.User
	Enabled bool
	// Secret and QR are shown once, on the answer of "turn on".
	Secret string
	QR     template.URL
}

func (h *Handler) account(r *http.Request, a *core.Actor) (accountData, error) {
	var d accountData
	var err error
	if d.User, err = h.Access.SessionUser(r.Context(), a); err != nil {
		return d, err
	}
	d.Enabled, _, err = h.Access.SecondStepState(r.Context(), a)
	return d, err
}

// handleAccount serves GET /panel/account: two-step state, e-mail and password.
func (h *Handler) handleAccount(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.account(r, a)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "account", d)
}

// qrImage draws the otpauth address as a QR code (a data: PNG, allowed by the
// panel's content policy).
func qrImage(otpauth string) template.URL {
	k, err := otp.NewKeyFromURL(otpauth)
	if err != nil {
		return ""
	}
	img, err := k.Image(200, 200)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// handleSecondStepStart serves POST /panel/account/second-step
// (access.StartSecondStep, as POST /admin/v1/session/second-step): the page with
// the new secret and its QR code, shown once.
func (h *Handler) handleSecondStepStart(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	s, err := h.Access.StartSecondStep(r.Context(), a)
	if err != nil {
		return err
	}
	d, err := h.account(r, a)
	if err != nil {
		return err
	}
	d.Secret, d.QR = s.Secret, qrImage(s.OTPAuthURL)
	return h.show(w, r, a, "account", d)
}

// handleSecondStepConfirm serves POST /panel/account/second-step/confirm
// (access.ConfirmSecondStep, as POST /admin/v1/session/second-step/confirm).
func (h *Handler) handleSecondStepConfirm(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Access.ConfirmSecondStep(r.Context(), a, r.PostForm.Get("passcode")); err != nil {
		return err
	}
	return back(w, r, "/panel/account", "second_step_on")
}

// handleSecondStepOff serves POST /panel/account/second-step/off
// (access.TurnOffSecondStep, as POST /admin/v1/session/second-step/off).
func (h *Handler) handleSecondStepOff(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Access.TurnOffSecondStep(r.Context(), a, r.PostForm.Get("passcode")); err != nil {
		return err
	}
	return back(w, r, "/panel/account", "second_step_off")
}

// handleEmailChange serves POST /panel/account/email: current password and the
// new address (access.ChangeOwnEmail, as POST /admin/v1/session/email-change).
func (h *Handler) handleEmailChange(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, err := h.Access.ChangeOwnEmail(r.Context(), a, r.PostForm.Get("current"), r.PostForm.Get("email")); err != nil {
		return err
	}
	return back(w, r, "/panel/account", "email_changed")
}

// handlePasswordChange serves POST /panel/account/password (access.ChangePassword,
// as POST /admin/v1/session/password-change).
func (h *Handler) handlePasswordChange(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Access.ChangePassword(r.Context(), a, r.PostForm.Get("current_password"), r.PostForm.Get("password")); err != nil {
		return err
	}
	return back(w, r, "/panel/account", "password_changed")
}

// ---- users and roles ----

type usersData struct {
	Items      []store.User
	Total      int
	Roles      []string
	Prev, Next string
	Page       int
	Pages      int
}

// handleUsers serves GET /panel/users: the members, add form, role changes.
func (h *Handler) handleUsers(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 50)
	if err != nil {
		return err
	}
	p, err := h.Access.ListMembers(r.Context(), a, l)
	if err != nil {
		return err
	}
	d := usersData{Items: p.Items, Total: p.Total, Roles: core.Roles, Page: l.Page, Pages: core.PageCount(p.Total, l.PageSize)}
	d.Prev, d.Next = pager(r, "users", d.Page, d.Pages)
	return h.show(w, r, a, "users", d)
}

// handleUserAdd serves POST /panel/users: username, email, role
// (access.AddMember, as POST /admin/v1/users).
func (h *Handler) handleUserAdd(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	if _, _, err := h.Access.AddMember(r.Context(), a, f.Get("username"), f.Get("email"), f.Get("role")); err != nil {
		return err
	}
	return back(w, r, "/panel/users", "user_added")
}

func memberID(r *http.Request) (int64, error) { return access.MemberID(web.Vars(r)["id"]) }

// handleUserRole serves POST /panel/users/<id>/role (access.ChangeMember, as
// PATCH /admin/v1/users/<id>: the service checks the users permission).
func (h *Handler) handleUserRole(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := memberID(r)
	if err != nil {
		return err
	}
	role := r.PostForm.Get("role")
	if _, err := h.Access.ChangeMember(r.Context(), a, id, access.MemberChange{Role: &role}); err != nil {
		return err
	}
	return back(w, r, "/panel/users", "saved")
}

// handleUserRemove serves POST /panel/users/<id>/remove (access.RemoveMember, as
// DELETE /admin/v1/users/<id>).
func (h *Handler) handleUserRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := memberID(r)
	if err != nil {
		return err
	}
	if err := h.Access.RemoveMember(r.Context(), a, id); err != nil {
		return err
	}
	return back(w, r, "/panel/users", "user_removed")
}

// handleUserLink serves POST /panel/users/<id>/password-link
// (access.SendPasswordLink, as POST /admin/v1/users/<id>/password-link).
func (h *Handler) handleUserLink(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := memberID(r)
	if err != nil {
		return err
	}
	if _, err := h.Access.SendPasswordLink(r.Context(), a, id); err != nil {
		return err
	}
	return back(w, r, "/panel/users", "link_sent")
}

// ---- keys and secrets ----

type keysData struct {
	Items    []access.KeyRow
	Channels []channels.Row
	Created  *shownOnce
	Scopes   []string
	// Embeds are the copyable product-page snippets of the channels with a site key.
	Embeds []channelEmbed
}

func (h *Handler) keys(r *http.Request) (keysData, error) {
	var d keysData
	var err error
	if d.Items, err = h.Access.ListKeys(r.Context()); err != nil {
		return d, err
	}
	chs, err := h.Channels.ListChannels(r.Context(), core.ListQuery{Page: 1, PageSize: 100, Sort: "newest"})
	d.Channels, d.Scopes = chs.Items, access.APIScopes
	for _, ch := range d.Channels {
		if key := siteKeyOf(d.Items, ch.Code); key != "" {
			d.Embeds = append(d.Embeds, channelEmbed{Channel: ch.Code, Snippet: embedSnippet(h.PublicURL, key, "", "", "")})
		}
	}
	return d, err
}

// handleKeys serves GET /panel/keys: the keys, the forms that make them, and the
// notification password.
func (h *Handler) handleKeys(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.keys(r)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "keys", d)
}

// showCreated renders the keys page with a secret shown once.
func (h *Handler) showCreated(w http.ResponseWriter, r *http.Request, a *core.Actor, s shownOnce) error {
	d, err := h.keys(r)
	if err != nil {
		return err
	}
	d.Created = &s
	return h.show(w, r, a, "keys", d)
}

// handleKeyCreate serves POST /panel/keys: a site key of a channel
// (access.CreateKey, as POST /admin/v1/keys).
func (h *Handler) handleKeyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	k, err := h.Access.CreateKey(r.Context(), a, access.NewKey{Kind: access.KindSite, ChannelCode: r.PostForm.Get("channel"),
		Label: r.PostForm.Get("label")})
	if err != nil {
		return err
	}
	return h.showCreated(w, r, a, shownOnce{Label: k.Label, ID: k.PublicID, Secret: k.Secret})
}

// handleAPIKeyCreate serves POST /panel/keys/api: label, channel, scopes
// (access.CreatePanelKey, as POST /admin/v1/channels with kind api_key). A form
// without scopes_shown (the server-key form) sends no scopes: a server key of
// the channel.
func (h *Handler) handleAPIKeyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var scopes *[]string
	if r.PostForm.Get("scopes_shown") == "1" {
		s := r.PostForm["scopes"]
		if s == nil {
			s = []string{}
		}
		scopes = &s
	}
	k, err := h.Access.CreatePanelKey(r.Context(), a, r.PostForm.Get("label"), r.PostForm.Get("channel"), scopes)
	if err != nil {
		return err
	}
	return h.showCreated(w, r, a, shownOnce{Label: k.Label, ID: k.PublicID, Secret: k.Secret})
}

// keyRevokeData is the confirmation page of a revocation.
type keyRevokeData struct {
	Key access.KeyRow
}

// revokable is the key of the address that may still be revoked: 404 not_found
// when unknown or already revoked.
func (h *Handler) revokable(r *http.Request) (keyRevokeData, error) {
	id := web.Vars(r)["id"]
	keys, err := h.Access.ListKeys(r.Context())
	if err != nil {
		return keyRevokeData{}, err
	}
	for _, k := range keys {
		if k.PublicID == id && k.RevokedAt.IsZero() {
			return keyRevokeData{Key: k}, nil
		}
	}
	return keyRevokeData{}, core.ErrNotFound
}

// errRevokeUnconfirmed refuses a revocation whose box was not ticked.
var errRevokeUnconfirmed = core.Invalid("confirm_required")

// handleKeyRevokeConfirm serves GET /panel/keys/<id>/revoke: what stops working
// when the key is revoked, and the form that revokes it once a box is ticked.
func (h *Handler) handleKeyRevokeConfirm(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.revokable(r)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "key-revoke", d)
}

// handleKeyRevoke serves POST /panel/keys/<id>/revoke (access.RevokeKeyByID, as
// DELETE /admin/v1/keys/<id>). Without confirm=1 (the box on the confirmation
// page) nothing is revoked: the page again with invalid / confirm_required.
func (h *Handler) handleKeyRevoke(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if r.PostForm.Get("confirm") != "1" {
		d, err := h.revokable(r)
		if err != nil {
			return err
		}
		return h.refused(w, r, a, "key-revoke", d, errRevokeUnconfirmed)
	}
	if err := h.Access.RevokeKeyByID(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return back(w, r, "/panel/keys", "key_revoked")
}

// handleWebhookSecret serves POST /panel/keys/webhook-secret: a new notification
// password, shown once (brand.CreateWebhookSecret, as POST
// /admin/v1/settings/webhook-secret).
func (h *Handler) handleWebhookSecret(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	p, err := h.Brand.CreateWebhookSecret(r.Context(), a)
	if err != nil {
		return err
	}
	return h.showCreated(w, r, a, shownOnce{Label: "webhook", ID: p.ID, Secret: p.Secret})
}

// ---- channels and domains ----

type channelsData struct {
	channels.List
	// Proof is the domain whose proof instructions are shown (after adding it, or
	// after a refused check), with the refusal detail.
	Proof     *channels.PendingDomain
	ProofCode string
	Detail    string
}

func (h *Handler) showChannels(w http.ResponseWriter, r *http.Request, a *core.Actor, proof *channels.PendingDomain, detail string) error {
	l, err := listQuery(r, 100)
	if err != nil {
		return err
	}
	list, err := h.Channels.ListChannels(r.Context(), l)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if detail != "" {
		status = http.StatusBadRequest // as the admin route answers a refused proof
	}
	return h.showStatus(w, r, a, "channels", channelsData{List: list, Proof: proof, ProofCode: web.Vars(r)["code"], Detail: detail}, status)
}

// handleChannels serves GET /panel/channels: channels, their domains and the
// allowance.
func (h *Handler) handleChannels(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showChannels(w, r, a, nil, "")
}

// handleChannelCreate serves POST /panel/channels (channels.CreateChannel, as POST
// /admin/v1/channels with kind website).
func (h *Handler) handleChannelCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	if _, err := h.Channels.CreateChannel(r.Context(), a, channels.NewChannel{Code: f.Get("code"), Market: f.Get("market"),
		Language: f.Get("language"), Label: f.Get("label"), BrandName: f.Get("brand_name"), LandingURL: f.Get("landing_url"),
		PrivacyURL: f.Get("privacy_url"), SupportURL: f.Get("support_url"), SenderAddress: f.Get("sender_address"),
		TimeZone: f.Get("time_zone")}); err != nil {
		return err
	}
	return back(w, r, "/panel/channels", "channel_created")
}

// handleChannelActive serves POST /panel/channels/<code>/active: active=0|1
// (channels.UpdateChannel, as PATCH /admin/v1/channels/<code>).
func (h *Handler) handleChannelActive(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	on := r.PostForm.Get("active") == "1"
	if _, err := h.Channels.UpdateChannel(r.Context(), a, web.Vars(r)["code"], channels.Change{Active: &on}); err != nil {
		return err
	}
	return back(w, r, "/panel/channels", "saved")
}

// handleChannelZone serves POST /panel/channels/<code>/time-zone: time_zone, an
// IANA zone or empty for the brand's (channels.UpdateChannel, as PATCH
// /admin/v1/channels/<code>).
func (h *Handler) handleChannelZone(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	zone := r.PostForm.Get("time_zone")
	if _, err := h.Channels.UpdateChannel(r.Context(), a, web.Vars(r)["code"], channels.Change{TimeZone: &zone}); err != nil {
		return err
	}
	return back(w, r, "/panel/channels", "saved")
}

// handleDomainAdd serves POST /panel/channels/<code>/domains: the page with the
// domain's proof instructions (channels.AddDomain, as POST
// /admin/v1/channels/<code>/domains; adding a listed domain again shows its
// instructions).
func (h *Handler) handleDomainAdd(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	p, err := h.Channels.AddDomain(r.Context(), a, web.Vars(r)["code"], r.PostForm.Get("domain"))
	if err != nil {
		return err
	}
	return h.showChannels(w, r, a, &p, "")
}

// handleDomainVerify serves POST /panel/channels/<code>/domains/<domain>/verify:
// method file or dns (channels.VerifyDomain, as POST
// /admin/v1/channels/<code>/domains/<domain>/verify). A refused proof shows the
// instructions again with the reason.
func (h *Handler) handleDomainVerify(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := web.Vars(r)
	_, err := h.Channels.VerifyDomain(r.Context(), a, v["code"], v["domain"], r.PostForm.Get("method"))
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code == "proof_refused" {
		p := channels.PendingDomain{Domain: v["domain"]}
		p.Path, _ = ce.Extra["path"].(string)
		p.DNSName, _ = ce.Extra["dns_name"].(string)
		p.Token, _ = ce.Extra["token"].(string)
		web.MarkRefused(r.Context())
		return h.showChannels(w, r, a, &p, ce.Detail)
	}
	if err != nil {
		return err
	}
	return back(w, r, "/panel/channels", "domain_verified")
}

// handleDomainRemove serves POST /panel/channels/<code>/domains/<domain>/remove
// (channels.DeleteDomain, as DELETE /admin/v1/channels/<code>/domains/<domain>).
func (h *Handler) handleDomainRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := web.Vars(r)
	if err := h.Channels.DeleteDomain(r.Context(), a, v["code"], v["domain"]); err != nil {
		return err
	}
	return back(w, r, "/panel/channels", "domain_removed")
}

// ---- signing and mail-event passwords ----

type secretsData struct {
	Items    []core.ListedPassword
	Channels []channels.Row
	Created  *shownOnce
}

// showSecrets renders the passwords page, with a new password shown once.
func (h *Handler) showSecrets(w http.ResponseWriter, r *http.Request, a *core.Actor, created *shownOnce) error {
	d := secretsData{Created: created}
	var err error
	if d.Items, err = h.Passwords.ListPasswords(r.Context()); err != nil {
		return err
	}
	chs, err := h.Channels.ListChannels(r.Context(), core.ListQuery{Page: 1, PageSize: 100, Sort: "newest"})
	if err != nil {
		return err
	}
	d.Channels = chs.Items
	return h.show(w, r, a, "secrets", d)
}

// handleSecrets serves GET /panel/secrets: the signing and mail-event passwords
// (never the password) and the form that makes one.
func (h *Handler) handleSecrets(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showSecrets(w, r, a, nil)
}

// handleSecretCreate serves POST /panel/secrets: purpose and channel, the password
// shown once (core.Passwords.CreatePassword, as POST /admin/v1/secrets).
func (h *Handler) handleSecretCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	purpose := r.PostForm.Get("purpose")
	if purpose != "" && !core.ManagedPurpose(purpose) {
		return core.Invalid("purpose")
	}
	channel := ""
	if purpose == core.PurposeSigning {
		channel = r.PostForm.Get("channel")
	}
	p, err := h.Passwords.CreatePassword(r.Context(), a, purpose, channel)
	if err != nil {
		return err
	}
	return h.showSecrets(w, r, a, &shownOnce{Label: p.Purpose + " " + p.Channel, ID: p.ID, Secret: p.Secret})
}

// handleSecretDelete serves POST /panel/secrets/<id>/delete, the confirmation's
// button (core.Passwords.RevokePassword, as DELETE /admin/v1/secrets/<id>).
func (h *Handler) handleSecretDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Passwords.RevokePassword(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return back(w, r, "/panel/secrets", "secret_deleted")
}
