// Package static holds the console's embedded assets: the stylesheet,
// app.js, the icon (favicon.svg), and the front-end bundles built from npm packages by
// build/build.sh and committed (htmx.min.js, and editor.min.js, the
// override editor), so the Go build needs no Node. They are served under
// content-hashed URLs with long cache headers, so a new binary never
// serves a stale cached file.
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Prefix is the URL path the assets are served under.
const Prefix = "/static/"

//go:embed app.css app.js htmx.min.js editor.min.js favicon.svg
var files embed.FS

type asset struct {
	data []byte
	hash string // first 12 hex digits of the SHA-256 of data
}

// assets reads and hashes every file once; the files are fixed per binary.
var assets = sync.OnceValue(func() map[string]asset {
	out := map[string]asset{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded root always exists
	}
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		if err != nil {
			panic(err) // listed by ReadDir just above
		}
		sum := sha256.Sum256(data)
		out[e.Name()] = asset{data: data, hash: hex.EncodeToString(sum[:6])}
	}
	return out
})

// URL returns the cache-busting URL of the embedded file name, e.g.
// "/static/app.css?v=3f2a9c01b7e4". It panics on an unknown name: names are
// constants in templates, and a typo must fail every test, not ship.
func URL(name string) string {
	a, ok := assets()[name]
	if !ok {
		panic("static: no embedded file " + name)
	}
	return Prefix + name + "?v=" + a.hash
}

// Handler serves the embedded files under Prefix, and any other path
// with notFound (the server's own 404 answer). A request whose v
// parameter is the file's current hash is cacheable for a year (immutable);
// any other is revalidated, so an old page never pins a new file.
func Handler(notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		a, ok := assets()[name]
		if !ok {
			notFound.ServeHTTP(w, r)
			return
		}
		if r.URL.Query().Get("v") == a.hash {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("ETag", `"`+a.hash+`"`)
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.data))
	})
}
