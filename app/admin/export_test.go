package admin

import "reviewd/app/core"

// RouteInfo is one line of the admin route table, for the role tests of package
// admin_test.
type RouteInfo struct {
	Method, Path, Perm string
	// Open routes take no credentials; KeyCallable ones take an admin API key too.
	Open, KeyCallable bool
}

// RouteTable lists the admin route table.
func RouteTable() []RouteInfo {
	var out []RouteInfo
	for _, rt := range (&Handler{}).routes() {
		out = append(out, RouteInfo{Method: rt.method, Path: rt.path, Perm: rt.perm, Open: rt.access == open,
			KeyCallable: rt.access == keyOrPanel})
	}
	return out
}

// RoleAllows reports whether a panel session of role passes the route's guard.
func RoleAllows(ri RouteInfo, role string) bool {
	a := &core.Actor{Via: core.ViaSession, Role: role, Perms: core.PermsOfRole(role)}
	return a.Can(ri.Perm)
}
