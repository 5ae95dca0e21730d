//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

var etcdPKI = filepath.Join(localDir, "pki", "etcd")

// TestEtcdServesOnlyClientsWithACertificate: the harness runs etcd as the deploy base does. A client without a
// certificate of the etcd CA reads nothing, in plain text or over TLS; aim-apiserver's certificate works (the
// positive control), and aim-apiserver is configured with it.
func TestEtcdServesOnlyClientsWithACertificate(t *testing.T) {
	a := harness(t)
	servers := harnessdir.Flag(a.Args, "--etcd-servers")
	if !strings.HasPrefix(servers, "https://") || harnessdir.Flag(a.Args, "--etcd-certfile") == "" {
		t.Fatalf("aim-apiserver talks to etcd at %q without a client certificate", servers)
	}
	u, err := url.Parse(servers)
	must(t, err)
	k := admin(t)
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterRuntimeConfig\nmetadata: {name: e2e-etcd-tls}\nspec: {}\n")
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclrc", "e2e-etcd-tls") })
	rangeAll := fmt.Sprintf(`{"key":%q,"range_end":%q,"keys_only":true}`,
		base64.StdEncoding.EncodeToString([]byte("/registry/aim.eai.amd.com/")), base64.StdEncoding.EncodeToString([]byte("/registry/aim.eai.amd.com0")))
	curl := func(args ...string) (string, error) {
		out, err := exec.Command("curl", append([]string{"-s", "--max-time", "5"}, args...)...).CombinedOutput()
		return string(out), err
	}
	for name, args := range map[string][]string{
		"plain text":                {"http://" + u.Host + "/v3/kv/range", "-d", rangeAll},
		"TLS without a certificate": {"--cacert", filepath.Join(etcdPKI, "ca.crt"), "https://" + u.Host + "/v3/kv/range", "-d", rangeAll},
		"a certificate of another CA": {"--cacert", filepath.Join(etcdPKI, "ca.crt"),
			"--cert", filepath.Join(localDir, "pki", "admin.crt"), "--key", filepath.Join(localDir, "pki", "admin.key"),
			"https://" + u.Host + "/v3/kv/range", "-d", rangeAll},
	} {
		if out, err := curl(args...); err == nil && strings.Contains(out, `"header"`) {
			t.Errorf("etcd answered a client with %s: %.200s", name, out)
		}
	}
	out, err := curl("--cacert", filepath.Join(etcdPKI, "ca.crt"), "--cert", filepath.Join(etcdPKI, "client.crt"),
		"--key", filepath.Join(etcdPKI, "client.key"), "https://"+u.Host+"/v3/kv/range", "-d", rangeAll)
	if err != nil || !strings.Contains(out, `"kvs"`) {
		t.Errorf("aim-apiserver's certificate does not read the AIM keys (the test sees nothing): %v %.300s", err, out)
	}
}

// TestUserRolesCannotForgeStatus: edit (through aim-edit) writes AIM objects but neither their status nor
// their finalizers subresource, so no user can forge Ready or block the controller's cleanup. Nor does
// aim-engine's admin role of a kind, whose "*" is on the kind alone.
func TestUserRolesCannotForgeStatus(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-forge")
	k.must("create", "rolebinding", "editor", "-n", ns, "--clusterrole", "edit", "--user", "e2e-forger")
	editor := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-forger")}
	eventually(t, 30*time.Second, "editor can create", func() error {
		out, err := editor.apply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMRuntimeConfig\nmetadata: {name: forged, namespace: %s}\nspec: {}\n", ns))
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	for _, res := range []string{"aimservices", "aimruntimeconfigs", "aimmodels", "aimartifacts"} {
		for _, sub := range []string{"status", "finalizers"} {
			for _, verb := range []string{"update", "patch"} {
				if out, _ := editor.run("", "auth", "can-i", verb, res, "--subresource", sub, "-n", ns); strings.TrimSpace(out) != "no" {
					t.Errorf("edit may %s %s/%s: %s", verb, res, sub, out)
				}
			}
		}
		if out, _ := editor.run("", "auth", "can-i", "update", res, "-n", ns); strings.TrimSpace(out) != "yes" {
			t.Errorf("edit may not update %s: %s", res, out)
		}
	}
	k.must("create", "rolebinding", "engine-admin", "-n", ns, "--clusterrole", "aim-engine-aimservice-admin-role", "--user", "e2e-engine-admin")
	engineAdmin := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-engine-admin")}
	eventually(t, 30*time.Second, "aim-engine's admin role may delete services", func() error {
		if out, _ := engineAdmin.run("", "auth", "can-i", "deletecollection", "aimservices", "-n", ns); strings.TrimSpace(out) != "yes" {
			return fmt.Errorf("can-i deletecollection aimservices: %s", out)
		}
		return nil
	})
	for _, sub := range []string{"status", "finalizers"} {
		if out, _ := engineAdmin.run("", "auth", "can-i", "patch", "aimservices", "--subresource", sub, "-n", ns); strings.TrimSpace(out) != "no" {
			t.Errorf("aim-engine's admin role may patch aimservices/%s: %s", sub, out)
		}
	}
	out, err := editor.run("", "patch", "aimrc", "forged", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"status":"Ready"}}`)
	if err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("an editor wrote status: %v %s", err, out)
	}
}

// TestEchoedCredentialsReachNoViewer: a registry that echoes the credentials it receives is contacted with a
// pull secret; a user with only the view role reads the model's status and Events, and the server's log is
// checked too: the password appears in none of them, in clear or base64.
func TestEchoedCredentialsReachNoViewer(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-echo")
	const user, pass = "echo-user", "Echoed-S3cret-Passw0rd"
	var echoed atomic.Int32
	host := loopbackRegistry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="echo"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		u, p, _ := r.BasicAuth()
		if p == pass {
			echoed.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials %s / %s (header %s)","detail":%q}]}`, u, p, auth, auth)
	}))
	k.must("create", "secret", "docker-registry", "echocred", "-n", ns, "--docker-server", host, "--docker-username", user, "--docker-password", pass)
	k.must("create", "rolebinding", "viewer", "-n", ns, "--clusterrole", "view", "--user", "e2e-echo-viewer")
	viewer := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-echo-viewer")}
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: echo, namespace: %s}
spec:
  image: %s/amd/aim-echo:1.0
  imagePullSecrets: [{name: echocred}]
`, ns, host))
	jsonpathEquals(t, 60*time.Second, "ImagePullAuthFailure", "aimmdl", "echo", "-n", ns,
		"-o", `jsonpath={.status.conditions[?(@.type=="ImageMetadataReady")].reason}`)
	eventually(t, 30*time.Second, "a Warning Event about the model", func() error {
		out := k.must("get", "events", "-n", ns, "--field-selector", "involvedObject.name=echo,type=Warning", "-o", "name")
		if strings.TrimSpace(out) == "" {
			return fmt.Errorf("none yet")
		}
		return nil
	})
	var seen string
	eventually(t, 30*time.Second, "viewer reads the model and its Events", func() error {
		model, err1 := viewer.run("", "get", "aimmdl", "echo", "-n", ns, "-o", "yaml")
		events, err2 := viewer.run("", "get", "events", "-n", ns, "-o", "yaml")
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%v %v: %s %s", err1, err2, model, events)
		}
		seen = model + events
		return nil
	})
	logs, err := os.ReadFile(filepath.Join(localDir, "logs", "aim-apiserver.log"))
	must(t, err)
	for _, leak := range []string{pass, base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))} {
		if strings.Contains(seen, leak) {
			t.Errorf("a viewer reads the secret %q in status or Events", leak)
		}
		if strings.Contains(string(logs), leak) {
			t.Errorf("aim-apiserver's log has the secret %q", leak)
		}
	}
	contains(t, "what the viewer reads", seen, "ImagePullAuthFailure", "HTTP 401", "UNAUTHORIZED")
	if echoed.Load() == 0 {
		t.Error("the registry never received the password: the test echoed nothing")
	}
}

// TestEtcdOutageFailsWritesFastAndKeepsLiveness stops etcd (SIGSTOP: connections stay open, nothing answers,
// the worst case) and talks to aim-apiserver directly: /livez stays healthy (the Deployment's liveness probe
// must not restart replicas), /readyz fails, and a write fails within the etcd request timeout with ServerTimeout and Retry-After,
// instead of hanging for half a minute. After etcd resumes, writes work again.
func TestEtcdOutageFailsWritesFastAndKeepsLiveness(t *testing.T) {
	a := harness(t)
	port := a.port(t)
	etcdPID := pidOf(t, "etcd")
	direct, err := versioned.NewForConfig(directConfig(t, port))
	must(t, err)
	probes := probeClient(t)
	ns := namespace(t, "e2e-etcd-outage")
	cfg := func(name string) *aimv1.AIMRuntimeConfig {
		return &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	}
	ctx := context.Background()
	_, err = direct.AimV1alpha1().AIMRuntimeConfigs(ns).Create(ctx, cfg("before"), metav1.CreateOptions{})
	must(t, err)

	stopProcess(t, etcdPID)
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(etcdPID, syscall.SIGCONT)
		}
	}
	defer resume()
	// A raw request: client-go would retry the ServerTimeout by itself, as it should, and hide what the server said.
	raw, err := rest.HTTPClientFor(directConfig(t, port))
	must(t, err)
	start := time.Now()
	resp, err := raw.Post(fmt.Sprintf("https://127.0.0.1:%d/apis/aim.eai.amd.com/v1alpha1/namespaces/%s/aimruntimeconfigs", port, ns),
		"application/json", strings.NewReader(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMRuntimeConfig","metadata":{"name":"during"}}`))
	took := time.Since(start)
	switch {
	case err != nil:
		t.Errorf("a write during the outage failed without an answer after %s: %v", took, err)
	default:
		var status metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&status)
		if status.Reason != metav1.StatusReasonServerTimeout || resp.Header.Get("Retry-After") == "" {
			// Say what the stopped process was, for a write etcd should not have been able to answer.
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", etcdPID))
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", etcdPID))
			t.Errorf("a write during the outage: %d %s (Retry-After %q), want reason ServerTimeout with Retry-After "+
				"(stopped pid %d: stat %q, cmdline %q)", resp.StatusCode, status.Reason, resp.Header.Get("Retry-After"),
				etcdPID, strings.TrimSpace(string(stat)), strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	if resp != nil {
		resp.Body.Close()
	}
	if took > 15*time.Second {
		t.Errorf("the write failed after %s; the etcd request timeout is 10s", took.Round(time.Second))
	}
	if code := probe(probes, port, "/livez"); code != http.StatusOK {
		t.Errorf("/livez answered %d during the etcd outage: a liveness probe would restart the replica", code)
	}
	if code := probe(probes, port, "/readyz"); code == http.StatusOK {
		t.Error("/readyz is ready during the etcd outage")
	}
	resume()
	t.Logf("write refused after %s", took.Round(100*time.Millisecond))
	eventually(t, 60*time.Second, "writes after etcd resumed", func() error {
		_, err := direct.AimV1alpha1().AIMRuntimeConfigs(ns).Create(ctx, cfg("after"), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	for _, name := range []string{"before", "after"} {
		_ = direct.AimV1alpha1().AIMRuntimeConfigs(ns).Delete(ctx, name, metav1.DeleteOptions{})
	}
	_ = direct.AimV1alpha1().AIMRuntimeConfigs(ns).Delete(ctx, "during", metav1.DeleteOptions{})
	// The controller loses its Lease renewals during the outage; wait until it leads again.
	_, kube := adminClients(t)
	waitForLiveLeader(t, kube, "")
}

// pidOf is the PID of a process the harness started.
func pidOf(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(localDir, "pids", name+".pid"))
	must(t, err)
	var pid int
	_, err = fmt.Sscan(string(data), &pid)
	must(t, err)
	return pid
}

// TestGracefulShutdown sends SIGTERM to the leading replica while a watch is open and writes arrive through
// kube-apiserver, with a second replica running: /readyz fails before the listener closes, the watch ends
// cleanly, no acknowledged write is lost, the process exits within its drain (5 s delay + 5 s for watches +
// 2 s), and the other replica leads within 2 s.
func TestGracefulShutdown(t *testing.T) {
	a := harness(t)
	port := a.port(t)
	aim, kube := adminClients(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leaderA := waitForLiveLeader(t, kube, "")
	b, _, _ := secondReplica(t, a)
	ns := namespace(t, "e2e-drain")
	configs := aim.AimV1alpha1().AIMRuntimeConfigs(ns)

	w, err := configs.Watch(ctx, metav1.ListOptions{})
	must(t, err)
	watchEnded := make(chan error, 1)
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				watchEnded <- fmt.Errorf("error event: %v", apierrors.FromObject(ev.Object))
				return
			}
		}
		watchEnded <- nil
	}()

	var mu sync.Mutex
	var acked []string
	var refused int
	writes := make(chan struct{})
	go func() {
		defer close(writes)
		for i := 0; ctx.Err() == nil; i++ {
			name := fmt.Sprintf("w-%d", i)
			_, err := configs.Create(ctx, &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			mu.Lock()
			if err == nil {
				acked = append(acked, name)
			} else {
				refused++
			}
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	type sample struct {
		at   time.Time
		code int
	}
	var samples []sample
	sampled := make(chan struct{})
	probes := probeClient(t)
	stopSampling := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stopSampling:
				return
			default:
			}
			samples = append(samples, sample{time.Now(), probe(probes, port, "/readyz")})
			time.Sleep(10 * time.Millisecond)
		}
	}()
	handover := make(chan time.Duration, 1)
	time.Sleep(time.Second)

	sigterm := time.Now()
	a.signal(t, syscall.SIGTERM)
	go func() {
		for time.Since(sigterm) < 30*time.Second {
			if h := leaseHolder(ctx, kube); h != "" && h != leaderA {
				handover <- time.Since(sigterm)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		handover <- -1
	}()
	exited := a.waitExit(t, 40*time.Second)
	close(stopSampling)
	<-sampled

	var notReady, closed time.Time
	for _, s := range samples {
		if s.at.Before(sigterm) {
			continue
		}
		if s.code != http.StatusOK && notReady.IsZero() {
			notReady = s.at
		}
		if s.code == 0 && closed.IsZero() {
			closed = s.at
		}
	}
	switch {
	case notReady.IsZero() || closed.IsZero():
		t.Errorf("readyz never failed (%v) or the listener never closed (%v)", notReady, closed)
	case !notReady.Before(closed):
		t.Errorf("/readyz failed %s after SIGTERM, not before the listener closed (%s)", notReady.Sub(sigterm), closed.Sub(sigterm))
	case closed.Sub(notReady) < 4*time.Second:
		t.Errorf("the listener closed %s after /readyz failed, before the 5s shutdown delay", closed.Sub(notReady))
	}
	if d := exited.Sub(sigterm); d > 15*time.Second {
		t.Errorf("the process exited %s after SIGTERM; the drain should take about 12s, and the Deployment allows 30s", d)
	}
	select {
	case err := <-watchEnded:
		if err != nil {
			t.Errorf("the watch did not end cleanly: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the watch is still open after the server exited")
	}
	if d := <-handover; d < 0 || d > 2*time.Second {
		t.Errorf("the other replica led %s after SIGTERM, want within 2s", d)
	} else {
		t.Logf("readyz failed after %s, listener closed after %s, exit after %s, handover after %s",
			notReady.Sub(sigterm).Round(10*time.Millisecond), closed.Sub(sigterm).Round(10*time.Millisecond),
			exited.Sub(sigterm).Round(10*time.Millisecond), d.Round(10*time.Millisecond))
	}

	a.restart(t)
	cancel()
	<-writes
	list, err := aim.AimV1alpha1().AIMRuntimeConfigs(ns).List(context.Background(), metav1.ListOptions{})
	must(t, err)
	stored := map[string]bool{}
	for _, c := range list.Items {
		stored[c.Name] = true
	}
	mu.Lock()
	defer mu.Unlock()
	lost := 0
	for _, name := range acked {
		if !stored[name] {
			lost++
			t.Errorf("acknowledged write %s is lost", name)
		}
	}
	t.Logf("%d writes acknowledged (%d lost), %d refused while no replica served", len(acked), lost, refused)
	if len(acked) < 50 {
		t.Errorf("only %d writes acknowledged: the write loop did not run", len(acked))
	}
	holderB := leaseHolder(context.Background(), kube)
	b.stop()
	eventually(t, 5*time.Second, "the restarted harness replica leads", func() error {
		if h := leaseHolder(context.Background(), kube); h == "" || h == holderB {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
}

// TestRestartsNeverRefuseValidCredentials restarts the harness replica 10 times while a loop sends requests
// with valid credentials through kube-apiserver: while it is down they fail (503), while it loads its CA
// bundles they are asked to retry (503), but none is refused as unauthenticated or forbidden.
func TestRestartsNeverRefuseValidCredentials(t *testing.T) {
	a := harness(t)
	leaderBefore := holder(admin(t))
	cfg := adminConfig(t)
	httpClient, err := rest.HTTPClientFor(cfg)
	must(t, err)
	url := strings.TrimSuffix(cfg.Host, "/") + "/apis/aim.eai.amd.com/v1alpha1/aimclusterruntimeconfigs"
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	codes := map[int]int{}
	var refusals []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := httpClient.Do(req)
			if err != nil {
				continue
			}
			body := make([]byte, 300)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
				refusals = append(refusals, string(body[:n]))
			}
			mu.Unlock()
		}
	}()
	for i := range 10 {
		a.signal(t, syscall.SIGKILL)
		a.waitExit(t, 10*time.Second)
		a.restart(t)
		mu.Lock()
		before := codes[http.StatusOK]
		mu.Unlock()
		eventually(t, 10*time.Second, fmt.Sprintf("requests served after restart %d", i+1), func() error {
			mu.Lock()
			defer mu.Unlock()
			if codes[http.StatusOK] < before+20 {
				return fmt.Errorf("%d served", codes[http.StatusOK]-before)
			}
			return nil
		})
	}
	cancel()
	<-done
	t.Logf("answers over 10 restarts: %v", codes)
	if len(refusals) > 0 {
		t.Errorf("%d requests with valid credentials were refused (401/403), e.g. %s", len(refusals), refusals[0])
	}
	// The restarts were kills: the Lease must expire before the restarted replica leads again.
	_, kube := adminClients(t)
	waitForLiveLeader(t, kube, leaderBefore)
}

// auditEntry is what the tests read of an audit event.
type auditEntry struct {
	Verb                     string                    `json:"verb"`
	Stage                    string                    `json:"stage"`
	UserAgent                string                    `json:"userAgent"`
	User                     struct{ Username string } `json:"user"`
	RequestReceivedTimestamp metav1.Time               `json:"requestReceivedTimestamp"`
	ObjectRef                *struct {
		Resource, Namespace, Name, Subresource string
	} `json:"objectRef"`
	ResponseStatus struct{ Code int } `json:"responseStatus"`
}

// auditEntries reads the events of audit logs whose line holds every one of substrings (which spares decoding
// the rest of a log of thousands of lines).
func auditEntries(t *testing.T, substrings []string, logs ...string) []auditEntry {
	t.Helper()
	var out []auditEntry
	for _, path := range logs {
		data, err := os.ReadFile(path)
		must(t, err)
	lines:
		for _, line := range strings.Split(string(data), "\n") {
			for _, s := range substrings {
				if !strings.Contains(line, s) {
					continue lines
				}
			}
			var e auditEntry
			if json.Unmarshal([]byte(line), &e) == nil {
				out = append(out, e)
			}
		}
	}
	return out
}

// writesBy counts the writes in audit logs sent by a replica's controller (its user agent names its Lease
// identity) at or after since, and lists a few.
func writesBy(t *testing.T, identity string, since time.Time, logs ...string) (int, []string) {
	t.Helper()
	count := 0
	var examples []string
	for _, e := range auditEntries(t, []string{identity}, logs...) {
		if e.UserAgent != "aim-apiserver-controller/"+identity || e.RequestReceivedTimestamp.Time.Before(since) {
			continue
		}
		count++
		if len(examples) < 5 && e.ObjectRef != nil {
			examples = append(examples, fmt.Sprintf("%s %s/%s %s", e.Verb, e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Name))
		}
	}
	return count, examples
}

// TestStalledLeaderWritesNothing stops the leader (SIGSTOP) past its Lease, lets the other replica take over
// and work, then resumes it while new work keeps arriving: in the overlap, until the stale leader notices it
// lost the Lease, the audit logs of kube-apiserver and both replicas show writes from the new leader and none
// from the stale one.
func TestStalledLeaderWritesNothing(t *testing.T) {
	a := harness(t)
	_, kube := adminClients(t)
	ctx := context.Background()
	leaderA := waitForLiveLeader(t, kube, "")
	b, portB, auditB := secondReplica(t, a)
	direct, err := versioned.NewForConfig(directConfig(t, portB))
	must(t, err)
	ns := namespace(t, "e2e-stale-leader")
	work := func(stop <-chan struct{}, prefix string) {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			_, _ = direct.AimV1alpha1().AIMRuntimeConfigs(ns).Create(ctx, &aimv1.AIMRuntimeConfig{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}}, metav1.CreateOptions{})
		}
	}

	logA := filepath.Join(localDir, "logs", "aim-apiserver.log")
	stoppedLeadingBefore := strings.Count(readFile(t, logA), "Stopped leading")
	stopProcess(t, a.PID)
	stopped := make(chan struct{})
	go work(stopped, "during-stall")
	var leaderB string
	eventually(t, leaseDuration+15*time.Second, "the other replica takes the Lease", func() error {
		if leaderB = leaseHolder(ctx, kube); leaderB == leaderA || leaderB == "" {
			return fmt.Errorf("holder %q", leaderB)
		}
		return nil
	})
	time.Sleep(5 * time.Second) // the stall lasts well past the lease duration
	close(stopped)

	overlap := make(chan struct{})
	go work(overlap, "overlap")
	resumed := time.Now()
	a.signal(t, syscall.SIGCONT)
	time.Sleep(15 * time.Second) // longer than the renew deadline: the stale leader has noticed by then
	close(overlap)
	time.Sleep(2 * time.Second) // audit logs are written as requests finish

	logs := []string{filepath.Join(localDir, "logs", "kube-apiserver-audit.log"), filepath.Join(localDir, "logs", "aim-apiserver-audit.log"), auditB}
	staleWrites, examples := writesBy(t, leaderA, resumed, logs...)
	newWrites, _ := writesBy(t, leaderB, resumed, logs...)
	t.Logf("writes in the 15s after the stale leader resumed: stale leader %d, new leader %d", staleWrites, newWrites)
	if staleWrites > 0 {
		t.Errorf("the stale leader wrote %d times after resuming, e.g. %v", staleWrites, examples)
	}
	if newWrites == 0 {
		t.Error("the new leader wrote nothing in the overlap: the test generated no work")
	}
	if strings.Count(readFile(t, logA), "Stopped leading") == stoppedLeadingBefore {
		t.Error("the stale leader did not log that it stopped leading")
	}
	b.stop()
	eventually(t, 5*time.Second, "the harness replica leads again", func() error {
		if h := leaseHolder(ctx, kube); h != leaderA {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
	list, err := direct.AimV1alpha1().AIMRuntimeConfigs(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, c := range list.Items {
			_ = direct.AimV1alpha1().AIMRuntimeConfigs(ns).Delete(ctx, c.Name, metav1.DeleteOptions{})
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return string(data)
}
