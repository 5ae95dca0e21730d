// Package registrytest holds helpers for tests that serve an OCI registry in-process.
package registrytest

import "net/http"

// BasicAuth passes requests with the user's basic credentials to next and answers the others 401 with a Basic
// challenge, as a registry that wants a login does.
func BasicAuth(user, pass string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
