package integration

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// TestLocalStoreOnlyForTheServer: in local mode, another process on the machine can neither read nor write
// the embedded etcd. Every port this test process listens on is probed with curl, as an attacker on the
// machine would: etcd's JSON gateway in plain text, and over TLS without a client certificate. The one
// certificate that works is aim-apiserver's own, from its data directory (the positive control).
func TestLocalStoreOnlyForTheServer(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl is required: %v", err)
	}
	dir := t.TempDir()
	s := framework.StartLocal(t, dir)
	if _, err := s.Client.AimV1alpha1().AIMServices("store").Create(ctx(t), newService("store", "secret-sauce"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	apiPorts := map[int]bool{}
	for _, server := range []*framework.Server{s, shared} {
		u, err := url.Parse(server.Config.Host)
		must(t, err)
		port, _ := strconv.Atoi(u.Port())
		apiPorts[port] = true
	}
	pki := filepath.Join(dir, "etcd-pki")
	rangeAll := fmt.Sprintf(`{"key":%q,"range_end":%q}`,
		base64.StdEncoding.EncodeToString([]byte("\x00")), base64.StdEncoding.EncodeToString([]byte("\x00")))
	put := fmt.Sprintf(`{"key":%q,"value":%q}`,
		base64.StdEncoding.EncodeToString([]byte("/registry/aim.eai.amd.com/aimservices/store/forged")), base64.StdEncoding.EncodeToString([]byte("{}")))

	ports := listeningPorts(t)
	if len(ports) < 4 {
		t.Fatalf("found %d listening ports of this process (%v); expected two servers with an etcd each", len(ports), ports)
	}
	reachedWithCert := 0
	for _, port := range ports {
		if apiPorts[port] {
			// The API itself refuses requests without the admin client certificate.
			out, _ := curl("-sk", "-o", "/dev/null", "-w", "%{http_code}", fmt.Sprintf("https://127.0.0.1:%d/apis/aim.eai.amd.com/v1alpha1/aimservices", port))
			if out != "401" {
				t.Errorf("API port %d without a client certificate answered %q, want 401", port, out)
			}
			continue
		}
		for _, attempt := range []struct{ name, scheme, path, body string }{
			{"plain-text range", "http", "/v3/kv/range", rangeAll},
			{"plain-text put", "http", "/v3/kv/put", put},
			{"plain-text version", "http", "/version", ""},
			{"TLS range without certificate", "https", "/v3/kv/range", rangeAll},
			{"TLS put without certificate", "https", "/v3/kv/put", put},
		} {
			args := []string{"-sk", "--max-time", "5", fmt.Sprintf("%s://127.0.0.1:%d%s", attempt.scheme, port, attempt.path)}
			if attempt.body != "" {
				args = append(args, "-d", attempt.body)
			}
			if out, err := curl(args...); err == nil && (strings.Contains(out, `"kvs"`) || strings.Contains(out, `"header"`) || strings.Contains(out, "etcdserver")) {
				t.Errorf("port %d: %s succeeded: %.200s", port, attempt.name, out)
			}
		}
		out, err := curl("-s", "--max-time", "5", "--cacert", filepath.Join(pki, "ca.crt"),
			"--cert", filepath.Join(pki, "client.crt"), "--key", filepath.Join(pki, "client.key"),
			fmt.Sprintf("https://127.0.0.1:%d/v3/kv/range", port), "-d", rangeAll)
		if err == nil && strings.Contains(out, `"kvs"`) {
			reachedWithCert++
		}
	}
	if reachedWithCert != 1 {
		t.Errorf("the server's own client certificate read the store on %d ports, want exactly 1 (the test cannot see the store)", reachedWithCert)
	}
	if _, err := s.Client.AimV1alpha1().AIMServices("store").Get(ctx(t), "forged", metav1.GetOptions{}); err == nil {
		t.Error("an object was forged in the store")
	}
}

func curl(args ...string) (string, error) {
	out, err := exec.Command("curl", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// listeningPorts returns the TCP ports this process listens on (IPv4 and IPv6), from /proc: the sockets among
// its file descriptors that are in LISTEN state.
func listeningPorts(t *testing.T) []int {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	must(t, err)
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	seen := map[int]bool{}
	var ports []int
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			const listen = "0A"
			if len(fields) < 10 || fields[3] != listen || !inodes[fields[9]] {
				continue
			}
			_, portHex, _ := strings.Cut(fields[1], ":")
			port, err := strconv.ParseInt(portHex, 16, 32)
			if err == nil && !seen[int(port)] {
				seen[int(port)] = true
				ports = append(ports, int(port))
			}
		}
		f.Close()
	}
	return ports
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
