package core

import "strings"

// Ways a request can be authenticated (also the access log's via for people).
const (
	ViaSession   = "session"
	ViaAPIKey    = "api_key"
	ViaServerKey = "server_key"
	ViaSiteKey   = "site_key"
	ViaSignature = "signature"
	ViaConsole   = "console"
	ViaSystem    = "system"
	ViaMailCode  = "mail_code"
	// ViaCustomer names a customer in a review's history (a write through a site key).
	ViaCustomer = "customer"
)

// ActorKinds lists every way of acting a review's history or a record names.
var ActorKinds = []string{ViaSession, ViaAPIKey, ViaServerKey, ViaSiteKey, ViaSignature, ViaConsole, ViaSystem, ViaMailCode, ViaCustomer}

// Permissions of admin operations. Key scopes are read, moderate, export, write
// (plus orders and ssr on server keys); panel roles map onto the same names plus the
// panel-only ones.
const (
	PermRead         = "read"
	PermModerate     = "moderate"
	PermExport       = "export"
	PermWrite        = "write" // change settings
	PermOrders       = "orders"
	PermSSR          = "ssr"
	PermMarketRules  = "manage_market_rules"
	PermPersonalData = "personal_data"
	PermUsers        = "users"
)

// rolePerms: owner has all; manager all but users and personal-data requests;
// moderator read and moderate; viewer read.
var rolePerms = map[string][]string{
	"owner":     {PermRead, PermModerate, PermExport, PermWrite, PermMarketRules, PermPersonalData, PermUsers},
	"manager":   {PermRead, PermModerate, PermExport, PermWrite, PermMarketRules},
	"moderator": {PermRead, PermModerate},
	"viewer":    {PermRead},
}

// Roles lists the panel roles.
var Roles = []string{"owner", "manager", "moderator", "viewer"}

// Actor is who a request (or a console command, or a job) acts as. Activity and
// access-log entries are written from it.
type Actor struct {
	Via       string
	ID        string // key public id, user id, password id
	Name      string // key label or username
	Role      string // panel role; "key" for keys
	Perms     map[string]bool
	ChannelID int64
	UserID    int64
	SessionID int64
	CSRF      string

	RequestID string
	IP        string
	UserAgent string
}

// Can reports whether the actor holds a permission. write, moderate and export each
// include read.
func (a *Actor) Can(perm string) bool {
	if a == nil {
		return false
	}
	if a.Perms[perm] {
		return true
	}
	if perm == PermRead {
		return a.Perms[PermModerate] || a.Perms[PermExport] || a.Perms[PermWrite]
	}
	return false
}

// IsPanel reports whether the actor is a signed-in panel user.
func (a *Actor) IsPanel() bool { return a != nil && a.Via == ViaSession }

// ActorID is the id of the actor, "" for none (a job or an internal call).
func ActorID(a *Actor) string {
	if a == nil {
		return ""
	}
	return a.ID
}

// PermsOfRole returns the permission set of a panel role.
func PermsOfRole(role string) map[string]bool {
	m := map[string]bool{}
	for _, p := range rolePerms[role] {
		m[p] = true
	}
	return m
}

// PermsOfScopes returns the permission set of a comma-separated scope list.
func PermsOfScopes(scopes string) map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Split(scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			m[s] = true
		}
	}
	return m
}

// Console is the actor of CLI commands.
func Console() *Actor {
	return &Actor{Via: ViaConsole, Name: "console", Role: "owner", Perms: PermsOfRole("owner")}
}

// System is the actor of jobs.
func System(job string) *Actor { return &Actor{Via: ViaSystem, Name: job, Role: "system"} }
