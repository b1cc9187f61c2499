package docs_test

// transparencyOps are the public routes of the transparency log
// (docs/transparency.md); no credentials, a per-IP limit.
func transparencyOps() []op {
	const tag = "storefront"
	limited := []string{"429 rate_limited", "400 invalid / invalid"}
	hashes := arr(map[string]any{"type": "string", "contentEncoding": "base64"})
	entry := obj(map[string]any{"index": integer(), "review": str(), "product": str(), "rating": integer(),
		"event": enum("published", "rejected", "hidden", "restored", "removed", "erased"), "reason": str(),
		"actor": enum("automatic", "moderator", "customer", "erasure"), "at": str()},
		"index", "review", "product", "rating", "event", "reason", "actor", "at")
	counts := map[string]any{"type": "object", "additionalProperties": integer()}
	return []op{
		{method: "GET", path: "/v1/transparency/checkpoint", tag: tag, summary: "The latest signed checkpoint of the transparency log",
			ok:   []answer{okType(200, "Signed note: origin line, tree size, base64 root hash, a blank line and signature lines.", "text/plain")},
			errs: limited},
		{method: "GET", path: "/v1/transparency/key", tag: tag, summary: "The log's public key in the note verifier format",
			ok:   []answer{okType(200, "<origin>+<key hash>+<base64 key>, as `reviewd transparency key` prints it.", "text/plain")},
			errs: limited},
		{method: "GET", path: "/v1/transparency/entries", tag: tag, summary: "Entries of the log, at most 1000, within the latest checkpoint",
			query: []param{qreq("start", "First index (from 0).", integer()), qreq("end", "One past the last index; cut at start+1000 and at the checkpoint's size.", integer())},
			ok: []answer{okType(200, "JSON lines, one entry each, exactly the records hashed into the tree: "+stringsOf(entry)+
				" A page holding every entry asked for never changes (Cache-Control immutable); entries and tiles have a per-IP limit of their own (6000 a minute).", "application/jsonl")},
			errs: cat(limited, []string{"400 invalid / start", "400 invalid / end"})},
		{method: "GET", path: "/v1/transparency/proof/inclusion", tag: tag, summary: "Inclusion proof of one entry in a tree (RFC 6962)",
			query: []param{qreq("index", "Entry index.", integer()), qreq("size", "Tree size, at most the latest checkpoint's.", integer())},
			ok:    []answer{okJSON(200, "Proof.", obj(map[string]any{"index": integer(), "size": integer(), "hashes": hashes}, "index", "size", "hashes"))},
			errs:  cat(limited, []string{"400 invalid / index", "400 invalid / size"})},
		{method: "GET", path: "/v1/transparency/proof/consistency", tag: tag, summary: "Consistency proof between two tree sizes (RFC 6962)",
			query: []param{qreq("from", "Older tree size (at least 1).", integer()), qreq("to", "Newer tree size, at most the latest checkpoint's.", integer())},
			ok:    []answer{okJSON(200, "Proof.", obj(map[string]any{"from": integer(), "to": integer(), "hashes": hashes}, "from", "to", "hashes"))},
			errs:  cat(limited, []string{"400 invalid / from", "400 invalid / to"})},
		{method: "GET", path: "/v1/transparency/tile/{path:.+}", tag: tag, summary: "A tile in the layout of golang.org/x/mod/sumdb/tlog (height 8): hash tiles and data tiles",
			ok: []answer{okType(200, "Hash tile (concatenated 32-byte hashes) or data tile (the entries' JSON lines). Full tiles are immutable.",
				"application/octet-stream|application/jsonl")},
			errs: cat(limited, []string{"400 invalid / tile", "404 not_found"})},
		{method: "GET", path: "/v1/transparency/report", tag: tag, summary: "Counts of each event and reason by rating in a window, computed from the entries",
			query: []param{q("from", "RFC 3339; default 30 days before to.", str()), q("to", "RFC 3339, excluded; default now.", str())},
			ok: []answer{okJSON(200, "Counts over the entries of the latest checkpoint (size) whose time is in the window.",
				obj(map[string]any{"from": str(), "to": str(), "size": integer(), "entries": integer(),
					"events":  map[string]any{"type": "object", "additionalProperties": counts},
					"reasons": arr(obj(map[string]any{"event": str(), "reason": str(), "rating": integer(), "count": integer()}, "event", "reason", "rating", "count"))},
					"from", "to", "size", "entries", "events", "reasons"))},
			errs: cat(limited, []string{"400 invalid / from", "400 invalid / to"})},
		{method: "GET", path: "/v1/transparency/receipt/{id:r_[a-z2-7]{20}}", tag: tag, summary: "A review's entries with inclusion proofs, for the writer's receipt token",
			query: []param{qreq("token", "The receipt token of the POST /v1/reviews answer and the confirmation e-mail.", str()),
				q("lang", "Language of the receipt page: tr or en (default en).", enum("tr", "en"))},
			ok: []answer{okJSON(200, "The review's hash and salt, the latest checkpoint and the entries, each with its inclusion proof (null while newer than the checkpoint). "+
				"A client whose Accept asks for text/html before JSON (a browser opening the confirmation e-mail's link) gets the same receipt as an HTML page (Vary: Accept).",
				obj(map[string]any{"review": str(), "hash": str(), "salt": str(), "checkpoint": str(), "size": integer(),
					"entries": arr(obj(map[string]any{"entry": entry, "hashes": nullable(hashes)}, "entry", "hashes"))},
					"review", "hash", "salt", "checkpoint", "size", "entries"))},
			errs: cat(limited, []string{"401 token_required", "403 token_refused / token_unknown"})},
	}
}

// stringsOf names an object schema's properties for a description.
func stringsOf(s map[string]any) string {
	out := ""
	for _, k := range s["required"].([]string) {
		if out != "" {
			out += ", "
		}
		out += k
	}
	return "{" + out + "}."
}
