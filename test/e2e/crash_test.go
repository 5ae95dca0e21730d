//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
)

// crashKills is how many times TestCrashConsistency kills aim-apiserver; make test runs the short form,
// make crash a long one.
var crashKills = flag.Int("crash.kills", 3, "kill -9 rounds of TestCrashConsistency")

// entry is what the ledger knows of one object: the outcome of the last acknowledged write, unless a write
// since then had no answer (uncertain: it may or may not have been applied).
type entry struct {
	exists    bool
	value     string
	uncertain bool
}

// ledger records the churn's acknowledged writes and what contradicts them.
type ledger struct {
	mu         sync.Mutex
	entries    map[string]*entry
	violations []string
	acked      int
	unanswered int
}

func (l *ledger) violation(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.violations = append(l.violations, fmt.Sprintf(format, args...))
}

// TestCrashConsistency churns creates, updates and deletes through kube-apiserver while aim-apiserver is
// killed with SIGKILL and restarted, then checks the ledger: no acknowledged write lost, no acknowledged
// delete resurrected, and no child created twice (models created during the kills each get exactly their
// templates). -crash.kills sets the number of kills (make crash runs many).
func TestCrashConsistency(t *testing.T) {
	a := harness(t)
	aim, kube := adminClients(t)
	leader := waitForLiveLeader(t, kube, "")
	ns := namespace(t, "e2e-crash")
	configs := aim.AimV1alpha1().AIMRuntimeConfigs(ns)
	l := &ledger{entries: map[string]*entry{}}
	ctx, stop := context.WithCancel(context.Background())

	const workers, perWorker = 4, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			churn(ctx, configs, l, w, perWorker)
		}()
	}
	var models []string
	for round := range *crashKills {
		// A model just before the kill: the controller is creating its templates when it dies.
		model := fmt.Sprintf("m-%d", round)
		createModel(t, aim, ns, model)
		models = append(models, model)
		time.Sleep(time.Duration(1500+rand.IntN(1500)) * time.Millisecond)
		a.signal(t, syscall.SIGKILL)
		a.waitExit(t, 10*time.Second)
		a.restart(t)
	}
	time.Sleep(2 * time.Second)
	stop()
	wg.Wait()

	// Final check against what the server holds now.
	list, err := configs.List(context.Background(), metav1.ListOptions{})
	must(t, err)
	stored := map[string]string{}
	for _, c := range list.Items {
		stored[c.Name] = envValue(&c)
	}
	certain := 0
	for name, e := range l.entries {
		if e.uncertain {
			continue
		}
		certain++
		got, exists := stored[name]
		switch {
		case e.exists && !exists:
			l.violation("%s: acknowledged with value %s, now missing (lost write)", name, e.value)
		case e.exists && got != e.value:
			l.violation("%s: acknowledged value %s, stored %s (lost update)", name, e.value, got)
		case !e.exists && exists:
			l.violation("%s: acknowledged delete, now exists with %s (resurrected)", name, got)
		}
	}

	// Children: each model has exactly its two templates, owned by it, once a leader runs again.
	waitForLiveLeader(t, kube, leader)
	for _, m := range models {
		model, err := aim.AimV1alpha1().AIMModels(ns).Get(context.Background(), m, metav1.GetOptions{})
		must(t, err)
		eventually(t, 60*time.Second, "templates of "+m, func() error {
			tpls, err := aim.AimV1alpha1().AIMServiceTemplates(ns).List(context.Background(),
				metav1.ListOptions{LabelSelector: "aim.eai.amd.com/model=" + m})
			if err != nil {
				return err
			}
			if len(tpls.Items) < 2 {
				return fmt.Errorf("%d templates so far", len(tpls.Items))
			}
			if len(tpls.Items) > 2 {
				l.violation("model %s has %d templates, want 2 (duplicate children)", m, len(tpls.Items))
				return nil
			}
			for _, tpl := range tpls.Items {
				if !ownedBy(tpl.OwnerReferences, model.UID) {
					l.violation("template %s is not owned by model %s", tpl.Name, m)
				}
			}
			return nil
		})
	}
	t.Logf("%d kills; %d writes acknowledged, %d unanswered; %d of %d objects checked against the ledger",
		*crashKills, l.acked, l.unanswered, certain, len(l.entries))
	for _, v := range l.violations {
		t.Error(v)
	}
	if l.acked < 100 {
		t.Errorf("only %d acknowledged writes: the churn did not run", l.acked)
	}
}

// churn runs one worker's creates, updates and deletes over its own objects until ctx ends.
func churn(ctx context.Context, configs interface {
	Create(context.Context, *aimv1.AIMRuntimeConfig, metav1.CreateOptions) (*aimv1.AIMRuntimeConfig, error)
	Get(context.Context, string, metav1.GetOptions) (*aimv1.AIMRuntimeConfig, error)
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*aimv1.AIMRuntimeConfig, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}, l *ledger, worker, objects int) {
	seq := 0
	for ctx.Err() == nil {
		name := fmt.Sprintf("c-%d-%d", worker, rand.IntN(objects))
		seq++
		value := strconv.Itoa(seq)
		l.mu.Lock()
		e, ok := l.entries[name]
		if !ok {
			e = &entry{}
			l.entries[name] = e
		}
		cur := *e
		l.mu.Unlock()
		// Each call gets its own deadline and ignores the test's end: an answer is an answer.
		opCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var err error
		var next entry
		write := true
		switch {
		case cur.uncertain:
			write = false
			var got *aimv1.AIMRuntimeConfig
			got, err = configs.Get(opCtx, name, metav1.GetOptions{})
			switch {
			case err == nil:
				next = entry{exists: true, value: envValue(got)}
			case apierrors.IsNotFound(err):
				next, err = entry{}, nil
			}
		case !cur.exists:
			_, err = configs.Create(opCtx, runtimeConfig(name, value), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				l.violation("%s: create after an acknowledged delete found it present (resurrected)", name)
			}
			next = entry{exists: true, value: value}
		case rand.IntN(10) < 7:
			patch := fmt.Sprintf(`{"spec":{"env":[{"name":"V","value":%q}]}}`, value)
			_, err = configs.Patch(opCtx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			if apierrors.IsNotFound(err) {
				l.violation("%s: update of an acknowledged object found it gone (lost write)", name)
			}
			next = entry{exists: true, value: value}
		default:
			err = configs.Delete(opCtx, name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				l.violation("%s: delete of an acknowledged object found it gone (lost write)", name)
			}
			next = entry{}
		}
		cancel()
		l.mu.Lock()
		switch {
		case err == nil:
			*e = next
			if write {
				l.acked++
			}
		case apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err):
			// A contradiction, recorded above; what the server holds is now unknown to the ledger.
			*e = entry{uncertain: true}
		default:
			// No answer (the server died under the request): it may or may not have happened.
			*e = entry{uncertain: true}
			l.unanswered++
		}
		l.mu.Unlock()
	}
}

func runtimeConfig(name, value string) *aimv1.AIMRuntimeConfig {
	c := &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.Env = []corev1.EnvVar{{Name: "V", Value: value}}
	return c
}

func envValue(c *aimv1.AIMRuntimeConfig) string {
	for _, e := range c.Spec.Env {
		if e.Name == "V" {
			return e.Value
		}
	}
	return ""
}

func createModel(t *testing.T, aim versioned.Interface, ns, name string) {
	t.Helper()
	m := &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: aimv1.AIMModelSpec{
		Image: "registry.example/aim/crash-" + name + ":1.0",
		ImageMetadata: &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{
			CanonicalName: "Org/" + name,
			RecommendedDeployments: []aimv1.RecommendedDeployment{
				{GPUModel: "MI210", GPUCount: 1, Precision: "fp16", Metric: "latency"},
				{GPUModel: "MI210", GPUCount: 2, Precision: "fp16", Metric: "throughput"},
			},
		}},
	}}
	eventually(t, 60*time.Second, "model "+name, func() error {
		_, err := aim.AimV1alpha1().AIMModels(ns).Create(context.Background(), m, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

func ownedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}
